#include "lab/carrier/carrier_server.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>

#include "lab/base/time_format.hpp"
#include "lab/formats/quote_json.hpp"
#include "lab/http/params.hpp"

namespace quote_lab {
namespace {

const std::string* param(const httplib::Request& req, const char* name) {
  const auto it = req.params.find(name);
  return it == req.params.end() ? nullptr : &it->second;
}

// The carrier's routes as its 404 lists them (the header's table, in one line each).
constexpr std::array<const char*, 6> kCarrierRoutes{
    "GET /quote?customer_id=&items=&scenario=", "GET /mode", "PUT|POST /mode?mode=NAME", "GET /stats",
    "PUT|POST /reset", "GET /health"};

void send_api_error(httplib::Response& res, const ApiError& e) {
  send_error(res, e.status, e.error, e.message, e.allowed);
}

}  // namespace

CarrierServer::CarrierServer(CarrierSimulator& simulator, const Clock& clock)
    : simulator_(simulator), clock_(clock) {
  auto& r = http_.routes();
  r.Get("/quote", [this](const httplib::Request& req, httplib::Response& res) {
    handle_quote(req, res);
  });
  r.Get("/health", [](const httplib::Request&, httplib::Response& res) {
    send_json(res, 200, {{"status", "ok"}, {"service", "carrier"}});
  });
  r.Get("/stats", [this](const httplib::Request&, httplib::Response& res) {
    send_json(res, 200, to_json(simulator_.stats()));
  });
  auto mode_view = [this] {
    return nlohmann::ordered_json{{"mode", simulator_.mode()},
                          {"scenarios", simulator_.catalog().accepted_names()}};
  };
  r.Get("/mode", [mode_view](const httplib::Request&, httplib::Response& res) {
    send_json(res, 200, mode_view());
  });
  auto set_mode = [this, mode_view](const httplib::Request& req, const std::string& raw, httplib::Response& res) {
    std::string wanted = req.get_param_value("mode");
    if (wanted.empty() && !raw.empty()) {
      const auto body = nlohmann::ordered_json::parse(raw, nullptr, false);
      if (body.is_object() && body.contains("mode") && body["mode"].is_string())
        wanted = body["mode"].get<std::string>();
    }
    if (!simulator_.set_mode(wanted)) return send_api_error(res, unknown_scenario_error(simulator_.catalog(), wanted));
    send_json(res, 200, mode_view());
  };
  on_post_or_put(r, "/mode", set_mode);
  on_post_or_put(r, "/reset", [this](const httplib::Request&, const std::string&, httplib::Response& res) {
    simulator_.reset();
    send_json(res, 200, to_json(simulator_.stats()));
  });
  r.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    // Students reach this port by mistake (8081 for 8080): say where they are and where the lab is.
    send_error(res, res.status, res.status == 404 ? "not_found" : "http_error",
               "this is the simulated carrier (the lab's dependency), not the quote lab: it has no route " +
                   req.method.substr(0, 10) + " " + req.path.substr(0, 80) +
                   " (its routes are in 'allowed'). The lab's own routes (/quote-legacy, /quote-resilient, "
                   "/dependency/state, the dashboard) answer on the lab's port, another one: 8080 unless "
                   "`quote-lab serve --port` says otherwise.",
               {kCarrierRoutes.begin(), kCarrierRoutes.end()});
  });
}

CarrierServer::~CarrierServer() { stop(); }

int CarrierServer::start(const std::string& host, int port, int workers) {
  sleep_.rearm();
  return http_.start(host, port, workers);
}

void CarrierServer::stop() {
  sleep_.interrupt();
  http_.stop();
}

void CarrierServer::handle_quote(const httplib::Request& req, httplib::Response& res) {
  int customer_id = 0;
  int items = 0;
  // The same ranges and defaults as the lab's own quote routes (domain.hpp).
  if (auto e = parse_int_param(kCustomerId, param(req, "customer_id"), customer_id)) return send_api_error(res, *e);
  if (auto e = parse_int_param(kItems, param(req, "items"), items)) return send_api_error(res, *e);
  const auto call = simulator_.plan(req.get_param_value("scenario"),
                                    req.get_header_value("Idempotency-Key"));
  if (!call) {
    return send_api_error(res, unknown_scenario_error(simulator_.catalog(), req.get_param_value("scenario")));
  }
  // The caller's deadline, when it sent one (the lab always does).
  const std::string deadline_header = req.get_header_value("X-Deadline-Unix-Ms");
  const std::optional<long long> deadline_ms =
      deadline_header.empty() ? std::nullopt : std::optional<long long>(std::atoll(deadline_header.c_str()));
  auto wall_ms = [this] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(clock_.wall_now().time_since_epoch()).count();
  };
  Millis delay = call->delay;
  if (call->behaviour.kind == AttemptBehaviour::Kind::hang && deadline_ms) {
    // "Hangs until the caller gives up": hold the connection until the caller's deadline
    // (plus a little, so the caller's own timeout fires first), not a fixed time that
    // would keep carrier workers busy long after every caller has left.
    delay = std::clamp(Millis(*deadline_ms - wall_ms() + kHangGraceMs), Millis::zero(), call->delay);
  }
  simulator_.begin_call();
  const SteadyTime started = clock_.now();
  // The simulated work: a real wait on this carrier worker, so a slow or hung carrier
  // really holds a worker (its capacity) while the lab's caller may already have given up.
  const bool completed = sleep_.sleep_for(delay);
  // Work finished after the caller's deadline was wasted: nobody reads this answer.
  const bool wasted = deadline_ms && wall_ms() > *deadline_ms;
  simulator_.end_call(wasted, std::chrono::duration_cast<Millis>(clock_.now() - started));

  res.set_header("X-Scenario", call->scenario->name);
  res.set_header("X-Attempt-Seen", std::to_string(call->attempt));
  if (!completed) return send_error(res, 503, "carrier_stopping", "the carrier is shutting down");
  if (call->behaviour.kind == AttemptBehaviour::Kind::hang)
    return send_error(res, 504, "hung", "the carrier held the connection and never answered");
  if (call->behaviour.status != 200)
    return send_error(res, call->behaviour.status, "carrier_error",
                      "the scenario answers HTTP " + std::to_string(call->behaviour.status));
  auto body = to_json(simulator_.price(customer_id, items, clock_.wall_now()));
  body["scenario"] = call->scenario->name;
  body["attempt"] = call->attempt;
  send_json(res, 200, body);
}

}  // namespace quote_lab
