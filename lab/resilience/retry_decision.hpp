#pragma once
// "Do we try again, and after how long?" — the heart of the lesson, as one pure function.
//
// After every attempt slot the executor asks `decide_retry` and does what it says:
//
//   the breaker refused the slot        → stop: short_circuit (first slot) or retry_skipped,
//                                         with the breaker's reason (circuit_open | probe_in_flight)
//   the call brought a quote            → stop: answered
//   that was the last attempt allowed   → stop: attempts exhausted
//   the policy's retry_on does not list → stop: retry_skipped, not_retryable (by default, as
//   the failure                           ADR-0005: a 4xx, the same request fails the same way;
//                                         a malformed answer would come back malformed)
//   the failure left the breaker open   → stop: retry_skipped, circuit_open
//   the lab is shutting down            → stop: retry_skipped, shutting_down
//   otherwise (timeout, connect error,  → retry after backoff_delay(policy, attempt, u, previous)
//   5xx, 429)
//
// Modelled on gRPC's retry decision (`std::optional<Duration> ShouldRetry(...)`: empty means
// stop) with the reason kept, and on gobreaker's admission (the breaker says why it refused).
// The random draw and the previous wait are arguments, so a test gives them and asserts the
// exact delay. Standard library and the core's own headers only.

#include <optional>
#include <variant>

#include "lab/base/clock.hpp"
#include "lab/resilience/carrier_call.hpp"
#include "lab/resilience/circuit_breaker.hpp"
#include "lab/resilience/policy.hpp"
#include "lab/resilience/vocabulary.hpp"

namespace quote_lab {

/// What happened in one attempt slot, as the decision sees it.
struct AttemptFacts {
  int attempt = 1;                    ///< 1-based slot number (a refused slot counts)
  std::optional<Reason> refused;      ///< the breaker's refusal (circuit_open | probe_in_flight):
                                      ///< no call was made; empty when admitted or unguarded
  CallError error = CallError::none;  ///< how the call went, when one was made
  BreakerState breaker_after = BreakerState::closed;  ///< the breaker after recording the call
                                                      ///< (closed when the policy has none)
  bool shutting_down = false;         ///< the lab is stopping: no further attempt is made
};

/// Stop the flow. When `skipped` is set the flow records that step — short_circuit or
/// retry_skipped — for attempt `attempt` with `reason`; otherwise the flow just ends (it was
/// answered, or no attempt is left).
struct Stop {
  std::optional<Step> skipped;
  std::optional<Reason> reason;
  int attempt = 0;
  bool operator==(const Stop&) const = default;
};

/// Make the next attempt after waiting `delay` (0 = at once).
struct RetryAfter {
  Millis delay{0};
  bool operator==(const RetryAfter&) const = default;
};

using RetryDecision = std::variant<Stop, RetryAfter>;

/// Whether a policy whose `retry_on` bits (policy.hpp, RetryOn) are `retry_on` retries a
/// failure `e` (never `none`).
bool retries_on(unsigned retry_on, CallError e);

/// The decision after attempt slot `facts.attempt` under `policy`. `u` is a uniform draw in
/// [0, 1) for the jitter and `previous_wait` the last wait of this flow (0 before the
/// first); both are used only for a retry. Never throws; the delay is never negative and
/// never above policy.backoff_max_ms (see backoff.hpp).
RetryDecision decide_retry(const RetryPolicy& policy, const AttemptFacts& facts, double u,
                           Millis previous_wait = Millis::zero());

}  // namespace quote_lab
