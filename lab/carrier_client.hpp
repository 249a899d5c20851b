#pragma once
// Calling the carrier: one attempt of one quote request over real HTTP, with a real
// connect/read timeout and a total deadline, returned as a value (never an exception).

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "lab/clock.hpp"
#include "lab/deadline_watchdog.hpp"
#include "lab/quote.hpp"

namespace quote_lab {

/// The largest carrier answer the lab reads; beyond it the answer is a bad_response.
inline constexpr std::size_t kMaxCarrierBodyBytes = 64 * 1024;

/// Why an attempt did not produce a quote. Names match `events[].reason` (http_4xx is
/// shown as "bad_response", SPEC's name for an answer the lab cannot use).
enum class CallError { none, timeout, connect_error, http_5xx, http_429, http_4xx, bad_response };

/// "timeout", "connect_error", "http_5xx", "http_429", "bad_response" ("success" for none).
std::string_view to_string(CallError e);

/// One attempt, as sent to the carrier.
struct CarrierRequest {
  std::string request_id;  ///< sent as Idempotency-Key, the same on every retry
  std::string trace_id;    ///< sent in a W3C traceparent header
  std::string scenario;    ///< canonical name; empty lets the carrier use its mode
  int customer_id = 42;
  int items = 3;
  int attempt = 1;         ///< sent as X-Attempt
  Millis timeout{220};     ///< total budget of this attempt
};

/// How one attempt went.
struct CallOutcome {
  CallError error = CallError::none;
  int http_status = 0;        ///< 0 when no answer arrived
  double elapsed_ms = 0;      ///< measured by the caller's clock
  std::optional<Quote> quote; ///< set on success

  bool ok() const { return error == CallError::none; }
  /// A failure of the carrier (SPEC: timeout, connection error, 5xx, 429, or an unusable
  /// answer): counted by the breaker and worth a retry. A 4xx other than 429 is not.
  bool carrier_failure() const { return error != CallError::none && error != CallError::http_4xx; }
};

/// Anything that can make one carrier call; the executor's tests script one.
class CarrierCaller {
 public:
  virtual ~CarrierCaller() = default;
  virtual CallOutcome call(const CarrierRequest& request) = 0;
};

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
