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

  /// Runs `request` under `policy` and reports what happened: the policy's strategies, in
  /// its pipeline's order, each adding its own steps to the trace (strategies/strategies.hpp
  /// says which). Never throws for carrier problems: they are outcomes in the trace.
  /// `budget`: the retry budget of this policy in this lab (one per lab and policy), or
  /// null; every flow run with one deposits into it.
  QuoteTrace run(const QuoteRequest& request, const RetryPolicy& policy, RetryBudget* budget = nullptr) {
    return run(request, policy, FlowGuards{.retry_budget = budget});
  }
  /// The same with what the policy's strategies keep between flows in this lab (its
  /// states' guards, strategy_state.hpp). A client that leaves (QuoteRequest::cancel) stops
  /// the flow where it is: a queued quote leaves the bulkhead's queue, a backoff or token
  /// wait ends, no further attempt starts, and an attempt in flight is cut, unless it is the
  /// half-open probe (the breaker needs its outcome: it runs to its end and is recorded). The
  /// flow ends with a `cancelled` step and no fallback (status failed); a cut attempt teaches
  /// neither the breaker nor a gate.
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
