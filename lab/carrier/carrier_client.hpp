#pragma once
// Calling the carrier over real HTTP: the adapter behind the CarrierCaller port
// (carrier_call.hpp), with a real connect/read timeout and a total deadline; the outcome
// is a value, never an exception.

#include <string>

#include "lab/base/clock.hpp"
#include "lab/carrier/deadline_watchdog.hpp"
#include "lab/resilience/carrier_call.hpp"

namespace quote_lab {

/// The largest carrier answer the lab reads; beyond it the answer is a bad_response.
inline constexpr std::size_t kMaxCarrierBodyBytes = 64 * 1024;

/// The real caller: GET {base_url}/quote with the headers Idempotency-Key (the request id),
/// X-Attempt, X-Deadline-Unix-Ms (when this attempt gives up) and traceparent, over a fresh connection per attempt, so a hung
/// connection is never reused. TCP_NODELAY is on (Nagle adds ~44 ms, see docs/stack-notes.md).
/// A timeout is told from a reset by the deadline: cpp-httplib reports both as a read error.
class HttpCarrierClient final : public CarrierCaller {
 public:
  /// `base_url` like "http://127.0.0.1:8081". Thread-safe: each call uses its own Client.
  HttpCarrierClient(std::string base_url, const Clock& clock);
  CallOutcome call(const CarrierRequest& request) override;
  const std::string& base_url() const { return base_url_; }

 private:
  std::string base_url_;
  const Clock& clock_;
  DeadlineWatchdog watchdog_;
};

}  // namespace quote_lab
