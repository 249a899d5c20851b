#pragma once
// One quote flow under one policy: ask the breaker, call the carrier, record, and do what
// the retry decision (retry_decision.hpp, next_step and before_attempt) says — wait and
// retry, or stop — then fall back. The executor decides nothing itself: it gathers the facts
// (the clock, the carrier's answer, the shutdown token) and asks the retry budget, its one
// gate with a side effect, after the decision says wait. It returns the trace
// (quote_trace.hpp) that the JSON answer, the incidents, the diagnostics and the metrics
// all read.
//
// Legacy and resilient are the same executor with different RetryPolicy data (legacy:
// no breaker, no backoff, no fallback).

#include <optional>
#include <stop_token>

#include "lab/base/clock.hpp"
#include "lab/base/random.hpp"
#include "lab/resilience/carrier_call.hpp"
#include "lab/resilience/breaker.hpp"
#include "lab/resilience/fallback_cache.hpp"
#include "lab/resilience/policy.hpp"
#include "lab/resilience/quote_trace.hpp"
#include "lab/resilience/retry_budget.hpp"
#include "lab/resilience/retry_decision.hpp"

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
  ///                 left); CarrierRequest::deadline carries it to the carrier
  ///   budget        with a retry_budget_ratio, a retry the budget refuses is retry_skipped,
  ///                 reason `retry_budget` (the budget is not asked without a ratio)
  /// `budget`: the retry budget of this policy in this lab (one per lab and policy), or
  /// null; every flow run with one deposits into it.
  QuoteTrace run(const QuoteRequest& request, const RetryPolicy& policy, RetryBudget* budget = nullptr);

 private:
  /// The flow's deadline (deadline_ms), steady for the lab and wall for the carrier; both
  /// empty without one.
  struct Deadline {
    std::optional<SteadyTime> steady;
    std::optional<WallTime> wall;
    std::optional<Millis> left(const Clock& clock) const;  ///< empty without a deadline
  };
  /// Attempt slot `attempt`: the breaker's admission, the call and its record; appends its
  /// steps (and the answer, on success) to `trace` and returns what next_step needs of it.
  /// `recorded` becomes the breaker as the record left it, or empty when nothing was
  /// recorded (the answer then reads the breaker once more at the end).
  AttemptFacts call_once(QuoteTrace& trace, const QuoteRequest& request, const RetryPolicy& policy,
                         int attempt, const Deadline& deadline, std::optional<BreakerSnapshot>& recorded);
  /// Answers from the cache (a seed quote when it holds nothing for this customer).
  void fall_back(QuoteTrace& trace, const QuoteRequest& request);

  CarrierCaller& carrier_;
  Breaker& breaker_;
  FallbackCache& cache_;
  Clock& clock_;
  RandomSource& random_;
  std::stop_token shutdown_;
};

}  // namespace quote_lab
