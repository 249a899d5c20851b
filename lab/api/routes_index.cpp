// GET /: the JSON index of the lab for curl (every route of the table, the parameters,
// scenarios, policies and the strategies a policy may list), the dashboard for a browser. Its sentences (route descriptions,
// parameter ranges) speak the language the request's Accept-Language prefers; names, paths
// and values are the contract's and stay as they are.
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "lab/api/route_handlers.hpp"
#include "lab/api/route_support.hpp"
#include "lab/api/route_table.hpp"
#include "lab/app/lab_app.hpp"
#include "lab/formats/pipeline_json.hpp"
#include "lab/formats/policy_json.hpp"
#include "lab/http/http_server.hpp"
#include "lab/http/policy_overrides.hpp"
#include "lab/http/static_files.hpp"

namespace quote_lab::handlers {
namespace {

std::string join(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : separator) + p;
  return out;
}

nlohmann::ordered_json routes_json(Language language) {
  nlohmann::ordered_json routes = nlohmann::ordered_json::array();
  for (const Route& r : lab_route_table())
    routes.push_back({{"method", join(r.methods, "|")},
                      {"path", r.path + r.example_query},
                      {"description", language == Language::es ? r.description.es : r.description.en},
                      {"mutating", r.mutating}});
  return routes;
}

// "integer 1-5000", and "entero 1-5000" in Spanish.
std::string range_text(const IntParam& p, Language language) {
  if (language == Language::en) return p.describe_range();
  return "entero " + std::to_string(p.min) + "-" + std::to_string(p.max);
}

// "integer 1-5000, default 42", as the index describes a quote parameter.
std::string param_text(const IntParam& p, Language language) {
  if (language == Language::en) return p.describe();
  return range_text(p, language) + ", " + std::to_string(p.fallback) + " si se omite";
}

// The override table as the page's storm form builds its fields from it: both languages,
// since the page switches language without asking again.
nlohmann::ordered_json overrides_json() {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& o : policy_overrides()) {
    nlohmann::ordered_json row = {{"name", o.name},
                                  {"kind", o.kind == OverrideKind::integer  ? "integer"
                                           : o.kind == OverrideKind::number ? "number"
                                                                            : "choice"},
                                  {"description", {{"es", o.es}, {"en", o.en}}},
                                  {"accepted", {{"es", o.accepted(Language::es)}, {"en", o.accepted(Language::en)}}}};
    if (o.kind == OverrideKind::choice) {
      row["choices"] = o.choices;
    } else if (o.kind == OverrideKind::integer) {
      row["min"] = static_cast<int>(o.min), row["max"] = static_cast<int>(o.max);
    } else {
      row["min"] = o.min, row["max"] = o.max;
    }
    list.push_back(std::move(row));
  }
  return list;
}

// The strategies' rows never change while the lab runs: rendered once.
const nlohmann::ordered_json& strategies_json() {
  static const nlohmann::ordered_json kStrategies = strategies_to_json();
  return kStrategies;
}

nlohmann::ordered_json index_json(const RouteContext& ctx, const std::string& host, Language language) {
  const bool es = language == Language::es;
  const LabApp& app = ctx.app;
  const std::string base = "http://" + (host.empty() ? std::string("127.0.0.1:8080") : host.substr(0, 100));
  const std::string example = "?scenario=provider_down&" + std::string(kCustomerId.name) + "=" +
                              std::to_string(kCustomerId.fallback) + "&" + std::string(kItems.name) + "=" +
                              std::to_string(kItems.fallback);
  nlohmann::ordered_json scenarios = nlohmann::ordered_json::array();
  for (const auto& s : app.scenarios().all()) scenarios.push_back(to_json(s));
  nlohmann::ordered_json parameters = {{"scenario", app.scenarios().accepted_names()},
                                        {kCustomerId.name, param_text(kCustomerId, language)},
                                        {kItems.name, param_text(kItems, language)}};
  parameters["priority"] = es ? "prioridad de la cotización, enviada al proveedor en cada intento (también la cabecera "
                                "X-Priority): `critical` (si no se indica) o `sheddable`; un proveedor que descarta "
                                "carga descarta primero las `sheddable`"
                              : "the quote's priority, sent to the carrier on every attempt (also the X-Priority "
                                "header): `critical` (when none is given) or `sheddable`; a carrier that sheds load "
                                "sheds `sheddable` calls first";
  for (const auto& o : policy_overrides())
    parameters[std::string(o.name)] = (es ? "cambia la política solo en esta solicitud: " : "per-request override: ") +
                                      std::string(es ? o.es : o.en) + ", " + o.accepted(language);
  parameters["lab"] = es ? "en toda ruta: el laboratorio propio de un estudiante (de 1 a 32 de a-z, 0-9, '-'), por "
                           "ejemplo /?lab=ana; sin él, el del docente; GET /class los lista"
                         : "on every route: a student's own lab (1-32 of a-z, 0-9, '-'), e.g. /?lab=ana; none is the "
                           "teacher's; GET /class lists them";
  return {{"service", "quote-lab"},
          {"description",
           {{"es", "Laboratorio de resiliencia: la misma cotización con la política `legacy` (reintentos agresivos) y "
                   "con `resilient` (tiempo límite corto, espera entre reintentos con variación aleatoria, disyuntor y "
                   "cotización de respaldo)."},
            {"en", "Resilience lab: the same quote with a legacy policy (aggressive retries) and a resilient one (short timeout, backoff with jitter, circuit breaker and fallback)."}}},
          {"routes", routes_json(language)},
          {"also_under_prefix", std::string(kHubPrefix)},
          {"parameters", parameters},
          {"policy_overrides", overrides_json()},
          {"scenarios", scenarios},
          {"carrier_mode", app.carrier_mode()},
          {"carrier_url", ctx.carrier_url},
          {"policies", policies_shown_json(app.policies(), true)},
          {"strategies", strategies_json()},
          {"try",
           {"curl '" + base + "/quote-legacy" + example + "'",
            "curl '" + base + "/quote-resilient" + example + "'",
            "curl " + base + "/dependency/state"}}};
}

}  // namespace

void index(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  if (serve_page_to_browser(req, res, ctx.dashboard.public_dir / "index.html")) return;
  send_json(res, 200, index_json(ctx, req.get_header_value("Host"), request_language(req)));
  res.set_header("Vary", "Accept-Language");
}

}  // namespace quote_lab::handlers
