#pragma once
// One policy written as a pipeline of strategies in the policies file (and in GET /): an
// ordered list, outermost first, each strategy an object carrying the settings that belong
// to it (pipeline.hpp gives the executor's order, strategy_settings.hpp the ranges):
//
//   "resilient": {"pipeline": [
//     {"strategy": "fallback"},
//     {"strategy": "retry", "max_attempts": 2, "backoff_base_ms": 80, "backoff_max_ms": 2000,
//      "jitter": "additive", "jitter_min_ms": 15, "jitter_max_ms": 45, "retry_on": [...],
//      "retry_budget_ratio": null, "retry_budget_min_per_s": 10, "idempotency_key": "per_flow"},
//     {"strategy": "circuit_breaker"},
//     {"strategy": "timeout", "timeout_ms": 220}]}
//
// The list is the whole policy: a strategy left out is off (no fallback: fallback false; no
// retry: one attempt; no circuit_breaker: no breaker asked; no deadline: none), a setting left
// out takes its default (RetryPolicy's, the resilient numbers; each strategy's own), and
// `timeout` must be there. A circuit_breaker with failure_threshold or open_duration_s is a
// breaker of the policy's own (named policies only).

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lab/resilience/policy.hpp"

namespace quote_lab {

/// What a pipeline reads into: the policy and its own breaker, if it declares one.
struct PipelinePolicy {
  RetryPolicy retry;
  std::optional<BreakerPolicy> breaker;
};

/// Reads policy `name`'s "pipeline" value (above). Every problem is appended to `errors`,
/// each naming the policy, the index in the list and the strategy or setting, with the
/// allowed values or range: "adr0005.pipeline[1]: unknown strategy 'retyr'; did you mean
/// 'retry'? (one of: fallback, ...)", "adr0005.pipeline[1] (retry): max_attempts must be
/// between 1 and 10 (got 0)", "adr0005.pipeline[1] (retry): unknown setting 'timeout_ms',
/// which belongs to 'timeout' (retry takes: ...)", "adr0005.pipeline[3] (fallback):
/// 'fallback' must come before 'retry' (outermost first: ...)", "adr0005.pipeline: 'timeout'
/// is missing ...". `own_breaker_allowed`: false for legacy and resilient, which share the
/// course breaker.
PipelinePolicy pipeline_from_json(const nlohmann::ordered_json& list, const std::string& name, bool own_breaker_allowed,
                                  std::vector<std::string>& errors);

/// `p.pipeline` as the list above, every setting of every strategy written;
/// `own_breaker` goes into its circuit_breaker. Reads back to the same policy.
nlohmann::ordered_json pipeline_to_json(const RetryPolicy& p, const std::optional<BreakerPolicy>& own_breaker);

/// The settings strategy `s` takes in a pipeline, in the order they are written.
std::vector<std::string> strategy_setting_names(Strategy s);

/// Every strategy a pipeline may list, as GET / shows it to a student writing a policy:
/// [{name, term {es, en}, description {es, en}, source, settings: [{name, min and max or
/// choices, default, description {es, en}, source}], gauges: [{family, label {es, en},
/// shows, out_of?, settles, before_first?}], rejects, hedges}], from the strategies' rows and
/// their settings' (strategy_settings.hpp); a nested setting is named with a dot
/// ("delay.mode"), and a default a listed strategy could not take (deadline_ms 0, "none") is
/// null. `gauges` are its state's live figures as a page shows them (GaugeFamily), `rejects`
/// the reason of its `rejected` steps (null: it refuses none), `hedges` whether it sends
/// hedged calls: the overload panel reads these, never a strategy's name.
nlohmann::ordered_json strategies_to_json();

}  // namespace quote_lab
