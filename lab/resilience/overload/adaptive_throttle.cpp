#include "lab/resilience/overload/adaptive_throttle.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace quote_lab {

namespace {

AdaptiveThrottleSettings validated(AdaptiveThrottleSettings s) {
  if (!(s.k >= 1.0)) throw std::invalid_argument("adaptive throttle: k must be ≥ 1, got " + std::to_string(s.k));
  if (s.buckets < 1 || s.buckets > 1000)
    throw std::invalid_argument("adaptive throttle: buckets must be 1–1000, got " + std::to_string(s.buckets));
  if (s.window_ms < s.buckets || s.window_ms % s.buckets != 0)
    throw std::invalid_argument("adaptive throttle: window_ms must be a positive multiple of buckets, got " +
                                std::to_string(s.window_ms));
  if (s.protection < 0)
    throw std::invalid_argument("adaptive throttle: protection must be ≥ 0, got " + std::to_string(s.protection));
  return s;
}

}  // namespace

double throttle_drop_probability(std::uint64_t requests, std::uint64_t accepts, double k, int protection) {
  const double r = static_cast<double>(requests);
  const double p = (r - protection - k * static_cast<double>(accepts)) / (r + 1.0);
  return std::max(0.0, p);
}

AdaptiveThrottle::AdaptiveThrottle(const Clock& clock, RandomSource& random, AdaptiveThrottleSettings settings)
    : clock_(clock),
      random_(random),
      settings_(validated(settings)),
      bucket_ms_(settings_.window_ms / settings_.buckets),
      buckets_(static_cast<std::size_t>(settings_.buckets)) {}

std::int64_t AdaptiveThrottle::bucket_index_now() const {
  const auto ms = std::chrono::duration_cast<Millis>(clock_.now().time_since_epoch()).count();
  return ms / bucket_ms_;
}

AdaptiveThrottle::Bucket& AdaptiveThrottle::current_locked(std::int64_t index) {
  Bucket& b = buckets_[static_cast<std::size_t>(index % settings_.buckets)];
  if (b.index != index) b = Bucket{index, 0, 0, 0};  // a whole window old: reused
  return b;
}

AdaptiveThrottleStats AdaptiveThrottle::sum_locked(std::int64_t index) const {
  AdaptiveThrottleStats s;
  for (const Bucket& b : buckets_)
    if (b.index > index - settings_.buckets && b.index <= index) {
      s.requests += b.requests;
      s.accepts += b.accepts;
      s.dropped += b.dropped;
    }
  s.drop_probability = throttle_drop_probability(s.requests, s.accepts, settings_.k, settings_.protection);
  return s;
}

double AdaptiveThrottle::drop_probability() const { return stats().drop_probability; }

AdaptiveThrottleStats AdaptiveThrottle::stats() const {
  const std::int64_t index = bucket_index_now();
  std::lock_guard lock(mutex_);
  return sum_locked(index);
}

bool AdaptiveThrottle::admit() {
  const std::int64_t index = bucket_index_now();
  double p = 0.0;
  {
    std::lock_guard lock(mutex_);
    p = sum_locked(index).drop_probability;
  }
  if (p <= 0.0) return true;
  // The draw happens outside the lock: RandomSource has its own.
  if (random_.uniform() >= p) return true;
  std::lock_guard lock(mutex_);
  Bucket& b = current_locked(index);
  ++b.requests;
  ++b.dropped;
  return false;
}

void AdaptiveThrottle::record(bool accepted) {
  const std::int64_t index = bucket_index_now();
  std::lock_guard lock(mutex_);
  Bucket& b = current_locked(index);
  ++b.requests;
  if (accepted) ++b.accepts;
}

void AdaptiveThrottle::reset() {
  std::lock_guard lock(mutex_);
  std::fill(buckets_.begin(), buckets_.end(), Bucket{});
}

}  // namespace quote_lab
