// POST /claim?name=NAME: a student's step 0. The name is theirs from now on: its key comes in
// this answer only (201), and every lab called NAME or NAME-... needs it (lab_keys.hpp). A
// name already claimed is a 409 that says what to do; with the teacher's token, a new key.
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "lab/api/route_handlers.hpp"
#include "lab/api/route_support.hpp"
#include "lab/app/lab_keys.hpp"
#include "lab/app/lab_registry.hpp"
#include "lab/base/lab_name.hpp"
#include "lab/http/lab_name_error.hpp"
#include "lab/http/http_server.hpp"

namespace quote_lab::handlers {

void claim(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  if (auto e = check_known_params(req, {"name"})) return send_api_error(req, res, *e);
  const std::string* raw = query_param(req, "name");
  if (raw == nullptr || raw->empty())
    return send_api_error(req, res, api_error(400, "invalid_parameter", MessageId::claim_needs_name, {}));
  LabNameProblem problem = LabNameProblem::none;
  const auto name = normalize_lab_name(*raw, problem);
  if (!name)
    return send_api_error(req, res, lab_name_error(*raw, problem));
  std::optional<std::string> key;
  MessageId said = MessageId::name_claimed;
  if (ctx.teacher) {
    key = ctx.labs.reissue_key(*name);
    said = MessageId::name_reissued;
  } else {
    key = ctx.labs.claim_key(*name);
    if (!key) return send_api_error(req, res, api_error(409, "name_taken", MessageId::name_taken, {{"owner", *name}}));
  }
  send_json(res, 201, {{"lab_key", *key},
                       {"owner", *name},
                       {"message", message_text(said, request_language(req), {{"owner", *name}})}});
  res.set_header("Vary", "Accept-Language");
}

}  // namespace quote_lab::handlers
