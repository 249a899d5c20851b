#pragma once
// One call to the carrier as the resilience core sees it: what is sent (CarrierRequest),
// how it went (CallOutcome, an error as a value) and the port that makes the call
// (CarrierCaller). The HTTP adapter is in carrier_client.hpp; tests script their own.
// No HTTP and no threads here.

#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include "lab/base/clock.hpp"
#include "lab/resilience/domain.hpp"
#include "lab/resilience/quote.hpp"
#include "lab/resilience/vocabulary.hpp"

namespace quote_lab {

/// Why an attempt did not produce a quote.
enum class CallError { none, timeout, connect_error, http_5xx, http_429, http_4xx, bad_response };

/// The reason an `attempt_failed` step shows for `e` (not meaningful for none). SPEC's
/// reasons have no http_4xx: for the caller it is an answer it cannot use, bad_response.
Reason failure_reason(CallError e);

/// "success" for none, else the name of failure_reason(e): the breaker's last_outcome.
std::string_view to_string(CallError e);

/// How a caller reads an HTTP answer's status: none for 200, http_429, http_5xx for 500 and
/// up, http_4xx for another 4xx, bad_response for anything else (a 1xx or 3xx is no quote).
CallError call_error_for_status(int http_status);

/// One attempt, as sent to the carrier.
struct CarrierRequest {
  std::string request_id;  ///< the flow's id (the span id of traceparent), the same on every retry
  std::string trace_id;    ///< sent in a W3C traceparent header
  std::string scenario;    ///< canonical name; empty lets the carrier use its mode
  int customer_id = kCustomerId.fallback;
  int items = kItems.fallback;
  int attempt = 1;         ///< sent as X-Attempt
  Millis timeout{220};     ///< total budget of this attempt
  /// Sent as Idempotency-Key when not empty. The policy's `idempotency_key` chooses it:
  /// per_flow = request_id (the same on every retry: the carrier replays a booking instead
  /// of making a second), per_attempt = request_id + "-" + attempt, none = empty.
  std::string idempotency_key;
  /// The flow's total deadline (policy `deadline_ms`), sent as X-Request-Deadline-Unix-Ms so
  /// the carrier drops work nobody waits for any more; nullopt: no total deadline, not sent.
  std::optional<WallTime> deadline;
  /// The calling lab, sent as X-Quote-Lab when not empty (a student lab; the teacher's is
  /// empty): the carrier plays a metastable episode per lab (metastable_episode.hpp).
  std::string lab;
  /// The quote's priority, sent as X-Priority on every attempt: a carrier that sheds load
  /// sheds sheddable calls first.
  Priority priority = Priority::critical;
  /// Stopped when the quote's client has gone: the call is cut at once, its outcome unused.
  std::stop_token cancel{};
};

/// How one attempt went.
struct CallOutcome {
  CallError error = CallError::none;
  int http_status = 0;        ///< 0 when no answer arrived
  double elapsed_ms = 0;      ///< measured by the caller's clock
  std::optional<Quote> quote; ///< set on success
  /// The carrier's Retry-After (a 429 or 503), in seconds or an HTTP date, as a wait from
  /// the moment the answer arrived; nullopt when absent or unreadable.
  std::optional<Millis> retry_after;

  bool ok() const { return error == CallError::none; }
  /// A failure of the carrier (SPEC: timeout, connection error, 5xx, 429, or an unusable
  /// answer), as the breaker counts it; a 4xx other than 429 is not. Retries follow retry_on.
  bool carrier_failure() const { return is_carrier_failure(error); }
  static bool is_carrier_failure(CallError e) { return e != CallError::none && e != CallError::http_4xx; }
};

/// Anything that can make one carrier call; the executor's tests script one.
class CarrierCaller {
 public:
  virtual ~CarrierCaller() = default;
  virtual CallOutcome call(const CarrierRequest& request) = 0;
};

}  // namespace quote_lab
