#pragma once
// One retrying layer in front of a lab, for `quote-lab storm --layers N`: a
// real HTTP server on 127.0.0.1 (port 0: the kernel's choice) that passes every GET on to
// its next hop — the lab, or the next relay — and retries it the way the legacy policy
// does: a fixed number of attempts, no backoff, on a timeout, a connection error or any
// 5xx. It answers with the next hop's last answer (or 504 JSON when none came), so the
// storm's clients see the lab's own bodies. Stacking relays shows that retries multiply:
// N layers of 4 attempts send 4^N calls to a carrier that always fails.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "lab/http/http_server.hpp"

namespace quote_lab {

/// Relays at most this deep: with the legacy defaults one request at 5 layers already
/// makes 4^5 = 1024 carrier calls and lasts 4^4 × 1.44 s ≈ 6 min (longer than a storm may
/// run, 600 s), and every layer adds 4× of both.
inline constexpr int kStormMaxLayers = 5;

/// How long a relay at each layer waits for one attempt, in ms: layer 2 (the relay just
/// in front of the lab) first. An attempt must outlast the whole flow of the hop behind it
/// — else the relay retries while that flow still runs and the counts lie — so
/// attempt(k) = worst(k−1) × 1.25 + 500 ms (room for a loaded machine and the sanitizer
/// builds), with worst(1) = `lab_worst_ms` (the lab's flow, quote_budget.hpp) and
/// worst(k) = attempts × attempt(k). `layers` counts the lab: the result has layers − 1 values.
std::vector<std::chrono::milliseconds> relay_attempt_timeouts(std::chrono::milliseconds lab_worst_ms, int layers,
                                                              int attempts);

/// A retrying relay. Counters are atomics: the storm reads them while requests run.
class RetryRelay {
 public:
  /// Starts serving at once with `workers` threads (one per concurrent request: each waits
  /// on its next hop). `next_hop` is an http://host:port URL; every request's path and
  /// query are passed on unchanged. Throws std::runtime_error if it cannot bind.
  RetryRelay(std::string next_hop, int attempts, std::chrono::milliseconds attempt_timeout, int workers);
  ~RetryRelay();
  RetryRelay(const RetryRelay&) = delete;
  RetryRelay& operator=(const RetryRelay&) = delete;

  /// http://127.0.0.1:PORT
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  /// Requests this relay received so far.
  std::uint64_t requests() const { return requests_.load(); }
  /// Attempts it sent to its next hop so far (retries included).
  std::uint64_t calls_out() const { return calls_out_.load(); }

 private:
  std::string next_hop_;
  int attempts_;
  std::chrono::milliseconds attempt_timeout_;
  std::atomic<std::uint64_t> requests_{0};
  std::atomic<std::uint64_t> calls_out_{0};
  HttpServer server_;
  int port_ = 0;
};

}  // namespace quote_lab
