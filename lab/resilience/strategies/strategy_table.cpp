#include "lab/resilience/strategies/strategy_table.hpp"

#include <array>
#include <utility>

namespace quote_lab {
namespace {

using Maker = std::unique_ptr<ResilienceStrategy> (*)(const StrategyDeps&);

// Every strategy's maker, one row each.
const std::array<std::pair<Strategy, Maker>, 11> kMakers{{
    {Strategy::fallback, [](const StrategyDeps& d) { return make_fallback(d.cache); }},
    {Strategy::bulkhead, [](const StrategyDeps&) { return make_bulkhead(); }},
    {Strategy::deadline, [](const StrategyDeps&) { return make_deadline(); }},
    {Strategy::retry, [](const StrategyDeps&) { return make_retry(); }},
    {Strategy::retry_quota, [](const StrategyDeps&) { return make_retry_quota(); }},
    {Strategy::circuit_breaker, [](const StrategyDeps& d) { return make_circuit_breaker(d.breaker); }},
    {Strategy::adaptive_throttle, [](const StrategyDeps&) { return make_adaptive_throttle(); }},
    {Strategy::adaptive_retry, [](const StrategyDeps&) { return make_adaptive_retry(); }},
    {Strategy::concurrency_limit, [](const StrategyDeps&) { return make_concurrency_limit(); }},
    {Strategy::hedging, [](const StrategyDeps&) { return make_hedging(); }},
    {Strategy::timeout, [](const StrategyDeps&) { return make_timeout(); }},
}};

}  // namespace

std::vector<std::unique_ptr<ResilienceStrategy>> make_pipeline(const std::vector<Strategy>& pipeline,
                                                               const StrategyDeps& deps) {
  std::vector<std::unique_ptr<ResilienceStrategy>> out;
  out.reserve(pipeline.size());
  for (const Strategy s : pipeline)
    for (const auto& [strategy, make] : kMakers)
      if (strategy == s) out.push_back(make(deps));
  return out;
}

}  // namespace quote_lab
