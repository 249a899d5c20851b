#include "lab/resilience/overload/cubic_rate_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace quote_lab {

CubicRateLimiter::CubicRateLimiter(Clock& clock)
    : clock_(clock), cubic_(0.0, clock.now()), meter_(clock.now()), bucket_(kStartingFillRatePerS, clock.now()) {}

std::optional<double> CubicRateLimiter::reserve(double max_wait_ms) {
  const SteadyTime now = clock_.now();
  std::lock_guard lock(mutex_);
  if (!enabled_) return 0.0;
  std::optional<double> wait_ms = bucket_.reserve(max_wait_ms, now);
  if (!wait_ms) ++rejected_;
  return wait_ms;
}

std::optional<Millis> CubicRateLimiter::acquire(double max_wait_ms, std::stop_token stop) {
  const std::optional<double> wait_ms = reserve(max_wait_ms);
  if (!wait_ms) return std::nullopt;
  if (*wait_ms <= 0.0) return Millis::zero();
  // Up to whole ms, less a nanosecond so that a float's last bit ((1 - 0.5205) / 0.5 s is
  // 959.0000000000001 ms) adds no millisecond to the wait a student reads.
  const Millis wait(static_cast<Millis::rep>(std::ceil(*wait_ms - kRoundingSlackMs)));
  if (!clock_.sleep_unless_stopped(wait, stop)) return std::nullopt;
  return wait;
}

void CubicRateLimiter::on_response(bool throttled) {
  const SteadyTime now = clock_.now();
  std::lock_guard lock(mutex_);
  const double measured = meter_.record(now);
  double rate = 0.0;
  if (throttled) {
    const double sent_at = enabled_ ? std::min(measured, bucket_.fill_rate_per_s()) : measured;
    rate = cubic_.rate_after_throttle_per_s(sent_at, now);
    enabled_ = true;
    ++throttles_;
  } else {
    rate = cubic_.rate_after_success_per_s(now);
  }
  bucket_.set_fill_rate(std::min(rate, kMaxRateAdjustScale * measured), now);
}

void CubicRateLimiter::reset() {
  const SteadyTime now = clock_.now();
  std::lock_guard lock(mutex_);
  cubic_ = CubicCalculator(0.0, now);
  meter_ = SendRateMeter(now);
  bucket_ = RateTokenBucket(kStartingFillRatePerS, now);
  enabled_ = false;
  throttles_ = 0;
  rejected_ = 0;
}

CubicRateLimiterStats CubicRateLimiter::stats() const {
  std::lock_guard lock(mutex_);
  return {enabled_, bucket_.fill_rate_per_s(), meter_.measured_rate_per_s(), cubic_.w_max_per_s(), cubic_.k_s(),
          throttles_, rejected_};
}

}  // namespace quote_lab
