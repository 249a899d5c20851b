// The lab's state and what changes it: /health, /dependency/state, /incidents,
// /reset-lab, /carrier and /carrier/mode.
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "lab/api/route_handlers.hpp"
#include "lab/api/route_support.hpp"
#include "lab/api/json_views.hpp"
#include "lab/app/lab_app.hpp"
#include "lab/app/lab_registry.hpp"
#include "lab/experiments/storm_experiment.hpp"
#include "lab/http/http_server.hpp"

namespace quote_lab::handlers {
namespace {

nlohmann::ordered_json carrier_view(const RouteContext& ctx) {
  const LabApp& app = ctx.app;
  return carrier_json(ctx.carrier_url, app.carrier_mode(), app.carrier_stats(), app.scenarios().accepted_names(),
                      app.metastable_episode(), app.shedding_station());
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

void dependency_state(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  if (serve_page_to_browser(req, res, ctx.dashboard.public_dir / kViewPage)) return;
  send_rendered_json(res, 200, dependency_text(ctx.app.dependency_view(), JsonLayout::pretty));
}

void incidents(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  // The page reads the same URL as JSON and shows its 400, if any: the query is checked there.
  if (serve_page_to_browser(req, res, ctx.dashboard.public_dir / kViewPage)) return;
  if (auto e = check_known_params(req, {std::string(kIncidentsLimit.name)})) return send_api_error(req, res, *e);
  int limit = 0;
  if (auto e = parse_domain_param(req, kIncidentsLimit, limit)) return send_api_error(req, res, *e);
  send_json(res, 200, incidents_json(limit, ctx.app.incidents(static_cast<std::size_t>(limit))));
}

void reset_lab(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  quote_lab::reset_lab(ctx.app, ctx.storm);
  ctx.labs.storm_ended(ctx.app.name());
  send_json(res, 200, {{"status", "reset"},
                       {"message", message_text(MessageId::lab_reset_done, request_language(req), {})},
                       {"dependency", dependency_json(ctx.app.dependency_view())}});
  res.set_header("Vary", "Accept-Language");
}

void carrier(RouteContext& ctx, const httplib::Request&, const std::string&, httplib::Response& res) {
  send_json(res, 200, carrier_view(ctx));
}

void carrier_mode(RouteContext& ctx, const httplib::Request& req, const std::string& body, httplib::Response& res) {
  const std::string wanted = carrier_mode_asked(req, body);
  if (wanted.empty())
    return send_api_error(req, res,
                          api_error(400, "unknown_scenario", MessageId::missing_carrier_mode, {},
                                    ctx.app.scenarios().accepted_names()));
  if (!ctx.app.set_carrier_mode(wanted)) return send_api_error(req, res, unknown_scenario_error(ctx.app.scenarios(), wanted));
  send_json(res, 200, carrier_view(ctx));
}

}  // namespace quote_lab::handlers
