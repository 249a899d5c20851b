#include "lab/resilience/overload/rate_token_bucket.hpp"

#include <algorithm>
#include <chrono>

namespace quote_lab {

RateTokenBucket::RateTokenBucket(double fill_rate_per_s, SteadyTime now) : last_refill_(now) {
  set_fill_rate(fill_rate_per_s, now);
}

void RateTokenBucket::refill(SteadyTime now) {
  const double dt_s = std::chrono::duration<double>(now - last_refill_).count();
  if (dt_s > 0) tokens_ = std::min(capacity_, tokens_ + dt_s * fill_rate_per_s_);
  last_refill_ = std::max(last_refill_, now);
}

void RateTokenBucket::set_fill_rate(double rate_per_s, SteadyTime now) {
  refill(now);
  fill_rate_per_s_ = std::max(rate_per_s, kMinFillRatePerS);
  capacity_ = std::max(rate_per_s, 1.0);
  tokens_ = std::min(tokens_, capacity_);
}

std::optional<double> RateTokenBucket::reserve(double max_wait_ms, SteadyTime now) {
  refill(now);
  const double wait_ms = tokens_ >= 1.0 ? 0.0 : (1.0 - tokens_) / fill_rate_per_s_ * 1000.0;
  if (wait_ms > max_wait_ms) return std::nullopt;
  tokens_ -= 1.0;
  return wait_ms;
}

double RateTokenBucket::tokens(SteadyTime now) {
  refill(now);
  return tokens_;
}

}  // namespace quote_lab
