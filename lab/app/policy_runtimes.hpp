#pragma once
// What each policy of one lab runs with besides its data (policy.hpp): its retry budget and
// the stateful strategies of its pipeline (pipeline.hpp), one set per lab and policy, so that
// one student's storm neither spends another's retries nor fills another's bulkhead nor teaches
// another's throttle; and, for a named policy with a breaker of its own, that breaker (in
// memory only) and an executor bound to it. The states come from the policy's list
// (strategies/strategy_table.hpp), so nothing here names a strategy. Built once, never
// changed after: read without a lock; each state guards itself.

#include <map>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "lab/base/clock.hpp"
#include "lab/base/random.hpp"
#include "lab/observability/strategy_gauges.hpp"
#include "lab/resilience/circuit_breaker.hpp"
#include "lab/resilience/fallback_cache.hpp"
#include "lab/resilience/policy.hpp"
#include "lab/resilience/quote_executor.hpp"
#include "lab/resilience/retry_budget.hpp"
#include "lab/resilience/strategy_state.hpp"

namespace quote_lab {

/// One policy's runtime in one lab.
struct PolicyRuntime {
  std::unique_ptr<RetryBudget> budget;
  std::unique_ptr<CircuitBreaker> breaker;   ///< its own breaker, or null: the course breaker's
  std::unique_ptr<QuoteExecutor> executor;   ///< bound to `breaker`, or null: the lab's executor
  /// The state of each strategy of its pipeline that keeps one (strategies/strategy_table.hpp).
  std::vector<std::unique_ptr<StrategyState>> states;
  /// What the executor asks of them for one flow: the budget and each state, lent once.
  FlowGuards guards;
};

/// Every policy's runtime in one lab, by the policy's name.
class PolicyRuntimes {
 public:
  /// One runtime per policy of `policies`; their strategies read `clock` and `random`, hedged
  /// calls go to `carrier` on threads of their own, and a named policy's own executor answers
  /// from `cache` and stops at `shutdown` as the lab's does.
  PolicyRuntimes(const Policies& policies, CarrierCaller& carrier, FallbackCache& cache, Clock& clock,
                 RandomSource& random, std::stop_token shutdown);

  /// The runtime of policy `name`; throws std::out_of_range for a name the lab does not serve
  /// (the routes check names first).
  const PolicyRuntime& at(std::string_view name) const;
  /// The live value of each policy's overload strategies (one entry per policy that keeps
  /// strategy state); adaptive retry's send rate only once a 429 turned its pacing on.
  std::vector<StrategyGauges> gauges() const;
  /// Every budget, strategy and own breaker back to its start (the lab's reset).
  void reset();

 private:
  std::map<std::string, PolicyRuntime, std::less<>> runtimes_;
};

}  // namespace quote_lab
