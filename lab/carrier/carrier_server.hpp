#pragma once
// The simulated carrier as a real HTTP service on its own listener and worker pool, so
// the lab reaches it with real sockets and real timeouts, and a fault-injection proxy or
// a real upstream can stand in its place.
//
// Routes (all JSON):
//   GET  /quote?customer_id=&items=[&scenario=]   traceparent, Idempotency-Key, X-Attempt,
//        X-Deadline-Unix-Ms headers; 200 {"quote_id","amount","currency","priced_at",
//        "scenario","attempt"} after the scenario's latency, or the attempt's fault
//        (scenario.hpp): a status with its body and Retry-After; a "timeout" holds the
//        connection until the caller's deadline (X-Deadline-Unix-Ms) plus kHangGraceMs, or
//        hang_ms without one, then 504; "reset_peer" sends half a quote then an RST;
//        "slicer" trickles the quote; "malformed"/"truncated" send a broken 200 body; a
//        "refused" attempt that arrives anyway (a client without refusing_route) is reset.
//        A priced quote is a booking: a later call with the same Idempotency-Key gets the
//        kept booking back (header Idempotent-Replayed: true) instead of a second one
//        (booking_ledger.hpp). With X-Request-Deadline-Unix-Ms (the flow's total deadline)
//        a call already past it is dropped at once, and one whose deadline passes during
//        its work stops there and books nothing: 504 {"error": "deadline_exceeded"}.
//        A shedding scenario (scenario_shedding.hpp) first takes the call through the calling
//        lab's station (X-Quote-Lab; X-Priority: critical, the default, or sheddable): it is
//        served at once, waits on this worker for its turn, or is shed at once with a 503
//        {"error": "shed", "reason": "queue_full" | "codel" | "priority" | "workers_busy",
//        "message"}; a bad X-Priority is a 400.
//   GET  /mode                 {"mode": "ok", "scenarios": [...]}
//   PUT|POST /mode?mode=NAME   (or body {"mode": "NAME"}) the scenario for requests without one
//   GET  /stats                calls received by scenario, in flight, peak in flight,
//                              wasted calls (finished after the caller's X-Deadline-Unix-Ms),
//                              refused and overloaded calls, bookings, duplicate_bookings,
//                              idempotent_replays, deadline_dropped, shed_calls by reason,
//                              queued (carrier_simulator.hpp)
//   POST /reset                forget attempts and stats, mode back to ok
//   GET  /health

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "lab/base/clock.hpp"
#include "lab/carrier/carrier_simulator.hpp"
#include "lab/carrier/carrier_work.hpp"
#include "lab/carrier/refusing_port.hpp"
#include "lab/carrier/station_signal.hpp"
#include "lab/http/http_server.hpp"
#include "lab/resilience/carrier_call.hpp"

namespace quote_lab {


class CarrierServer {
 public:
  CarrierServer(CarrierSimulator& simulator, const Clock& clock);
  ~CarrierServer();

  /// Starts listening on `host:port` (0 = any free port) with `workers` threads — the
  /// carrier's capacity: calls beyond it wait in the queue (a shedding scenario's stations
  /// hold at most workers − kSpareCarrierWorkers of them). Returns the bound port.
  /// Throws std::runtime_error if it cannot bind.
  int start(const std::string& host, int port, int workers);
  /// Wakes every simulated wait (they answer 503) and stops the listener.
  void stop();

  /// A port on 127.0.0.1 where connections are refused (see refusing_port.hpp); 0 before start().
  int refusing_port() const { return refusing_ ? refusing_->port() : 0; }

 private:
  void handle_quote(const httplib::Request& req, httplib::Response& res);
  /// Takes a shedding scenario's call through its station: true when it is to be served,
  /// false when `res` already holds the answer (shed, or the carrier stopping).
  bool take_turn(const httplib::Request& req, httplib::Response& res, CarrierCall& call, Priority priority);
  void send_fault(const httplib::Request& req, httplib::Response& res, const CarrierCall& call, std::string quote_body);

  CarrierSimulator& simulator_;
  const Clock& clock_;
  InterruptibleSleep sleep_;
  StationSignal turns_;
  std::unique_ptr<RefusingPort> refusing_;
  HttpServer http_;
};

/// Where one attempt should connect instead of the carrier's URL, or nullopt for the
/// carrier itself (HttpCarrierClient asks before connecting).
using CarrierRoute = std::function<std::optional<std::string>(const CarrierRequest&)>;

/// The embedded carrier's route: an attempt whose behaviour is "refused" goes to
/// `server`'s refusing port, so the lab's client meets a real connection refused.
CarrierRoute refusing_route(CarrierSimulator& simulator, const CarrierServer& server);

/// The trace id of a W3C traceparent ("00-<32 hex>-<16 hex>-<2 hex>"), or empty.
std::string trace_id_of(const std::string& traceparent);


}  // namespace quote_lab
