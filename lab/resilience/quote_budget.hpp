#pragma once
// How long one quote flow can hold a worker at most under a policy: every attempt runs
// to its timeout and every wait between attempts takes its largest draw. The lab refuses
// per-request overrides above a fixed bound (issue 10, problem 4: timeout_ms=5000 with
// max_attempts=10 held a worker 50 s, and 16 such curls froze the lab).

#include "lab/base/clock.hpp"
#include "lab/resilience/policy.hpp"

namespace quote_lab {

/// The most a quote flow under `policy` can last, carrier calls and backoff waits
/// included: timeout_ms × max_attempts + the largest wait after each failed attempt but
/// the last (backoff_delay's upper end, never above backoff_max_ms).
Millis worst_case_duration(const RetryPolicy& policy);

}  // namespace quote_lab
