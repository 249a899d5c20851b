#pragma once
// "Do we try again, and after how long?" — the heart of the lesson, as pure functions.
//
// After every attempt slot the executor asks `next_step` and does what it says:
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
//   the wait would reach the deadline   → stop: retry_skipped, deadline (no attempt would be
//                                         left any time)
//   otherwise (timeout, connect error,  → wait, then retry. The wait is backoff_delay(policy,
//   5xx, 429)                             attempt, u, previous); the carrier's Retry-After
//                                         lengthens it (step `retry_after` instead of
//                                         `backoff`), never past backoff_max_ms (legacy's 0:
//                                         it ignores Retry-After) nor past the flow's room
//
// and after the wait, before the next attempt, `before_attempt`: a stop that arrived during
// the wait, or a deadline the real sleep overshot, skips it.
//
// The executor's one side-effecting gate, the retry budget, is asked after `next_step`
// says wait: Envoy's split between "would this retry be made" (here) and "may it be spent"
// (the budget, retry_budget.hpp), so that a retry the deadline refuses spends nothing.
//
// Modelled on gRPC's retry decision (`std::optional<Duration> ShouldRetry(...)`: empty means
// stop) with the reason kept, and on gobreaker's admission (the breaker says why it refused).
// The random draw, the previous wait and the time left are arguments, so a test gives them
// and asserts the exact decision. Standard library and the core's own headers only.

#include <optional>
#include <variant>

#include "lab/base/clock.hpp"
#include "lab/resilience/breaker.hpp"
#include "lab/resilience/carrier_call.hpp"
#include "lab/resilience/policy.hpp"
#include "lab/resilience/vocabulary.hpp"

namespace quote_lab {

/// What happened in one attempt slot, and the facts around it, as the decision sees them.
struct AttemptFacts {
  int attempt = 1;                    ///< 1-based slot number (a refused slot counts)
  std::optional<Reason> refused{};    ///< the breaker's refusal (circuit_open | probe_in_flight):
                                      ///< no call was made; empty when admitted or unguarded
  CallError error = CallError::none;  ///< how the call went, when one was made
  BreakerState breaker_after = BreakerState::closed;  ///< the breaker after recording the call
                                                      ///< (closed when the policy has none)
  bool shutting_down = false;         ///< the lab is stopping: no further attempt is made
  std::optional<Millis> time_left{};  ///< to the flow's deadline now; empty without deadline_ms
  std::optional<Millis> retry_after{};  ///< the carrier's Retry-After on this attempt, if any
  /// How long a wait may be and still leave the rest of the flow within its envelope
  /// (max(kMaxQuoteMs, worst_case_duration), quote_budget.hpp): bounds Retry-After only.
  Millis retry_after_room = Millis::max();
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

/// Wait `delay` (0 = at once), then make the next attempt. `wait_step` is how the wait shows
/// in the trace: `backoff`, or `retry_after` when the carrier's Retry-After made it longer.
struct Retry {
  Millis delay{0};
  Step wait_step = Step::backoff;
  bool operator==(const Retry&) const = default;
};

using RetryDecision = std::variant<Stop, Retry>;

/// Whether a policy whose `retry_on` bits (policy.hpp, RetryOn) are `retry_on` retries a
/// failure `e` (never `none`).
bool retries_on(unsigned retry_on, CallError e);

/// The decision after attempt slot `facts.attempt` under `policy` (the table above, in its
/// order). `u` is a uniform draw in [0, 1) for the jitter and `previous_wait` the last wait
/// of this flow (0 before the first); both are used only for a retry. Never throws; the
/// delay is never negative and never above policy.backoff_max_ms (see backoff.hpp).
RetryDecision next_step(const RetryPolicy& policy, const AttemptFacts& facts, double u,
                        Millis previous_wait = Millis::zero());

/// Whether attempt `attempt` (> 1, after its wait) may start: not once the lab is stopping
/// (retry_skipped, shutting_down) nor when `time_left` to the deadline is gone (a real sleep
/// may overshoot: retry_skipped, deadline). Empty: make the attempt.
std::optional<Stop> before_attempt(int attempt, std::optional<Millis> time_left, bool shutting_down);

}  // namespace quote_lab
