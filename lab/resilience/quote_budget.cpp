#include "lab/resilience/quote_budget.hpp"

#include <algorithm>
#include <cmath>

#include "lab/resilience/backoff.hpp"

namespace quote_lab {

Millis worst_case_from(const RetryPolicy& policy, int attempt) {
  const int attempts = std::max(1, policy.max_attempts);
  attempt = std::max(1, attempt);
  if (attempt > attempts) return Millis::zero();
  Millis total{static_cast<long long>(std::max(0, policy.timeout_ms)) * (attempts - attempt + 1)};
  // The overload strategies' own waits: a place in the bulkhead's queue before the first
  // attempt, and adaptive retry's token before each.
  if (policy.uses(Strategy::bulkhead) && attempt == 1) total += Millis(policy.overload.bulkhead.queue_timeout_ms);
  if (policy.uses(Strategy::adaptive_retry))
    total += Millis(static_cast<long long>(policy.overload.adaptive_retry.max_wait_ms) * (attempts - attempt + 1));
  // The top of the draw is the longest wait for every strategy (decorrelated grows from
  // the previous wait, so the chain of longest waits is its longest too).
  const double top = std::nextafter(1.0, 0.0);
  Millis previous{0};
  for (int failed = 1; failed < attempts; ++failed) {
    previous = backoff_delay(policy, failed, top, previous);
    if (failed >= attempt) total += previous;
  }
  return total;
}

Millis worst_case_duration(const RetryPolicy& policy) {
  const Millis whole = worst_case_from(policy, 1);
  return policy.deadline_ms > 0 ? std::min(whole, Millis(policy.deadline_ms)) : whole;
}

}  // namespace quote_lab
