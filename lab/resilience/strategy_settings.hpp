#pragma once
// The settings each overload strategy of a pipeline takes in a policy (pipeline.hpp), with
// the range the policies file accepts for each: one table per strategy, read by the JSON
// reader and writer (formats/pipeline_json.hpp) and by validate() (policy.hpp), so the file,
// the index and the check can never disagree on a name or a bound. Each range lies inside
// what the strategy's class accepts (its constructor would throw outside it) and is bounded
// above by what one lab can use. Standard library only.
//
//   strategy           setting                 range            source of the default
//   bulkhead           max_concurrent          1–1000           the lab's: 4
//                      max_queued              0–1000           Polly v8 ConcurrencyLimiter QueueLimit: 0
//                      queue_timeout_ms        0–5000           the lab's: 0 (no wait)
//   retry_quota        capacity                0–100000         botocore 500
//                      retry_cost              0–100000         botocore 5
//                      timeout_retry_cost      0–100000         botocore 10
//                      no_retry_increment      0–100000         botocore 1
//   adaptive_throttle  k                       1–10             go-zero 1.5 (SRE book: 2)
//                      window_ms               1000–600000, a multiple of buckets   go-zero 10 s
//                      buckets                 1–1000           go-zero 40
//                      protection              0–1000           go-zero 5
//   adaptive_retry     max_wait_ms             0–5000           the lab's: 1000
//   concurrency_limit  initial_limit           min_concurrency–max_limit            Envoy: min_concurrency
//                      max_limit               1–1000, ≥ min_concurrency            Envoy 1000
//                      min_concurrency         1–1000           Envoy 3
//                      update_interval_ms      1–60000          Envoy's example 100 ms
//                      min_rtt_interval_ms     100–3600000      Envoy's example 60 s
//                      min_rtt_request_count   1–10000          Envoy 50 (10000: the samples a window keeps)
//                      jitter_pct              0–100            Envoy 15
//                      buffer_pct              0–100            Envoy 25
//                      sample_percentile       0–100            Envoy 50
//                      headroom                sqrt_previous_limit | sqrt_scaled_limit (Envoy's docs | Envoy's code)
//   hedging.delay      mode                    fixed | observed_percentile
//                      fixed_delay_ms          0–10000          the tail_latency carrier's p90: 300
//                      percentile              0–100            The Tail at Scale: 95
//                      window_samples          1–10000          the lab's: 200
//                      min_samples             1–window_samples the lab's: 20
//   hedging.budget     share                   0–1              the lab's: 0.1
//                      min_per_s               0–1000           the lab's: 1

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
};

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
/// Prefix "hedging." → "hedging.delay.percentile ...", "hedging.budget.share ...".
void validate(const HedgingPolicy& s, const std::string& prefix, std::vector<std::string>& errors);

}  // namespace quote_lab
