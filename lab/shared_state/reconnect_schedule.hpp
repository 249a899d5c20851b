#pragma once
// When to try Redis again after it failed: exponential backoff with equal jitter, the
// same formula the quote retries use (lab/resilience/backoff.hpp), so a fleet of replicas
// that lost Redis at the same moment does not reconnect in lockstep. Pure: the random
// draw is an argument, so tests assert exact waits without sleeping.

#include "lab/base/clock.hpp"

namespace quote_lab {

/// 100 ms × 2^(n−1), equal jitter (half fixed, half drawn), capped at 2 s: a restarted
/// Redis is noticed within ~2 s of coming back, well inside the 5 s test_redis_replicas.py allows.
struct ReconnectSchedule {
  int base_ms = 100;
  int max_ms = 2000;

  /// The wait after the `failures`-th consecutive failure (≥ 1); `u` uniform in [0, 1).
  /// In [t/2, t] for t = min(max_ms, base_ms × 2^(failures−1)).
  Millis delay(int failures, double u) const;
};

}  // namespace quote_lab
