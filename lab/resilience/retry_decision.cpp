#include "lab/resilience/retry_decision.hpp"

#include <algorithm>

#include "lab/resilience/backoff.hpp"

namespace quote_lab {

bool retries_on(unsigned retry_on, CallError e) {
  switch (e) {
    case CallError::none: return false;
    case CallError::timeout: return retry_on & kRetryOnTimeout;
    case CallError::connect_error: return retry_on & kRetryOnConnectError;
    case CallError::http_5xx: return retry_on & kRetryOn5xx;
    case CallError::http_429: return retry_on & kRetryOn429;
    case CallError::http_4xx: return retry_on & kRetryOn4xx;
    case CallError::bad_response: return retry_on & kRetryOnBadResponse;
  }
  return false;
}

RetryDecision next_step(const RetryPolicy& policy, const AttemptFacts& facts, double u,
                        Millis previous_wait) {
  const int n = facts.attempt;
  if (facts.refused)
    return Stop{n == 1 ? Step::short_circuit : Step::retry_skipped, facts.refused, n};
  if (facts.error == CallError::none) return Stop{};
  if (n >= policy.max_attempts) return Stop{};
  // Only the failures the policy lists are retried (retry_on; ADR-0005's set by default).
  // A 4xx is our request's fault, and an answer we cannot read (a malformed body, a 204, a
  // redirect) would come back the same: neither is in the default set (gRPC retries only
  // the status codes a policy lists as retryable). The breaker still counts a bad answer.
  if (!retries_on(policy.retry_on, facts.error)) return Stop{Step::retry_skipped, Reason::not_retryable, n + 1};
  // Our own failure opened the breaker: the next attempt would only be refused.
  if (facts.breaker_after == BreakerState::open) return Stop{Step::retry_skipped, Reason::circuit_open, n + 1};
  // Once the lab is stopping, a retry would only delay the stop (and could open the breaker).
  if (facts.shutting_down) return Stop{Step::retry_skipped, Reason::shutting_down, n + 1};
  Retry retry{backoff_delay(policy, n, u, previous_wait), Step::backoff};
  // The carrier's Retry-After lengthens the wait, never beyond the backoff cap (legacy's cap
  // is 0: it ignores Retry-After) nor beyond the room the flow's envelope leaves: a worker is
  // held at most max(kMaxQuoteMs, the policy's worst case).
  if (facts.retry_after && *facts.retry_after > retry.delay) {
    const Millis asked = std::min({*facts.retry_after, Millis(policy.backoff_max_ms), facts.retry_after_room});
    if (asked > retry.delay) retry = Retry{asked, Step::retry_after};
  }
  // No wait and no attempt start past the deadline: a wait that uses up what is left would
  // leave the next attempt no time at all.
  if (facts.time_left && retry.delay >= *facts.time_left) return Stop{Step::retry_skipped, Reason::deadline, n + 1};
  return retry;
}

std::optional<Stop> before_attempt(int attempt, std::optional<Millis> time_left, bool shutting_down) {
  if (shutting_down) return Stop{Step::retry_skipped, Reason::shutting_down, attempt};
  if (time_left && *time_left <= Millis::zero()) return Stop{Step::retry_skipped, Reason::deadline, attempt};
  return std::nullopt;
}

}  // namespace quote_lab
