#pragma once
// How long one quote flow can hold a worker at most under a policy: every attempt runs
// to its timeout and every wait between attempts takes its largest draw. The lab refuses
// per-request overrides above a fixed bound: without one, timeout_ms=5000 with
// max_attempts=10 held a worker 50 s, and 16 such curls froze the lab.

#include "lab/base/clock.hpp"
#include "lab/resilience/policy.hpp"

namespace quote_lab {

/// The longest a quote with per-request overrides may hold a worker, in ms (its worst
/// case). The configured policies stay far below it. A carrier's Retry-After may lengthen
/// a flow's waits only up to max(this, worst_case_duration) (quote_executor.hpp).
inline constexpr int kMaxQuoteMs = 5000;

/// The most a quote flow under `policy` can last, carrier calls and backoff waits
/// included: timeout_ms × max_attempts + the largest wait after each failed attempt but
/// the last (backoff_delay's upper end, never above backoff_max_ms) + the strategies' own
/// waits (a bulkhead's queue_timeout_ms, adaptive retry's max_wait_ms: longest_wait), before
/// each attempt for one listed inside the retry, once for one listed outside it; never more
/// than deadline_ms when the policy has one.
Millis worst_case_duration(const RetryPolicy& policy);

/// The most the rest of a flow can last from the start of attempt `attempt` (1-based): its
/// attempts and the largest waits between them. worst_case_from(p, 1) is the whole flow
/// without the deadline; 0 past max_attempts.
Millis worst_case_from(const RetryPolicy& policy, int attempt);

}  // namespace quote_lab
