#include "lab/resilience/retry_decision.hpp"

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

RetryDecision decide_retry(const RetryPolicy& policy, const AttemptFacts& facts, double u,
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
  return RetryAfter{backoff_delay(policy, n, u, previous_wait)};
}

}  // namespace quote_lab
