#include "lab/resilience/backoff.hpp"

#include <algorithm>
#include <cmath>

namespace quote_lab {
namespace {

// A uniform integer in [lo, hi] from u in [0, 1): both ends reachable, like randint.
double uniform_between(double lo, double hi, double u) {
  if (hi <= lo) return lo;
  return std::min(hi, lo + std::floor(u * (hi - lo + 1)));
}

}  // namespace

Millis backoff_delay(const RetryPolicy& policy, int failed_attempt, double u, Millis previous) {
  const double cap = std::max(0, policy.backoff_max_ms);
  const double base = std::max(0, policy.backoff_base_ms);
  u = std::clamp(u, 0.0, std::nextafter(1.0, 0.0));
  // 2^(n−1) with the exponent bounded: past 2^30 every realistic base is above any cap,
  // and an unbounded exponent would overflow for large max_attempts.
  const int exponent = std::clamp(failed_attempt - 1, 0, 30);
  const double exp_delay = std::min(cap, base * std::ldexp(1.0, exponent));

  double delay = 0;
  switch (policy.jitter) {
    case Jitter::none:
      delay = exp_delay;
      break;
    case Jitter::additive:
      delay = exp_delay + uniform_between(policy.jitter_min_ms, policy.jitter_max_ms, u);
      break;
    case Jitter::full:
      delay = uniform_between(0, exp_delay, u);
      break;
    case Jitter::equal:
      delay = exp_delay / 2 + uniform_between(0, exp_delay / 2, u);
      break;
    case Jitter::decorrelated: {
      const double prev = previous.count() > 0 ? static_cast<double>(previous.count()) : base;
      delay = uniform_between(base, std::max(base, prev * 3), u);
      break;
    }
  }
  return Millis(static_cast<Millis::rep>(std::clamp(std::round(delay), 0.0, cap)));
}

}  // namespace quote_lab
