#pragma once
// What one policy keeps between flows in one lab: the stateful strategies of its pipeline
// (pipeline.hpp), each null when the policy does not use it (or, for a test, when it is to
// be left out). Not owned; each is thread-safe.

#include "lab/resilience/overload/adaptive_throttle.hpp"
#include "lab/resilience/overload/bulkhead.hpp"
#include "lab/resilience/overload/cubic_rate_limiter.hpp"
#include "lab/resilience/overload/gradient_concurrency_limit.hpp"
#include "lab/resilience/overload/hedge_budget.hpp"
#include "lab/resilience/overload/hedged_call.hpp"
#include "lab/resilience/overload/hedging_delay.hpp"
#include "lab/resilience/retry_budget.hpp"
#include "lab/resilience/retry_quota.hpp"

namespace quote_lab {

struct FlowGuards {
  RetryBudget* retry_budget = nullptr;
  RetryQuota* retry_quota = nullptr;
  Bulkhead* bulkhead = nullptr;
  AdaptiveThrottle* throttle = nullptr;
  CubicRateLimiter* rate = nullptr;
  GradientConcurrencyLimit* concurrency = nullptr;
  HedgeBudget* hedge_budget = nullptr;
  HedgingDelay* hedging_delay = nullptr;
  HedgedCaller* hedger = nullptr;  ///< the threads hedged calls run on; hedging needs it
};

}  // namespace quote_lab
