#pragma once
// The settings each strategy of a pipeline takes in a policy (pipeline.hpp), with the range
// the policies file accepts for each, what it sets (es/en) and the source of its default: one
// row per setting, read by the JSON reader and writer (formats/pipeline_json.hpp), by
// validate() (policy.hpp) and by GET /'s `strategies`, so the file, the index and the check
// can never disagree on a name or a bound. Each range lies inside what the strategy's class
// accepts (its constructor would throw outside it) and is bounded above by what one lab can
// use. The course's settings (retry, timeout, deadline, circuit_breaker) keep their fields in
// RetryPolicy and BreakerPolicy; their rows here add what they set and their source.
// Standard library only.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lab/resilience/pipeline.hpp"

namespace quote_lab {

/// One numeric setting of a strategy's settings struct `S` and its allowed range,
/// inclusive: exactly one of `int_member` and `number_member` is set.
template <class S>
struct StrategySetting {
  const char* key;
  int S::*int_member;
  double S::*number_member;
  double lo;
  double hi;
  Prose does;          ///< what it sets, for GET /
  const char* source;  ///< where its default comes from
};

/// One setting of a strategy as a student reads it (GET /'s `strategies`): its key in the
/// policies file's entry ("delay.percentile" for one nested in an object), its range or its
/// choices, what it sets and where its default comes from.
struct SettingAbout {
  std::string key;
  double lo = 0;                       ///< inclusive; unused for a choice
  double hi = 0;
  bool integer = false;
  std::vector<std::string> choices{};  ///< the values a choice takes (`retry_on`: a list of them)
  Prose does{};
  std::string_view source{};
};
/// Every setting strategy `s` takes in its entry of a pipeline, in the order the policies
/// file writes them; none for fallback. The one list the JSON reader checks keys against.
std::vector<SettingAbout> settings_about(Strategy s);

/// The settings of each strategy, in the order the policies file writes them.
std::span<const StrategySetting<BulkheadPolicy>> bulkhead_settings();
std::span<const StrategySetting<RetryQuotaSettings>> retry_quota_settings();
std::span<const StrategySetting<AdaptiveThrottleSettings>> adaptive_throttle_settings();
std::span<const StrategySetting<AdaptiveRetryPolicy>> adaptive_retry_settings();
std::span<const StrategySetting<GradientLimitSettings>> concurrency_limit_settings();
std::span<const StrategySetting<HedgingDelaySettings>> hedging_delay_settings();
std::span<const StrategySetting<HedgeBudgetSettings>> hedge_budget_settings();

std::string_view to_string(HedgingDelayMode m);
/// Parses a hedging delay mode ("fixed", "observed_percentile"); false if unknown.
bool parse_hedging_delay_mode(std::string_view text, HedgingDelayMode& out);
std::vector<std::string> hedging_delay_mode_names();
std::string_view to_string(GradientHeadroom h);
/// Parses a headroom ("sqrt_previous_limit", "sqrt_scaled_limit"); false if unknown.
bool parse_gradient_headroom(std::string_view text, GradientHeadroom& out);
std::vector<std::string> gradient_headroom_names();

/// A setting of struct `S` whose value is one of a few names (a hedging delay's mode, a
/// gradient limit's headroom).
template <class S>
struct ChoiceSetting {
  const char* key;
  std::vector<std::string> (*names)();
  std::string_view (*get)(const S&);
  bool (*set)(S&, std::string_view);  ///< false for a name it does not know
  Prose does;
  const char* source;
};
/// The choice settings of each settings struct, written after its numbers; none for most.
template <class S>
std::span<const ChoiceSetting<S>> choice_settings(const S*) {
  return {};
}
std::span<const ChoiceSetting<GradientLimitSettings>> choice_settings(const GradientLimitSettings*);
std::span<const ChoiceSetting<HedgingDelaySettings>> choice_settings(const HedgingDelaySettings*);

/// Calls f(prefix, group, table) for each settings struct of strategy `s` in `o` (`O` is
/// OverloadStrategies, const or not): prefix "" for a strategy whose settings are flat,
/// "delay." and "budget." for hedging's two objects; `group` the struct, `table` its numeric
/// settings (its choices: choice_settings(&group)). Nothing for a strategy without such
/// settings (the course's, whose fields are RetryPolicy's). The one place a strategy is tied
/// to its settings struct: the JSON reader and writer, validate() and GET / go through it.
template <class O, class F>
void visit_settings(Strategy s, O& o, F&& f) {
  switch (s) {
    case Strategy::bulkhead: return f(std::string(), o.bulkhead, bulkhead_settings());
    case Strategy::retry_quota: return f(std::string(), o.retry_quota, retry_quota_settings());
    case Strategy::adaptive_throttle: return f(std::string(), o.adaptive_throttle, adaptive_throttle_settings());
    case Strategy::adaptive_retry: return f(std::string(), o.adaptive_retry, adaptive_retry_settings());
    case Strategy::concurrency_limit: return f(std::string(), o.concurrency_limit, concurrency_limit_settings());
    case Strategy::hedging:
      f(std::string("delay."), o.hedging.delay, hedging_delay_settings());
      return f(std::string("budget."), o.hedging.budget, hedge_budget_settings());
    default: return;
  }
}

/// Appends "NAME must be between LO and HI (got V)" when v is outside [lo, hi] or NaN;
/// whole numbers are shown without a decimal point.
void check_range(std::vector<std::string>& errors, const std::string& name, double v, double lo, double hi);

/// Range problems of one strategy's settings, each "PREFIX" + the setting's sentence, e.g.
/// prefix "bulkhead." → "bulkhead.max_concurrent must be between 1 and 1000 (got 0)"; the
/// ties between settings too (window_ms a multiple of buckets, min_concurrency ≤ initial_limit
/// ≤ max_limit, min_samples ≤ window_samples).
void validate(const BulkheadPolicy& s, const std::string& prefix, std::vector<std::string>& errors);
void validate(const RetryQuotaSettings& s, const std::string& prefix, std::vector<std::string>& errors);
void validate(const AdaptiveThrottleSettings& s, const std::string& prefix, std::vector<std::string>& errors);
void validate(const AdaptiveRetryPolicy& s, const std::string& prefix, std::vector<std::string>& errors);
void validate(const GradientLimitSettings& s, const std::string& prefix, std::vector<std::string>& errors);
void validate(const HedgingDelaySettings& s, const std::string& prefix, std::vector<std::string>& errors);
void validate(const HedgeBudgetSettings& s, const std::string& prefix, std::vector<std::string>& errors);

}  // namespace quote_lab
