#pragma once
// One quote flow under one policy: the policy's strategies (pipeline.hpp), one object each
// behind one interface (strategy.hpp), composed in the order the policy lists them,
// outermost first; the innermost, `timeout`, is the call. The executor decides nothing
// itself: it makes the flow's context (the request, its trace, the stop, the clock) and the
// strategies, runs them, and returns the trace (quote_trace.hpp) that the JSON answer, the
// incidents, the diagnostics and the metrics all read.
//
// Legacy and resilient are the same executor with different pipelines (legacy: retry and
// timeout; resilient: fallback, retry, circuit_breaker, timeout).

#include <stop_token>

#include "lab/base/clock.hpp"
#include "lab/base/random.hpp"
#include "lab/resilience/breaker.hpp"
#include "lab/resilience/carrier_call.hpp"
#include "lab/resilience/fallback_cache.hpp"
#include "lab/resilience/flow_guards.hpp"
#include "lab/resilience/policy.hpp"
#include "lab/resilience/quote_trace.hpp"

namespace quote_lab {

/// Runs quote flows. Thread-safe: it holds no per-request state; the breaker and the
/// cache guard their own.
class QuoteExecutor {
 public:
  /// `shutdown`: once requested, flows in progress make no further attempt (the attempt
  /// running ends at its own deadline) and a backoff wait ends at once; the skipped retry
  /// is a `retry_skipped` event with reason `shutting_down`, then the usual fallback.
  QuoteExecutor(CarrierCaller& carrier, Breaker& breaker, FallbackCache& cache,
                Clock& clock, RandomSource& random, std::stop_token shutdown = {});

  /// Runs `request` under `policy` and reports what happened. Never throws for carrier
  /// problems: they are outcomes in the trace.
  ///
  /// The carrier's Retry-After and the policy keys deadline_ms and retry_budget_ratio, in
  /// the order they act after a failed attempt that next_step would retry:
  ///   Retry-After   the wait is max(backoff, the carrier's Retry-After capped at
  ///                 backoff_max_ms and at what keeps the whole flow within
  ///                 max(kMaxQuoteMs, worst_case_duration), quote_budget.hpp); when
  ///                 Retry-After made it longer the wait shows as a `retry_after` step
  ///                 (wait_ms) instead of `backoff`. Legacy (cap 0) ignores it.
  ///   deadline_ms   a wait that would reach the deadline is not started: retry_skipped,
  ///                 reason `deadline`; every attempt's timeout is min(timeout_ms, time
  ///                 left); CarrierRequest::deadline carries it to the carrier; an attempt
  ///                 the deadline cut fails as `timeout`, whatever the carrier answered at it
  ///   budget        with a retry_budget_ratio, a retry the budget refuses is retry_skipped,
  ///                 reason `retry_budget` (the budget is not asked without a ratio)
  ///   retry_quota   with the strategy, a retry pays its cost from the quota (retry_quota.hpp)
  ///                 before its wait; one it cannot pay for is retry_skipped, reason
  ///                 `retry_quota`; a live answer gives back what the last retry paid (or
  ///                 no_retry_increment), and so does a paid retry whose call never left
  /// `budget`: the retry budget of this policy in this lab (one per lab and policy), or
  /// null; every flow run with one deposits into it.
  QuoteTrace run(const QuoteRequest& request, const RetryPolicy& policy, RetryBudget* budget = nullptr) {
    return run(request, policy, FlowGuards{.retry_budget = budget});
  }
  /// The same with the policy's overload strategies (pipeline.hpp), in the pipeline's order:
  ///   bulkhead      no place (and no queue place, or the queue wait ran out): no attempt,
  ///                 a `rejected` step with reason bulkhead_full, then the fallback
  ///   gates         before each call they wrap, in the pipeline's order: adaptive_throttle drops
  ///                 (throttled), adaptive_retry waits for its token up to max_wait_ms
  ///                 (a `token_wait` step with wait_ms, whole ms rounded up, when it waited;
  ///                 client_rate_limited beyond), concurrency_limit refuses at the limit
  ///                 (concurrency_limit); a refusal is a `rejected` step and ends the flow
  ///                 (no retry: the strategy said the carrier is overloaded), then the fallback
  ///   hedging       the attempt is a hedged call (hedged_call.hpp): `hedge` when the second
  ///                 call goes, `hedge_won` when it answered first, `hedge_skipped` with reason
  ///                 hedge_budget when the budget kept it back, or half_open_probe when the
  ///                 attempt is the half-open breaker's one probe (one call, never two)
  /// A client that leaves (QuoteRequest::cancel) stops the flow where it is: a queued quote
  /// leaves the bulkhead's queue, a backoff or token wait ends, no further attempt starts, and
  /// an attempt in flight is cut, unless it is the half-open probe (the breaker needs its
  /// outcome: it runs to its end and is recorded). The flow ends with a `cancelled` step and
  /// no fallback (status failed); a cut attempt teaches neither the breaker nor a gate.
  /// Each gate hears how its call went: the throttle an accept unless the carrier failed,
  /// adaptive retry whether the carrier said 429, the concurrency limit the call's RTT.
  QuoteTrace run(const QuoteRequest& request, const RetryPolicy& policy, const FlowGuards& guards);

 private:
  CarrierCaller& carrier_;
  Breaker& breaker_;
  FallbackCache& cache_;
  Clock& clock_;
  RandomSource& random_;
  std::stop_token shutdown_;
};

}  // namespace quote_lab
