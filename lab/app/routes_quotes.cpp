// GET /quote-legacy and /quote-resilient: one quote flow per request.
#include <httplib.h>

#include <set>
#include <utility>

#include "lab/app/json_views.hpp"
#include "lab/app/lab_app.hpp"
#include "lab/app/route_handlers.hpp"
#include "lab/app/route_support.hpp"
#include "lab/http/http_server.hpp"

namespace quote_lab::handlers {
namespace {

void quote(Mode mode, RouteContext& ctx, const httplib::Request& req, httplib::Response& res) {
  static const std::set<std::string> known = [] {
    std::set<std::string> names{"scenario", std::string(kCustomerId.name), std::string(kItems.name)};
    names.insert(std::begin(kPolicyOverrideParams), std::end(kPolicyOverrideParams));
    return names;
  }();
  if (auto e = check_known_params(req, known)) return send_api_error(req, res, *e);
  LabApp& app = ctx.app;
  std::string scenario;
  if (const auto* raw = query_param(req, "scenario")) {
    const Scenario* s = app.scenarios().find(*raw);
    if (s == nullptr) return send_api_error(req, res, unknown_scenario_error(app.scenarios(), *raw));
    scenario = s->name;
  }
  int customer_id = 0;
  int items = 0;
  if (auto e = parse_domain_param(req, kCustomerId, customer_id)) return send_api_error(req, res, *e);
  if (auto e = parse_domain_param(req, kItems, items)) return send_api_error(req, res, *e);
  RetryPolicy policy = app.policy(mode);
  std::vector<std::string> overrides;
  if (auto e = apply_policy_overrides([&req](const char* name) { return query_param(req, name); }, policy, overrides))
    return send_api_error(req, res, *e);
  auto result = app.quote(mode, scenario, customer_id, items, &policy, overrides, ctx.queue_ms);
  send_rendered_json(res, quote_http_status(result.trace), std::move(result.body));
}

}  // namespace

void quote_legacy(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  quote(Mode::legacy, ctx, req, res);
}

void quote_resilient(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  quote(Mode::resilient, ctx, req, res);
}

}  // namespace quote_lab::handlers
