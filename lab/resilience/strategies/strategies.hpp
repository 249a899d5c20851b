#pragma once
// The strategies of a pipeline (pipeline.hpp), one class each behind ResilienceStrategy
// (strategy.hpp), each made fresh for one flow; and, for those that keep state between flows,
// their state (strategy_state.hpp), made once per policy and lab from the policy's settings,
// with the gauge families it shows. strategy_table.cpp maps a Strategy to its makers; nothing
// else names these.

#include <memory>
#include <span>

#include "lab/resilience/breaker.hpp"
#include "lab/resilience/fallback_cache.hpp"
#include "lab/resilience/strategy.hpp"
#include "lab/resilience/strategy_state.hpp"

namespace quote_lab {

/// What the strategies of a lab share besides the guards: the breaker the policy asks and
/// the cache its fallback reads.
struct StrategyDeps {
  Breaker& breaker;
  FallbackCache& cache;
};

/// Answers from the cache when the flow inside got no live answer (a seed quote when the
/// cache holds none for the customer), and fills the cache with every live answer. A flow
/// whose client left gets no fallback: nobody waits for it.
std::unique_ptr<ResilienceStrategy> make_fallback(FallbackCache& cache);
/// At most max_concurrent flows inside at once per lab, max_queued waiting up to
/// queue_timeout_ms (Bulkhead, overload/bulkhead.hpp); no place: `rejected` bulkhead_full.
std::unique_ptr<ResilienceStrategy> make_bulkhead();
/// Starts the flow's total deadline (deadline_ms): every wait and attempt inside ends by it. A
/// wait that would reach it is not started (retry_skipped, reason `deadline`); each attempt's
/// timeout is min(timeout_ms, time left), CarrierRequest::deadline carries it to the carrier,
/// and an attempt the deadline cut fails as `timeout`, whatever the carrier answered at it.
std::unique_ptr<ResilienceStrategy> make_deadline();
/// Attempts, backoff with jitter, Retry-After, retry_on and the retry budget (retry_decision.hpp).
/// After a failed attempt next_step would retry: the wait is max(backoff, the carrier's
/// Retry-After capped at backoff_max_ms and at what keeps the flow within
/// max(kMaxQuoteMs, worst_case_duration), quote_budget.hpp), a `retry_after` step when
/// Retry-After made it longer, else `backoff` (legacy, cap 0, ignores it); with a
/// retry_budget_ratio, a retry the budget refuses is retry_skipped, reason `retry_budget`.
/// Before each retry it asks the strategies inside it (admit_retry), and tells them of a
/// retry it will not make (retry_dropped).
std::unique_ptr<ResilienceStrategy> make_retry();
/// botocore's retry quota (retry_quota.hpp): a retry pays its cost before its wait; one it
/// cannot pay for is retry_skipped, reason `retry_quota`; a live answer gives back what the
/// last retry paid (or no_retry_increment), and so does a paid retry whose call never left.
std::unique_ptr<ResilienceStrategy> make_retry_quota();
/// The breaker's admission and record (breaker.hpp); the half-open probe is marked in the context.
std::unique_ptr<ResilienceStrategy> make_circuit_breaker(Breaker& breaker);
/// The SRE book's client-side throttling (overload/adaptive_throttle.hpp): `rejected` throttled.
/// It hears an accept for each call unless the carrier failed.
std::unique_ptr<ResilienceStrategy> make_adaptive_throttle();
/// The AWS SDKs' adaptive retry token (overload/cubic_rate_limiter.hpp): a `token_wait` step
/// (wait_ms, whole ms rounded up) when it waited, or `rejected` client_rate_limited past
/// max_wait_ms; it hears whether each answer was a 429.
std::unique_ptr<ResilienceStrategy> make_adaptive_retry();
/// Envoy's gradient concurrency limit (overload/gradient_concurrency_limit.hpp): `rejected`
/// concurrency_limit at the limit; each call's round trip is its sample. A gate's refusal ends
/// the flow (no retry: the strategy said the carrier is overloaded), then the fallback.
std::unique_ptr<ResilienceStrategy> make_concurrency_limit();
/// Hedged requests (overload/hedged_call.hpp): the call inside goes as a hedged call: `hedge`
/// when the second call goes, `hedge_won` when it answered first, `hedge_skipped` with reason
/// hedge_budget when the budget kept it back, or half_open_probe when the attempt is the
/// half-open breaker's one probe (one call, never two).
std::unique_ptr<ResilienceStrategy> make_hedging();
/// The call itself, with its timeout (timeout_ms, or what is left of the deadline).
std::unique_ptr<ResilienceStrategy> make_timeout();

/// The states of the strategies that keep one, from the policy's settings (OverloadStrategies),
/// and the gauge families each shows: the bulkhead's places (quote_lab_bulkhead_active,
/// _queued), the retry quota's tokens (quote_lab_retry_quota_available), the throttle's window
/// (quote_lab_throttle_drop_ratio), adaptive retry's CUBIC bucket
/// (quote_lab_adaptive_retry_send_rate), the gradient limit (quote_lab_concurrency_limit,
/// _in_flight), and hedging's budget, learnt delay (quote_lab_hedge_delay_seconds) and the
/// threads its calls run on (StateDeps::make_hedger; none: hedging passes the call through).
std::unique_ptr<StrategyState> make_bulkhead_state(const RetryPolicy& p, const StateDeps& d);
std::unique_ptr<StrategyState> make_retry_quota_state(const RetryPolicy& p, const StateDeps& d);
std::unique_ptr<StrategyState> make_adaptive_throttle_state(const RetryPolicy& p, const StateDeps& d);
std::unique_ptr<StrategyState> make_adaptive_retry_state(const RetryPolicy& p, const StateDeps& d);
std::unique_ptr<StrategyState> make_concurrency_limit_state(const RetryPolicy& p, const StateDeps& d);
std::unique_ptr<StrategyState> make_hedging_state(const RetryPolicy& p, const StateDeps& d);
std::span<const GaugeFamily* const> bulkhead_gauges();
std::span<const GaugeFamily* const> retry_quota_gauges();
std::span<const GaugeFamily* const> adaptive_throttle_gauges();
std::span<const GaugeFamily* const> adaptive_retry_gauges();
std::span<const GaugeFamily* const> concurrency_limit_gauges();
std::span<const GaugeFamily* const> hedging_gauges();

}  // namespace quote_lab
