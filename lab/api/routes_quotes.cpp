// GET /quote-legacy, /quote-resilient and /quote/{policy}: one quote flow per request.
#include <httplib.h>

#include <set>
#include <utility>

#include "lab/api/route_handlers.hpp"
#include "lab/api/route_support.hpp"
#include "lab/api/json_views.hpp"
#include "lab/api/quote_answer.hpp"
#include "lab/app/lab_app.hpp"
#include "lab/http/http_server.hpp"
#include "lab/http/policy_overrides.hpp"

namespace quote_lab::handlers {
namespace {

// The quote's priority: `?priority=` (for curl), else the X-Priority header, else critical.
std::optional<ApiError> priority_asked(const httplib::Request& req, Priority& out) {
  const std::string* param = query_param(req, "priority");
  const std::string header = req.get_header_value("X-Priority");
  if (param == nullptr && header.empty()) return std::nullopt;
  return parse_priority_value(param ? *param : header, out);
}

void quote(const std::string& policy_name, RouteContext& ctx, const httplib::Request& req, httplib::Response& res) {
  static const std::set<std::string> known = [] {
    std::set<std::string> names{"scenario", "priority", std::string(kCustomerId.name), std::string(kItems.name)};
    for (auto& name : policy_override_names()) names.insert(std::move(name));
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
  Priority priority = Priority::critical;
  if (auto e = priority_asked(req, priority)) return send_api_error(req, res, *e);
  RetryPolicy policy = *app.find_policy(policy_name);
  std::vector<std::string> overrides;
  if (auto e = apply_policy_overrides([&req](const char* name) { return query_param(req, name); }, policy, overrides))
    return send_api_error(req, res, *e);
  // A client that hangs up stops its quote: no place in a bulkhead, no wait, no call for nobody.
  const ClientWatch::Registration client = watch_client();
  const auto result = app.quote(policy_name, scenario, customer_id, items, &policy, ctx.queue_ms, priority,
                                client.token());
  std::string body = answer_quote(app, result, ctx.policy_views,
                                  {policy_name, policy, overrides, ctx.queue_ms, request_language(req)});
  send_rendered_json(res, quote_http_status(result.trace), std::move(body));
  res.set_header("Vary", "Accept-Language");
}

}  // namespace

void quote_legacy(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  quote(std::string(to_string(Mode::legacy)), ctx, req, res);
}

void quote_resilient(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  quote(std::string(to_string(Mode::resilient)), ctx, req, res);
}

void quote_named(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  const std::string name = req.matches[1].str();
  if (ctx.app.find_policy(name) == nullptr)
    return send_api_error(req, res, unknown_policy_error(ctx.app.policies(), name, 404, "unknown_policy"));  // the path names none
  quote(name, ctx, req, res);
}

}  // namespace quote_lab::handlers
