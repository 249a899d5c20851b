#include "lab/carrier/carrier_server.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>

#include "lab/base/time_format.hpp"
#include "lab/carrier/peer_reset.hpp"
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

// A header holding Unix milliseconds, or nullopt when absent or not a number.
std::optional<long long> header_ms(const httplib::Request& req, const char* name) {
  const std::string text = req.get_header_value(name);
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoll(text);
}

// The carrier's own refusals, from the lab's one table of messages: a student who reaches
// this port reads them in the language asked for, as the lab's.
ApiError carrier_error(int status, const char* error, MessageId id, const MessageArgs& args = {}) {
  return api_error(status, error, id, args);
}

// How often a call waiting without a time of its own asks again, in case a wake-up it
// needed went to a station it no longer belongs to (a reset, an evicted station).
constexpr Millis kStationRecheck{1000};

// The 503 of a shed call: fast, and saying why in the reader's language.
void send_shed(const httplib::Request& req, httplib::Response& res, const StationTurn& turn) {
  MessageId id = MessageId::carrier_shed_queue_full;
  MessageArgs args;
  switch (turn.reason) {
    case ShedReason::queue_full:
      args = {{"queued", std::to_string(turn.queued)}, {"max", std::to_string(turn.queue_max)}};
      break;
    case ShedReason::codel:
      id = MessageId::carrier_shed_codel;
      args = {{"waited_ms", std::to_string(turn.waited.count())}, {"allowed_ms", std::to_string(turn.allowed_wait.count())}};
      break;
    case ShedReason::priority: id = MessageId::carrier_shed_priority; break;
    case ShedReason::workers_busy:
      id = MessageId::carrier_shed_workers_busy;
      args = {{"held", std::to_string(turn.held)}};
      break;
  }
  const ApiError e = api_error(503, "shed", id, args);
  send_json(res, 503, {{"error", "shed"}, {"reason", to_string(turn.reason)}, {"message", e.message_in(message_language(req))}});
  res.set_header("Vary", "Accept-Language");
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
    if (!simulator_.set_mode(wanted)) return send_error(req, res, unknown_scenario_error(simulator_.catalog(), wanted));
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
    send_error(req, res,
               api_error(res.status, res.status == 404 ? "not_found" : "http_error", MessageId::carrier_route_not_found,
                         {{"method", req.method.substr(0, 10)}, {"path", req.path.substr(0, 80)}},
                         {kCarrierRoutes.begin(), kCarrierRoutes.end()}));
  });
}

CarrierServer::~CarrierServer() { stop(); }

int CarrierServer::start(const std::string& host, int port, int workers) {
  sleep_.rearm();
  turns_.rearm();
  simulator_.set_carrier_workers(workers);
  // The lab's client reaches the refusing port on 127.0.0.1 whatever host the carrier serves.
  if (!refusing_) refusing_ = std::make_unique<RefusingPort>("127.0.0.1");
  return http_.start(host, port, workers);
}

void CarrierServer::stop() {
  sleep_.interrupt();
  turns_.interrupt();
  http_.stop();
}

