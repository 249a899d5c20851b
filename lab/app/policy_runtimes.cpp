#include "lab/app/policy_runtimes.hpp"

#include "lab/carrier/threaded_hedged_caller.hpp"
#include "lab/resilience/strategies/strategy_table.hpp"

namespace quote_lab {

PolicyRuntimes::PolicyRuntimes(const Policies& policies, CarrierCaller& carrier, FallbackCache& cache, Clock& clock,
                               RandomSource& random, std::stop_token shutdown) {
  const StateDeps deps{clock, random, [&carrier] { return std::make_unique<ThreadedHedgedCaller>(carrier); }};
  // Every policy gets the states its pipeline lists, legacy and resilient too when the
  // policies file gives them a strategy that keeps one.
  const auto add = [&](const RetryPolicy& p) -> PolicyRuntime& {
    PolicyRuntime& r = runtimes_[p.mode];
    r.budget = std::make_unique<RetryBudget>(clock);
    r.states = make_states(p, deps);
    r.guards.retry_budget = r.budget.get();
    for (const auto& state : r.states) state->lend(r.guards);
    return r;
  };
  add(policies.legacy);
  add(policies.resilient);
  for (const auto& n : policies.named) {
    PolicyRuntime& r = add(n.retry);
    if (!n.breaker) continue;
    // Its own breaker, with its own numbers (ADR-0005: 5 failures, 30 s); in memory only.
    r.breaker = std::make_unique<CircuitBreaker>("carrier:" + n.retry.mode, *n.breaker, clock);
    r.executor = std::make_unique<QuoteExecutor>(carrier, *r.breaker, cache, clock, random, shutdown);
  }
}

const PolicyRuntime& PolicyRuntimes::at(std::string_view name) const {
  const auto it = runtimes_.find(name);
  if (it == runtimes_.end()) throw std::out_of_range("no policy named " + std::string(name));
  return it->second;
}

std::vector<StrategyGauges> PolicyRuntimes::gauges() const {
  std::vector<StrategyGauges> out;
  for (const auto& [mode, r] : runtimes_) {
    if (r.states.empty()) continue;
    StrategyGauges g{.mode = mode};
    for (const auto& state : r.states) state->read(g.readings);
    out.push_back(std::move(g));
  }
  return out;
}

void PolicyRuntimes::reset() {
  for (auto& [_, r] : runtimes_) {
    r.budget->reset();
    for (const auto& state : r.states) state->reset();
    if (r.breaker) r.breaker->reset();
  }
}

}  // namespace quote_lab
