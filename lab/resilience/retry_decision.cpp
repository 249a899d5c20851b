#include "lab/resilience/retry_decision.hpp"

#include "lab/resilience/backoff.hpp"

namespace quote_lab {

RetryDecision decide_retry(const RetryPolicy& policy, const AttemptFacts& facts, double u,
                           Millis previous_wait) {
  const int n = facts.attempt;
  if (facts.refused)
    return Stop{n == 1 ? Step::short_circuit : Step::retry_skipped, facts.refused, n};
  if (facts.error == CallError::none) return Stop{};
  if (n >= policy.max_attempts) return Stop{};
  // A 4xx is our request's fault, and an answer we cannot read (a malformed body, a 204, a
  // redirect) would come back the same: neither is retried (gRPC retries only the status
  // codes a policy lists as retryable). The breaker still counts a bad answer as a failure.
  if (!CallOutcome::is_carrier_failure(facts.error) || facts.error == CallError::bad_response)
    return Stop{Step::retry_skipped, Reason::not_retryable, n + 1};
  // Our own failure opened the breaker: the next attempt would only be refused.
  if (facts.breaker_after == BreakerState::open) return Stop{Step::retry_skipped, Reason::circuit_open, n + 1};
  // Once the lab is stopping, a retry would only delay the stop (and could open the breaker).
  if (facts.shutting_down) return Stop{Step::retry_skipped, Reason::shutting_down, n + 1};
  return RetryAfter{backoff_delay(policy, n, u, previous_wait)};
}

}  // namespace quote_lab
