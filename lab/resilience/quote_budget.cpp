#include "lab/resilience/quote_budget.hpp"

#include <algorithm>
#include <cmath>

#include "lab/resilience/backoff.hpp"
#include "lab/resilience/strategies/strategy_table.hpp"

namespace quote_lab {

Millis worst_case_from(const RetryPolicy& policy, int attempt) {
  const int attempts = std::max(1, policy.max_attempts);
  attempt = std::max(1, attempt);
  if (attempt > attempts) return Millis::zero();
  Millis total{static_cast<long long>(std::max(0, policy.timeout_ms)) * (attempts - attempt + 1)};
  // The strategies' own waits (a place in a bulkhead's queue, adaptive retry's token): each
  // attempt left waits for one listed inside the retry, the flow once, before its first
  // attempt, for one listed outside it.
  const auto& list = policy.pipeline;
  const auto retry = std::find(list.begin(), list.end(), Strategy::retry);
  for (auto it = list.begin(); it != list.end(); ++it) {
    const Millis wait = longest_wait(*it, policy);
    if (retry != list.end() && it > retry) total += wait * (attempts - attempt + 1);
    else if (attempt == 1) total += wait;
  }
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