void CarrierServer::handle_quote(const httplib::Request& req, httplib::Response& res) {
  int customer_id = 0;
  int items = 0;
  // The same ranges and defaults as the lab's own quote routes (domain.hpp).
  if (auto e = parse_int_param(kCustomerId, param(req, "customer_id"), customer_id)) return send_error(req, res, *e);
  if (auto e = parse_int_param(kItems, param(req, "items"), items)) return send_error(req, res, *e);
  const std::string trace_id = trace_id_of(req.get_header_value("traceparent"));
  const std::string key = req.get_header_value("Idempotency-Key");
  const std::string lab = req.get_header_value("X-Quote-Lab").substr(0, 64);  // a lab name is shorter
  const CallerIds ids{trace_id, key, lab};
  auto wall_ms = [this] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(clock_.wall_now().time_since_epoch()).count();
  };
  // The flow's total deadline (the policy's deadline_ms): work nobody waits for is dropped.
  const auto request_deadline_ms = header_ms(req, "X-Request-Deadline-Unix-Ms");
  if (request_deadline_ms && wall_ms() >= *request_deadline_ms) {
    if (!simulator_.catalog().find(req.get_param_value("scenario")) && !req.get_param_value("scenario").empty())
      return send_error(req, res, unknown_scenario_error(simulator_.catalog(), req.get_param_value("scenario")));
    simulator_.count_deadline_drop(ids.lab);
    return send_error(req, res, carrier_error(504, "deadline_exceeded", MessageId::carrier_deadline_on_arrival));
  }
  Priority priority = Priority::critical;  // a caller that names none
  if (const std::string p = req.get_header_value("X-Priority"); !p.empty())
    if (auto e = parse_priority_value(p, priority)) return send_error(req, res, *e);
  auto call = simulator_.plan(req.get_param_value("scenario"), ids, clock_.now());
  if (!call) {
    return send_error(req, res, unknown_scenario_error(simulator_.catalog(), req.get_param_value("scenario")));
  }
  res.set_header("X-Scenario", call->scenario->name);
  if (call->station_lab && !take_turn(req, res, *call, priority)) return;
  // The caller's deadline for this attempt, when it sent one (the lab always does).
  const auto deadline_ms = header_ms(req, "X-Deadline-Unix-Ms");
  using Kind = AttemptBehaviour::Kind;
  const auto [delay, dropped] = plan_work(*call, deadline_ms, request_deadline_ms, wall_ms());
  simulator_.begin_call(*call);
  const SteadyTime started = clock_.now();
  // The simulated work: a real wait on this carrier worker, so a slow or hung carrier
  // really holds a worker (its capacity) while the lab's caller may already have given up.
  const bool completed = sleep_.sleep_for(delay);
  // Work finished after the caller's deadline was wasted: nobody reads this answer.
  const bool wasted = !dropped && deadline_ms && wall_ms() > *deadline_ms;
  const bool quoted = completed && !dropped && books_quote(call->behaviour);
  // A call books, or counts its drop, before it ends: whoever sees the carrier idle (nothing
  // in flight) sees every booking and drop its calls made.
  std::optional<CarrierSimulator::Booking> booking;
  if (quoted) booking = simulator_.book(customer_id, items, ids, clock_.wall_now(), clock_.now());
  if (completed && dropped) simulator_.count_deadline_drop(ids.lab);
  simulator_.end_call(*call, wasted, std::chrono::duration_cast<Millis>(clock_.now() - started), clock_.now());
  if (!call->station.empty()) turns_.notify();  // its place goes to a waiting call

  res.set_header("X-Attempt-Seen", std::to_string(call->attempt));
  if (!completed) return send_error(req, res, carrier_error(503, "carrier_stopping", MessageId::carrier_stopping));
  if (dropped) return send_error(req, res, carrier_error(504, "deadline_exceeded", MessageId::carrier_deadline_during_work));
  if (call->behaviour.kind == Kind::timeout) return send_error(req, res, carrier_error(504, "hung", MessageId::carrier_hung));
  if (!booking) return send_fault(req, res, *call, {});
  auto body = to_json(booking->quote);
  body["scenario"] = call->scenario->name;
  body["attempt"] = call->attempt;
  // Stripe's header for an answer replayed from an earlier call with the same key.
  if (booking->replayed) res.set_header("Idempotent-Replayed", "true");
  if (call->behaviour.kind == Kind::answer) return send_json(res, 200, body);
  send_fault(req, res, *call, body.dump());
}

bool CarrierServer::take_turn(const httplib::Request& req, httplib::Response& res, CarrierCall& call,
                              Priority priority) {
  std::uint64_t seen = turns_.generation();
  StationTurn turn = simulator_.enter_station(call, priority, clock_.now());
  if (turn.kind == StationTurn::Kind::wait) turns_.notify();  // it may have displaced a sheddable call
  // The wait holds this worker thread, as a queued request holds a server's.
  while (turn.kind == StationTurn::Kind::wait) {
    const SteadyTime recheck = clock_.now() + kStationRecheck;
    if (!turns_.wait(seen, std::min(turn.wake_at.value_or(recheck), recheck))) {
      simulator_.leave_station(call, clock_.now());
      send_error(req, res, carrier_error(503, "carrier_stopping", MessageId::carrier_stopping));
      return false;
    }
    seen = turns_.generation();
    turn = simulator_.station_turn(call, clock_.now());
  }
  if (turn.kind == StationTurn::Kind::serve) return true;
  send_shed(req, res, turn);
  return false;
}

