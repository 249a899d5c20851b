#pragma once
// A policy as a pipeline of strategies (Polly v8's ResiliencePipeline, resilience4j's
// decorators): the policies file lists each policy's strategies outermost first, each with
// its settings (formats/policy_json.hpp). This is the vocabulary of that list and the
// settings of the strategies that keep state per lab (overload controls); the course's
// timeout, retry, breaker and fallback settings stay RetryPolicy's fields.
//
// One executor runs every pipeline (quote_executor.hpp) as it is written: each strategy
// wraps the ones after it (strategy.hpp). The shipped policies list them in this order:
//   fallback → bulkhead → deadline → retry → retry_quota → [adaptive_throttle,
//   adaptive_retry, concurrency_limit] → circuit_breaker → hedging → timeout
// and a user may write another (a breaker around the whole retry, a bulkhead place per
// attempt, a gate asked once per flow), except what pipeline_problem refuses: an order
// whose strategies could not keep their own promise. Standard library only, plus the
// strategies' own settings.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lab/base/prose.hpp"
#include "lab/resilience/overload/adaptive_throttle.hpp"
#include "lab/resilience/overload/gradient_concurrency_limit.hpp"
#include "lab/resilience/overload/hedge_budget.hpp"
#include "lab/resilience/overload/hedging_delay.hpp"
#include "lab/resilience/retry_quota.hpp"
#include "lab/resilience/vocabulary.hpp"

