#include "lab/resilience/retry_budget.hpp"

namespace quote_lab {

long long RetryBudget::second_now() const {
  return std::chrono::duration_cast<std::chrono::seconds>(clock_.now().time_since_epoch()).count();
}

RetryBudget::Bucket& RetryBudget::current(long long second) {
  Bucket& b = buckets_[static_cast<std::size_t>(second % kWindowS)];
  if (b.second != second) b = Bucket{second, 0, 0};  // ten seconds old: reused
  return b;
}

RetryBudget::Counts RetryBudget::sum(long long second) const {
  Counts c;
  for (const Bucket& b : buckets_)
    if (b.second > second - kWindowS && b.second <= second) {
      c.requests += b.requests;
      c.retries += b.retries;
    }
  return c;
}

void RetryBudget::deposit() {
  const long long s = second_now();
  std::lock_guard lock(mutex_);
  ++current(s).requests;
}

bool RetryBudget::try_withdraw(double ratio, int min_per_s) {
  const long long s = second_now();
  std::lock_guard lock(mutex_);
  const Counts c = sum(s);
  // A small epsilon so that 0.1 × 10 requests allows exactly one retry.
  const double allowed = ratio * static_cast<double>(c.requests) + static_cast<double>(min_per_s) * kWindowS;
  if (static_cast<double>(c.retries) + 1 > allowed + 1e-9) return false;
  ++current(s).retries;
  return true;
}

RetryBudget::Counts RetryBudget::window() const {
  const long long s = second_now();
  std::lock_guard lock(mutex_);
  return sum(s);
}

void RetryBudget::reset() {
  std::lock_guard lock(mutex_);
  buckets_.fill(Bucket{});
}

}  // namespace quote_lab