void CarrierServer::send_fault(const httplib::Request& req, httplib::Response& res, const CarrierCall& call,
                               std::string quote_body) {
  using Kind = AttemptBehaviour::Kind;
  const AttemptBehaviour& b = call.behaviour;
  switch (b.kind) {
    case Kind::answer:  // a status other than 200
      if (!b.retry_after.empty()) res.set_header("Retry-After", b.retry_after);
      if (b.body) {
        const bool json = nlohmann::ordered_json::accept(*b.body);
        res.status = b.status;
        res.set_content(*b.body, json ? "application/json" : "text/plain; charset=utf-8");
        return;
      }
      return send_error(req, res,
                        carrier_error(b.status, "carrier_error", MessageId::carrier_scenario_status,
                                      {{"status", std::to_string(b.status)}}));
    case Kind::malformed:
      // What a misconfigured proxy sends: an HTML page labelled as a 200 JSON answer.
      res.status = 200;
      res.set_content("<html><body><h1>502 Bad Gateway</h1></body></html>", "application/json");
      return;
    case Kind::truncated:
      res.status = 200;
      res.set_content(quote_body.substr(0, quote_body.size() / 2), "application/json");
      return;
    case Kind::slicer: {
      auto shared = std::make_shared<std::string>(std::move(quote_body));
      const auto slice = static_cast<std::size_t>(b.slice_bytes);
      const Millis pause(b.slice_delay_ms);
      res.status = 200;
      res.set_content_provider(shared->size(), "application/json",
                               [this, shared, slice, pause](std::size_t offset, std::size_t, httplib::DataSink& sink) {
                                 if (!sleep_.sleep_for(pause)) return false;
                                 const std::size_t n = std::min(slice, shared->size() - offset);
                                 return sink.write(shared->data() + offset, n);
                               });
      return;
    }
    case Kind::timeout:  // handled by handle_quote; here for a complete switch
      return send_error(req, res, carrier_error(504, "hung", MessageId::carrier_hung));
    case Kind::reset_peer:
    case Kind::refused: {  // a refused attempt that reached us after all: the nearest thing is a reset
      // Headers and half a quote, then an RST: the caller's read fails mid-answer.
      auto shared = std::make_shared<std::string>(std::move(quote_body));
      const int local_port = req.local_port;
      const std::string remote_addr = req.remote_addr;
      const int remote_port = req.remote_port;
      res.status = 200;
      res.set_content_provider(shared->size(), "application/json",
                               [shared, local_port, remote_addr, remote_port](std::size_t offset, std::size_t,
                                                                               httplib::DataSink& sink) {
                                 if (offset == 0) return sink.write(shared->data(), shared->size() / 2);
                                 reset_connection(local_port, remote_addr, remote_port);
                                 return false;  // the connection is already reset; httplib just closes it
                               });
      return;
    }
  }
}

CarrierRoute refusing_route(CarrierSimulator& simulator, const CarrierServer& server) {
  return [&simulator, &server](const CarrierRequest& r) -> std::optional<std::string> {
    if (!simulator.take_refusal(r.scenario, CallerIds{r.trace_id, r.idempotency_key})) return std::nullopt;
    return "http://127.0.0.1:" + std::to_string(server.refusing_port());
  };
}

std::string trace_id_of(const std::string& traceparent) {
  // "00-" + 32 hex + "-" + 16 hex + "-" + 2 hex (W3C Trace Context).
  if (traceparent.size() < 55 || traceparent[2] != '-' || traceparent[35] != '-') return {};
  const std::string id = traceparent.substr(3, 32);
  if (id.find_first_not_of("0123456789abcdef") != std::string::npos) return {};
  return id;
}

}  // namespace quote_lab
