#pragma once
// The simulated carrier as a real HTTP service on its own listener and worker pool, so
// the lab reaches it with real sockets and real timeouts, and a fault-injection proxy or
// a real upstream can stand in its place.
//
// Routes (all JSON):
//   GET  /quote?customer_id=&items=[&scenario=]   Idempotency-Key and X-Attempt headers;
//        200 {"quote_id","amount","currency","priced_at","scenario","attempt"} after the
//        scenario's latency; a "hang" holds the connection until the caller's deadline
//        (X-Deadline-Unix-Ms) plus kHangGraceMs, or hang_ms without one, then 504.
//   GET  /mode                 {"mode": "ok", "scenarios": [...]}
//   PUT|POST /mode?mode=NAME   (or body {"mode": "NAME"}) the scenario for requests without one
//   GET  /stats                calls received by scenario, in flight, peak in flight, and
//                              wasted calls: finished after the caller's X-Deadline-Unix-Ms
//   POST /reset                forget attempts and stats, mode back to ok
//   GET  /health

#include <string>

#include "lab/base/clock.hpp"
#include "lab/carrier/carrier_simulator.hpp"
#include "lab/http/http_server.hpp"

namespace quote_lab {

/// How long a hung call outlives its caller's deadline: enough for the caller's own
/// timeout to fire first, short enough that the carrier recovers right after a storm.
inline constexpr long long kHangGraceMs = 50;

class CarrierServer {
 public:
  CarrierServer(CarrierSimulator& simulator, const Clock& clock);
  ~CarrierServer();

  /// Starts listening on `host:port` (0 = any free port) with `workers` threads — the
  /// carrier's capacity: calls beyond it wait in the queue. Returns the bound port.
  /// Throws std::runtime_error if it cannot bind.
  int start(const std::string& host, int port, int workers);
  /// Wakes every simulated wait (they answer 503) and stops the listener.
  void stop();

 private:
  void handle_quote(const httplib::Request& req, httplib::Response& res);

  CarrierSimulator& simulator_;
  const Clock& clock_;
  InterruptibleSleep sleep_;
  HttpServer http_;
};


}  // namespace quote_lab
