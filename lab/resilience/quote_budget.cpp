#include "lab/resilience/quote_budget.hpp"

#include <algorithm>
#include <cmath>

#include "lab/resilience/backoff.hpp"

namespace quote_lab {

Millis worst_case_duration(const RetryPolicy& policy) {
  const int attempts = std::max(1, policy.max_attempts);
  Millis total{static_cast<long long>(std::max(0, policy.timeout_ms)) * attempts};
  // The top of the draw is the longest wait for every strategy (decorrelated grows from
  // the previous wait, so the chain of longest waits is its longest too).
  const double top = std::nextafter(1.0, 0.0);
  Millis previous{0};
  for (int failed = 1; failed < attempts; ++failed) {
    previous = backoff_delay(policy, failed, top, previous);
    total += previous;
  }
  return total;
}

}  // namespace quote_lab
