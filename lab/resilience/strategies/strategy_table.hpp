#pragma once
// From a policy's list of strategies (pipeline.hpp) to the objects that run one flow of it,
// and to the states its strategies keep between flows.

#include <memory>
#include <span>
#include <vector>

#include "lab/resilience/pipeline.hpp"
#include "lab/resilience/strategies/strategies.hpp"

namespace quote_lab {

/// One strategy object per entry of `pipeline`, in its order (outermost first), made for one flow.
std::vector<std::unique_ptr<ResilienceStrategy>> make_pipeline(const std::vector<Strategy>& pipeline,
                                                               const StrategyDeps& deps);

/// The state of each strategy `policy` lists that keeps one (a bulkhead, a quota, a limit...),
/// in the list's order, made from the policy's settings: one set per policy and lab.
std::vector<std::unique_ptr<StrategyState>> make_states(const RetryPolicy& policy, const StateDeps& deps);

/// The longest one pass through `s` may wait under `policy` (a bulkhead's queue_timeout_ms,
/// adaptive retry's max_wait_ms); zero for a strategy that never waits by itself.
Millis longest_wait(Strategy s, const RetryPolicy& policy);

/// The gauge families the state of `s` shows; none for a strategy that keeps no state.
std::span<const GaugeFamily* const> gauges_of(Strategy s);

/// Every gauge family a strategy's state may show, in the strategies' order.
std::span<const GaugeFamily* const> strategy_gauge_families();

}  // namespace quote_lab