namespace quote_lab {

/// One strategy of a pipeline (the policies file's `"strategy"` names). Each has one row in
/// strategies/strategy_table.cpp: its name, place, steps and maker.
enum class Strategy {
  fallback,           ///< answer with the cached quote when the flow gets no live one
  bulkhead,           ///< at most N quotes of the policy at once in the lab, a queue, then `rejected: bulkhead_full`
  deadline,           ///< a total deadline across attempts and waits (deadline_ms)
  retry,              ///< attempts, backoff with jitter, retry_on, retry budget
  retry_quota,        ///< the AWS SDKs' retry quota: retries pay from a bucket only successes refill
  circuit_breaker,    ///< the breaker's admission before each attempt
  adaptive_throttle,  ///< SRE book client-side throttling: `rejected: throttled`
  adaptive_retry,     ///< AWS SDKs' adaptive retry: a CUBIC-paced token per attempt
  concurrency_limit,  ///< Envoy's gradient limit on calls in flight: `rejected: concurrency_limit`
  hedging,            ///< a second call after a delay when the first has not answered
  timeout,            ///< each attempt's timeout (timeout_ms); the last value, kStrategyCount counts from it
};
/// How many strategies there are (one row each in strategies/strategy_table.cpp).
inline constexpr std::size_t kStrategyCount = static_cast<std::size_t>(Strategy::timeout) + 1;
std::string_view to_string(Strategy s);
/// The strategy named `text`; nullopt if unknown.
std::optional<Strategy> parse_strategy(std::string_view text);
/// Every strategy name, in the enum's order.
std::vector<std::string> strategy_names();

/// Bulkhead settings (Polly's Bulkhead, resilience4j's SemaphoreBulkhead).
struct BulkheadPolicy {
  int max_concurrent = 4;     ///< quotes of the policy inside at once, per lab, 1–1000
  int max_queued = 0;         ///< quotes waiting for a place, 0–1000
  int queue_timeout_ms = 0;   ///< the longest a queued quote waits, 0–5000
};

/// Hedged requests ("The Tail at Scale"; gRPC's hedging policy): after `delay` without an
/// answer, a second call to the carrier; the first live answer wins and the other is
/// abandoned. Hedges are bounded by a budget (HedgeBudget) so a partial outage, where every
/// call is slow, cannot double the load.
struct HedgingPolicy {
  HedgingDelaySettings delay{};   ///< fixed, or a percentile of the policy's observed latencies
  HedgeBudgetSettings budget{};   ///< hedges ≤ share × requests + min_per_s × 10 over 10 s
};

/// The AWS SDKs' adaptive retry mode (botocore retries/adaptive.py): every attempt takes a
/// token from a bucket whose rate follows CUBIC (β 0.7 on a 429, then C·(t − K)³ + W_max).
struct AdaptiveRetryPolicy {
  int max_wait_ms = 1000;  ///< the longest an attempt waits for its token, 0–5000; longer: rejected
};

/// The settings of a policy's overload strategies, one struct per strategy. A strategy runs
/// only when the pipeline lists it: the list is the one switch, these are its settings (the
/// defaults, the sources' numbers, until the policies file says otherwise).
struct OverloadStrategies {
  BulkheadPolicy bulkhead{};
  RetryQuotaSettings retry_quota{};
  AdaptiveThrottleSettings adaptive_throttle{};
  AdaptiveRetryPolicy adaptive_retry{};
  GradientLimitSettings concurrency_limit{};
  HedgingPolicy hedging{};
};


/// What a student reads of a strategy (GET /'s `strategies`): its name in prose, what it
/// does in one sentence, and where its rule and numbers come from.
struct StrategyAbout {
  Prose label;
  Prose does;
  std::string_view source;
};
StrategyAbout about(Strategy s);

/// The steps of a flow that `s` alone produces, as the metrics count them and a quote's
/// explanation tells them: the reason of its `rejected` steps
/// (quote_lab_overload_rejections_total) and of its `retry_skipped` steps
/// (quote_lab_retries_skipped_total), each with what it means to the student, and whether it
/// hedges (quote_lab_hedges_total). A policy's series for them exist from start at 0, so a
/// panel says 0 rather than "No data".
struct StrategySteps {
  std::optional<Reason> rejected{};
  Prose rejected_means{};       ///< a sentence: why the call was refused, without calling the carrier
  Prose rejected_after_wait{};  ///< the same after a wait in its queue, "{waited_ms}" the wait; empty: no queue
  std::optional<Reason> retry_skipped{};
  Prose retry_skipped_means{};  ///< a sentence: why no further retry was made
  bool hedges = false;
};
StrategySteps steps_of(Strategy s);
/// The steps of the strategy whose `rejected` or `retry_skipped` steps give reason `r`;
/// nullopt for a reason no strategy owns (the course's: timeout, circuit_open, deadline...).
std::optional<StrategySteps> steps_giving(Reason r);
/// The reasons the strategies' own steps give, in the strategies' order, joined by ", ":
/// `which` is &StrategySteps::rejected or &StrategySteps::retry_skipped (the metrics' help).
std::string strategy_reasons(std::optional<Reason> StrategySteps::*which);

/// The strategy `s` works for, which must be listed before it (outside it), and why: the
/// retry quota pays for a retry's retries. Empty for a strategy that works anywhere.
struct OuterNeed {
  Strategy outer;
  Prose because;  ///< why, in both languages (a refused design's problem is said in the student's)
};
std::optional<OuterNeed> outer_need(Strategy s);

/// The position of `s` in the shipped policies' order (0 = outermost; the three gates share
/// one): where a strategy a flat key or a request's override adds goes (switch_strategy).
int strategy_rank(Strategy s);
/// Why `pipeline` cannot run as written ("", when it can), naming the rule it breaks:
///   - a strategy listed twice;
///   - anything after `timeout` (the call itself comes last);
///   - anything but `timeout` after `hedging` (a strategy between them would run once for
///     the two calls: a half-open breaker would let both through);
///   - fallback, bulkhead or a gate after `circuit_breaker` (it could end a call the breaker
///     let through with no carrier answer, and the half-open probe would never be recorded);
///   - a strategy without the one it works for before it (outer_need: `retry_quota` without
///     `retry`, whose retries it pays for).
std::string pipeline_problem(const std::vector<Strategy>& pipeline);

}  // namespace quote_lab
