// The lab's state and what changes it: /health, /dependency/state, /incidents,
// /reset-lab, /carrier and /carrier/mode.
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "lab/app/json_views.hpp"
#include "lab/app/lab_app.hpp"
#include "lab/app/route_handlers.hpp"
#include "lab/app/route_support.hpp"
#include "lab/experiments/storm_experiment.hpp"
#include "lab/http/http_server.hpp"

namespace quote_lab::handlers {
namespace {

nlohmann::ordered_json carrier_view(const RouteContext& ctx) {
  const LabApp& app = ctx.app;
  return carrier_json(ctx.carrier_url, app.carrier_mode(), app.carrier_stats(), app.scenarios().accepted_names());
}

}  // namespace

void health(RouteContext& ctx, const httplib::Request&, const std::string&, httplib::Response& res) {
  std::string mode = ctx.app.carrier_mode();
  auto& cached = ctx.health;
  const std::lock_guard lock(cached.mutex);
  if (cached.body.empty() || cached.carrier_mode != mode) {
    cached.body = render_json({{"status", "ok"}, {"service", "quote-lab"}, {"carrier_url", ctx.carrier_url},
                               {"carrier_mode", mode}});
    cached.carrier_mode = std::move(mode);
  }
  send_rendered_json(res, 200, cached.body);
}

void dependency_state(RouteContext& ctx, const httplib::Request&, const std::string&, httplib::Response& res) {
  send_rendered_json(res, 200, dependency_text(ctx.app.dependency_view(), JsonLayout::pretty));
}

void incidents(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  if (auto e = check_known_params(req, {std::string(kIncidentsLimit.name)})) return send_api_error(res, *e);
  int limit = 0;
  if (auto e = parse_domain_param(req, kIncidentsLimit, limit)) return send_api_error(res, *e);
  send_json(res, 200, incidents_json(limit, ctx.app.incidents(static_cast<std::size_t>(limit))));
}

void reset_lab(RouteContext& ctx, const httplib::Request&, const std::string&, httplib::Response& res) {
  ctx.storm.cancel();  // a reset also stops a storm started from the lab (issue 10)
  ctx.storm.forget_result();
  ctx.app.reset();
  send_json(res, 200, {{"status", "reset"},
                       {"message", "telemetry, metrics, breaker, fallback cache and carrier mode are back to their seeds"},
                       {"dependency", dependency_json(ctx.app.dependency_view())}});
}

void carrier(RouteContext& ctx, const httplib::Request&, const std::string&, httplib::Response& res) {
  send_json(res, 200, carrier_view(ctx));
}

void carrier_mode(RouteContext& ctx, const httplib::Request& req, const std::string& body, httplib::Response& res) {
  std::string wanted = req.get_param_value("mode");
  if (wanted.empty() && !body.empty()) {
    const auto j = nlohmann::ordered_json::parse(body, nullptr, false);
    if (j.is_object() && j.contains("mode") && j["mode"].is_string()) wanted = j["mode"].get<std::string>();
  }
  if (!ctx.app.set_carrier_mode(wanted))
    return send_error(res, 400, "unknown_scenario", "mode must be a scenario name (got '" + wanted.substr(0, 40) + "')",
                      ctx.app.scenarios().accepted_names());
  send_json(res, 200, carrier_view(ctx));
}

}  // namespace quote_lab::handlers
