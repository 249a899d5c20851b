// GET /: the JSON index of the lab for curl (every route of the table, the parameters,
// scenarios and policies), the dashboard for a browser.
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "lab/app/lab_app.hpp"
#include "lab/app/route_handlers.hpp"
#include "lab/app/route_support.hpp"
#include "lab/formats/policy_json.hpp"
#include "lab/http/http_server.hpp"
#include "lab/http/static_files.hpp"

namespace quote_lab::handlers {
namespace {

std::string join(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : separator) + p;
  return out;
}

nlohmann::ordered_json routes_json() {
  nlohmann::ordered_json routes = nlohmann::ordered_json::array();
  for (const Route& r : lab_route_table())
    routes.push_back({{"method", join(r.methods, "|")},
                      {"path", r.path + r.example_query},
                      {"description", r.description},
                      {"mutating", r.mutating}});
  return routes;
}

nlohmann::ordered_json index_json(const RouteContext& ctx, const std::string& host) {
  const LabApp& app = ctx.app;
  const std::string base = "http://" + (host.empty() ? std::string("127.0.0.1:8080") : host.substr(0, 100));
  const std::string example = "?scenario=provider_down&" + std::string(kCustomerId.name) + "=" +
                              std::to_string(kCustomerId.fallback) + "&" + std::string(kItems.name) + "=" +
                              std::to_string(kItems.fallback);
  nlohmann::ordered_json scenarios = nlohmann::ordered_json::array();
  for (const auto& s : app.scenarios().all()) scenarios.push_back(to_json(s));
  const auto override_text = [](const IntParam& p) { return "per-request override, " + p.describe_range(); };
  return {{"service", "quote-lab"},
          {"description",
           {{"es", "Laboratorio de resiliencia: la misma cotización con una política legacy (reintentos agresivos) y una resiliente (timeout corto, backoff con jitter, circuit breaker y fallback)."},
            {"en", "Resilience lab: the same quote with a legacy policy (aggressive retries) and a resilient one (short timeout, backoff with jitter, circuit breaker and fallback)."}}},
          {"routes", routes_json()},
          {"also_under_prefix", "/04"},
          {"parameters",
           {{"scenario", app.scenarios().accepted_names()},
            {kCustomerId.name, kCustomerId.describe()},
            {kItems.name, kItems.describe()},
            {kTimeoutMsOverride.name, override_text(kTimeoutMsOverride)},
            {kMaxAttemptsOverride.name, override_text(kMaxAttemptsOverride)},
            {kBackoffBaseMsOverride.name, override_text(kBackoffBaseMsOverride)},
            {"jitter", jitter_names()},
            {"lab", "on every route: a student's own lab (1-32 of a-z, 0-9, '-'), e.g. /?lab=ana; none is the "
                    "teacher's; GET /class lists them"}}},
          {"scenarios", scenarios},
          {"carrier_mode", app.carrier_mode()},
          {"carrier_url", ctx.carrier_url},
          {"policies", to_json(app.policies())},
          {"try",
           {"curl '" + base + "/quote-legacy" + example + "'",
            "curl '" + base + "/quote-resilient" + example + "'",
            "curl " + base + "/dependency/state"}}};
}

}  // namespace

void index(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  if (serve_page_to_browser(req, res, ctx.dashboard.public_dir / "index.html")) return;
  send_json(res, 200, index_json(ctx, req.get_header_value("Host")));
}

}  // namespace quote_lab::handlers
