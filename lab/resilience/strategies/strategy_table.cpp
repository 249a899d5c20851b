// Every strategy, one row each: its name in the policies file, metrics and docs, its place in
// the shipped order, the steps it alone produces, its maker, and for a strategy that keeps
// state between flows, its state's maker and gauge families. Adding a strategy is one
// class (strategies/), one row here, its settings row (strategy_settings.hpp) and its doc row.
#include "lab/resilience/strategies/strategy_table.hpp"

#include <algorithm>
#include <array>

namespace quote_lab {
namespace {

using Maker = std::unique_ptr<ResilienceStrategy> (*)(const StrategyDeps&);
using StateMaker = std::unique_ptr<StrategyState> (*)(const RetryPolicy&, const StateDeps&);
using Gauges = std::span<const GaugeFamily* const> (*)();

struct StrategyRow {
  Strategy strategy;
  std::string_view name;
  int rank;              ///< position in the shipped policies' order (0 = outermost); the gates share one
  StrategySteps steps;   ///< the steps it alone produces (metrics make their series from start)
  Maker make;
  StateMaker make_state = nullptr;  ///< null: nothing kept between flows
  Gauges gauges = nullptr;          ///< the gauge families its state shows
};

// In the enum's order, as every `one of` list names them; `rank` gives the shipped order.
const std::array<StrategyRow, 11> kStrategies{{
    {Strategy::fallback, "fallback", 0, {}, [](const StrategyDeps& d) { return make_fallback(d.cache); }},
    {Strategy::bulkhead, "bulkhead", 1, {.rejected = Reason::bulkhead_full},
     [](const StrategyDeps&) { return make_bulkhead(); }, make_bulkhead_state, bulkhead_gauges},
    {Strategy::deadline, "deadline", 2, {}, [](const StrategyDeps&) { return make_deadline(); }},
    {Strategy::retry, "retry", 3, {}, [](const StrategyDeps&) { return make_retry(); }},
    {Strategy::retry_quota, "retry_quota", 4, {.retry_skipped = Reason::retry_quota},
     [](const StrategyDeps&) { return make_retry_quota(); }, make_retry_quota_state, retry_quota_gauges},
    {Strategy::circuit_breaker, "circuit_breaker", 6, {},
     [](const StrategyDeps& d) { return make_circuit_breaker(d.breaker); }},
    {Strategy::adaptive_throttle, "adaptive_throttle", 5, {.rejected = Reason::throttled},
     [](const StrategyDeps&) { return make_adaptive_throttle(); }, make_adaptive_throttle_state,
     adaptive_throttle_gauges},
    {Strategy::adaptive_retry, "adaptive_retry", 5, {.rejected = Reason::client_rate_limited},
     [](const StrategyDeps&) { return make_adaptive_retry(); }, make_adaptive_retry_state, adaptive_retry_gauges},
    {Strategy::concurrency_limit, "concurrency_limit", 5, {.rejected = Reason::concurrency_limit},
     [](const StrategyDeps&) { return make_concurrency_limit(); }, make_concurrency_limit_state,
     concurrency_limit_gauges},
    {Strategy::hedging, "hedging", 7, {.hedges = true}, [](const StrategyDeps&) { return make_hedging(); },
     make_hedging_state, hedging_gauges},
    {Strategy::timeout, "timeout", 8, {}, [](const StrategyDeps&) { return make_timeout(); }},
}};

const StrategyRow& row(Strategy s) {
  return *std::find_if(kStrategies.begin(), kStrategies.end(), [s](const StrategyRow& r) { return r.strategy == s; });
}

}  // namespace

std::string_view to_string(Strategy s) { return row(s).name; }

std::optional<Strategy> parse_strategy(std::string_view text) {
  for (const StrategyRow& r : kStrategies)
    if (r.name == text) return r.strategy;
  return std::nullopt;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> out;
  for (const StrategyRow& r : kStrategies) out.emplace_back(r.name);
  return out;
}

StrategySteps steps_of(Strategy s) { return row(s).steps; }

int strategy_rank(Strategy s) { return row(s).rank; }

std::vector<std::unique_ptr<ResilienceStrategy>> make_pipeline(const std::vector<Strategy>& pipeline,
                                                               const StrategyDeps& deps) {
  std::vector<std::unique_ptr<ResilienceStrategy>> out;
  out.reserve(pipeline.size());
  for (const Strategy s : pipeline) out.push_back(row(s).make(deps));
  return out;
}

std::vector<std::unique_ptr<StrategyState>> make_states(const RetryPolicy& policy, const StateDeps& deps) {
  std::vector<std::unique_ptr<StrategyState>> out;
  for (const Strategy s : policy.pipeline)
    if (const StateMaker make = row(s).make_state) out.push_back(make(policy, deps));
  return out;
}

std::vector<const GaugeFamily*> strategy_gauge_families() {
  std::vector<const GaugeFamily*> out;
  for (const StrategyRow& r : kStrategies)
    if (r.gauges)
      for (const GaugeFamily* f : r.gauges()) out.push_back(f);
  return out;
}

}  // namespace quote_lab
