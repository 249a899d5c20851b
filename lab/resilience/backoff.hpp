#pragma once
// The wait between two attempts of one quote request, as pure functions: the random draw
// `u` is an argument, so a test gives `u` and asserts the exact delay.
//
// Formulas (n = the attempt that just failed, 1-based; base = backoff_base_ms;
// cap = backoff_max_ms; every result is clamped to [0, cap]):
//   none          base × 2^(n−1)
//   additive      base × 2^(n−1) + jitter, jitter uniform in [jitter_min_ms, jitter_max_ms]
//                 (the course's formula: 80 × 2^(n−1) + randint(15, 45))
//   full          uniform in [0, base × 2^(n−1)]
//   equal         t/2 + uniform in [0, t/2], t = base × 2^(n−1)
//   decorrelated  uniform in [base, previous × 3], previous starting at base
// full, equal and decorrelated follow Marc Brooker, "Exponential Backoff And Jitter",
// AWS Architecture Blog, 2015 (there the exponent counts from 0, here from n−1 = 0).

#include "lab/base/clock.hpp"
#include "lab/resilience/policy.hpp"

namespace quote_lab {

/// The wait after failed attempt `failed_attempt` (≥ 1) before the next one, never
/// negative and never above `policy.backoff_max_ms`. `u` is a uniform draw in [0, 1);
/// `previous` is the last wait of this request (decorrelated jitter only; 0 for the first).
Millis backoff_delay(const RetryPolicy& policy, int failed_attempt, double u,
                     Millis previous = Millis::zero());

}  // namespace quote_lab
