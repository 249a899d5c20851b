#include "lab/app/policy_runtimes.hpp"

#include "lab/carrier/threaded_hedged_caller.hpp"

namespace quote_lab {

FlowGuards PolicyRuntime::guards() const {
  return {.retry_budget = budget.get(), .retry_quota = retry_quota.get(), .bulkhead = bulkhead.get(),
          .throttle = throttle.get(), .rate = rate.get(), .concurrency = concurrency.get(),
          .hedge_budget = hedge_budget.get(), .hedging_delay = hedging_delay.get(), .hedger = hedger.get()};
}

PolicyRuntimes::PolicyRuntimes(const Policies& policies, CarrierCaller& carrier, FallbackCache& cache, Clock& clock,
                               RandomSource& random, std::stop_token shutdown) {
  const auto add = [&](const RetryPolicy& p) -> PolicyRuntime& {
    PolicyRuntime& r = runtimes_[p.mode];
    r.budget = std::make_unique<RetryBudget>(clock);
    return r;
  };
  add(policies.legacy);
  add(policies.resilient);
  for (const auto& n : policies.named) {
    PolicyRuntime& r = add(n.retry);
    const RetryPolicy& p = n.retry;
    const OverloadStrategies& o = p.overload;
    if (p.uses(Strategy::bulkhead))
      r.bulkhead = std::make_unique<Bulkhead>(BulkheadSettings{o.bulkhead.max_concurrent, o.bulkhead.max_queued});
    if (p.uses(Strategy::retry_quota)) r.retry_quota = std::make_unique<RetryQuota>(o.retry_quota);
    if (p.uses(Strategy::adaptive_throttle)) r.throttle = std::make_unique<AdaptiveThrottle>(clock, random, o.adaptive_throttle);
    if (p.uses(Strategy::adaptive_retry)) r.rate = std::make_unique<CubicRateLimiter>(clock);
    if (p.uses(Strategy::concurrency_limit))
      r.concurrency = std::make_unique<GradientConcurrencyLimit>(clock, random, o.concurrency_limit);
    if (p.uses(Strategy::hedging)) {
      r.hedge_budget = std::make_unique<HedgeBudget>(clock, o.hedging.budget);
      r.hedging_delay = std::make_unique<HedgingDelay>(o.hedging.delay);
      r.hedger = std::make_unique<ThreadedHedgedCaller>(carrier);
    }
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
    StrategyGauges g{.mode = mode};
    if (r.throttle) g.throttle_drop_ratio = r.throttle->drop_probability();
    if (r.concurrency) {
      const auto s = r.concurrency->stats();
      g.concurrency_limit = s.limit;
      g.concurrency_in_flight = s.in_flight;
    }
    if (r.hedging_delay) g.hedge_delay_s = r.hedging_delay->delay_ms() / 1000.0;
    if (r.rate) {
      const auto s = r.rate->stats();
      if (s.enabled) g.send_rate_per_s = s.send_rate_per_s;
    }
    if (r.bulkhead) {
      const BulkheadStats b = r.bulkhead->stats();
      g.bulkhead_active = b.active;
      g.bulkhead_queued = b.queued;
    }
    if (r.retry_quota) g.retry_quota_available = r.retry_quota->available();
    if (r.throttle || r.concurrency || r.hedging_delay || r.rate || r.bulkhead || r.retry_quota)
      out.push_back(std::move(g));
  }
  return out;
}

void PolicyRuntimes::reset() {
  for (auto& [_, r] : runtimes_) {
    r.budget->reset();
    if (r.retry_quota) r.retry_quota->reset();
    if (r.throttle) r.throttle->reset();
    if (r.rate) r.rate->reset();
    if (r.concurrency) r.concurrency->reset();
    if (r.hedge_budget) r.hedge_budget->reset();
    if (r.hedging_delay) r.hedging_delay->reset();
    if (r.breaker) r.breaker->reset();
  }
}

}  // namespace quote_lab
