// GET /class: every student lab at once, as JSON for curl and scripts, or the
// class page (public/class.html, which reads this JSON) for a browser; and the teacher's
// class-wide actions, POST /class/reset and PUT|POST /class/carrier-mode.
#include <httplib.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "lab/api/route_handlers.hpp"
#include "lab/api/route_support.hpp"
#include "lab/app/design_judge.hpp"
#include "lab/app/lab_app.hpp"
#include "lab/app/lab_registry.hpp"
#include "lab/base/time_format.hpp"
#include "lab/carrier/scenario.hpp"
#include "lab/http/accept.hpp"
#include "lab/http/http_server.hpp"

namespace quote_lab::handlers {
namespace {

nlohmann::ordered_json rounded(const std::optional<double>& v, double scale) {
  return v ? nlohmann::ordered_json(std::round(*v * scale) / scale) : nlohmann::ordered_json(nullptr);
}

// The canonical scenario names, for the class page's carrier-mode choice.
nlohmann::ordered_json carrier_modes(LabRegistry& labs) {
  nlohmann::ordered_json names = nlohmann::ordered_json::array();
  for (const Scenario& sc : labs.teacher().app.scenarios().all()) names.push_back(sc.name);
  return names;
}

nlohmann::ordered_json place(const std::optional<int>& p) {
  return p ? nlohmann::ordered_json(*p) : nlohmann::ordered_json(nullptr);
}

// The class challenge's designs, best first (rank_designs), and the baselines' scores once known.
nlohmann::ordered_json designs_json(LabRegistry& labs) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const DesignRow& r : labs.class_designs()) {
    nlohmann::ordered_json strategies = nlohmann::ordered_json::array();
    for (const auto& entry : r.design.pipeline) strategies.push_back(entry.value("strategy", ""));
    const Scorecard& card = r.design.card;
    rows.push_back({{"place", r.place},
                    {"lab", r.lab},
                    {"name", r.owner},
                    {"score", card.score},
                    {"calls_per_quote", card.calls_per_quote},
                    {"p99_ms", card.p99_ms},
                    {"strategies", strategies},
                    {"submitted_utc", format_iso8601(r.design.submitted_at)}});
  }
  return rows;
}

nlohmann::ordered_json class_json(LabRegistry& labs, DesignJudge* judge) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  const std::vector<ClassRow> lab_rows = labs.class_rows();
  for (const ClassRow& r : lab_rows)
    rows.push_back({{"place", place(r.place)},
                    {"name", r.name},
                    {"circuit_status", std::string(to_string(r.breaker))},
                    {"carrier_mode", r.carrier_mode},
                    {"requests", r.totals.requests},
                    {"carrier_calls", r.totals.carrier_calls},
                    {"carrier_calls_per_request", rounded(r.calls_per_request(), 100)},
                    {"p99_ms", rounded(r.totals.p99_ms, 10)},
                    {"last_activity_utc", format_iso8601(r.last_active)}});
  nlohmann::ordered_json students = nlohmann::ordered_json::array();
  for (const StudentRow& s : labs.class_students(lab_rows))
    students.push_back({{"place", place(s.place)},
                        {"name", s.name},
                        {"labs", s.labs},
                        {"requests", s.totals.requests},
                        {"carrier_calls", s.totals.carrier_calls},
                        {"carrier_calls_per_request", rounded(s.calls_per_request(), 100)},
                        {"last_activity_utc", format_iso8601(s.last_active)}});
  nlohmann::ordered_json designs = designs_json(labs);
  // A restarted lab's designs come from its state file: the baselines are judged again for them.
  const auto baselines = judge ? judge->baselines(!designs.empty()) : std::nullopt;
  return {{"students", students},
          {"labs", rows},
          {"designs", std::move(designs)},
          {"design_baselines", baselines ? nlohmann::ordered_json{{"legacy", baselines->legacy},
                                                                  {"resilient", baselines->resilient}}
                                         : nlohmann::ordered_json(nullptr)},
          {"designs_order",
           {{"en", "the class challenge's designs (POST /experiments/scorecard), one per lab: highest score first, "
                   "then fewer carrier calls per quote, then the lower p99"},
            {"es", "los diseños del reto de la clase (POST /experiments/scorecard), uno por laboratorio: primero la "
                   "nota más alta, luego menos llamadas al proveedor por cotización, luego el p99 más bajo"}}},
          {"count", rows.size()},
          {"min_requests", kMinRankedRequests},
          {"carrier_modes", carrier_modes(labs)},
          {"max_labs", labs.limits().max_labs},
          {"idle_expiry_minutes", labs.limits().idle_expiry.count()},
          {"order",
           {{"en", "leaderboard, per student (all their labs) and per lab: fewest carrier calls per request "
                   "first, among those with at least min_requests requests (the carrier is shared: every call you "
                   "spare is capacity for the class); the others last, without a place"},
            {"es", "clasificación, por estudiante (todos sus laboratorios) y por laboratorio: primero quien menos "
                   "llamadas hace al proveedor por solicitud, entre quienes tienen al menos min_requests "
                   "solicitudes (el proveedor es compartido: cada llamada que ahorras es capacidad para la "
                   "clase); los demás al final, sin puesto"}}}};
}

}  // namespace

void class_view(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  if (prefers_html(req.get_header_value("Accept")) &&
      serve_file(res, ctx.dashboard.public_dir / "class.html", "text/html; charset=utf-8"))
    return;
  send_json(res, 200, class_json(ctx.labs, ctx.designs));
}


void class_reset(RouteContext& ctx, const httplib::Request& req, const std::string&, httplib::Response& res) {
  const auto names = ctx.labs.reset_students();
  send_json(res, 200, {{"status", "reset"},
                       {"labs", names},
                       {"count", names.size()},
                       {"message", message_text(MessageId::class_reset_done, request_language(req), {})}});
  res.set_header("Vary", "Accept-Language");
}

void class_carrier_mode(RouteContext& ctx, const httplib::Request& req, const std::string& body,
                        httplib::Response& res) {
  const std::string wanted = carrier_mode_asked(req, body);
  const ScenarioCatalog& catalog = ctx.labs.teacher().app.scenarios();
  if (wanted.empty())
    return send_api_error(req, res,
                          api_error(400, "unknown_scenario", MessageId::missing_carrier_mode, {}, catalog.accepted_names()));
  const Scenario* mode = catalog.find(wanted);
  if (mode == nullptr) return send_api_error(req, res, unknown_scenario_error(catalog, wanted));
  const auto names = ctx.labs.set_students_carrier_mode(mode->name);
  send_json(res, 200, {{"mode", mode->name}, {"labs", names}, {"count", names.size()}});
}

}  // namespace quote_lab::handlers
