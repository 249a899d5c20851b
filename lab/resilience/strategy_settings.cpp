#include "lab/resilience/strategy_settings.hpp"

#include <cmath>
#include <sstream>

#include "lab/base/name_table.hpp"

namespace quote_lab {
namespace {

template <class S>
constexpr StrategySetting<S> int_setting(const char* key, int S::*member, int lo, int hi) {
  return {key, member, nullptr, static_cast<double>(lo), static_cast<double>(hi)};
}
template <class S>
constexpr StrategySetting<S> number_setting(const char* key, double S::*member, double lo, double hi) {
  return {key, nullptr, member, lo, hi};
}

const StrategySetting<BulkheadPolicy> kBulkhead[] = {
    int_setting("max_concurrent", &BulkheadPolicy::max_concurrent, 1, 1000),
    int_setting("max_queued", &BulkheadPolicy::max_queued, 0, 1000),
    int_setting("queue_timeout_ms", &BulkheadPolicy::queue_timeout_ms, 0, 5000),
};

const StrategySetting<RetryQuotaSettings> kRetryQuota[] = {
    int_setting("capacity", &RetryQuotaSettings::capacity, 0, 100000),
    int_setting("retry_cost", &RetryQuotaSettings::retry_cost, 0, 100000),
    int_setting("timeout_retry_cost", &RetryQuotaSettings::timeout_retry_cost, 0, 100000),
    int_setting("no_retry_increment", &RetryQuotaSettings::no_retry_increment, 0, 100000),
};

const StrategySetting<AdaptiveThrottleSettings> kAdaptiveThrottle[] = {
    number_setting("k", &AdaptiveThrottleSettings::k, 1, 10),
    int_setting("window_ms", &AdaptiveThrottleSettings::window_ms, 1000, 600000),
    int_setting("buckets", &AdaptiveThrottleSettings::buckets, 1, 1000),
    int_setting("protection", &AdaptiveThrottleSettings::protection, 0, 1000),
};

const StrategySetting<AdaptiveRetryPolicy> kAdaptiveRetry[] = {
    int_setting("max_wait_ms", &AdaptiveRetryPolicy::max_wait_ms, 0, 5000),
};

const StrategySetting<GradientLimitSettings> kConcurrencyLimit[] = {
    int_setting("initial_limit", &GradientLimitSettings::initial_limit, 1, 1000),
    int_setting("max_limit", &GradientLimitSettings::max_limit, 1, 1000),
    int_setting("min_concurrency", &GradientLimitSettings::min_concurrency, 1, 1000),
    int_setting("update_interval_ms", &GradientLimitSettings::update_interval_ms, 1, 60000),
    int_setting("min_rtt_interval_ms", &GradientLimitSettings::min_rtt_interval_ms, 100, 3600000),
    int_setting("min_rtt_request_count", &GradientLimitSettings::min_rtt_request_count, 1,
                static_cast<int>(GradientLimitSettings::kMaxSamples)),
    number_setting("jitter_pct", &GradientLimitSettings::jitter_pct, 0, 100),
    number_setting("buffer_pct", &GradientLimitSettings::buffer_pct, 0, 100),
    number_setting("sample_percentile", &GradientLimitSettings::sample_percentile, 0, 100),
};

const StrategySetting<HedgingDelaySettings> kHedgingDelay[] = {
    int_setting("fixed_delay_ms", &HedgingDelaySettings::fixed_delay_ms, 0, 10000),
    number_setting("percentile", &HedgingDelaySettings::percentile, 0, 100),
    int_setting("window_samples", &HedgingDelaySettings::window_samples, 1, 10000),
    int_setting("min_samples", &HedgingDelaySettings::min_samples, 1, 10000),
};

const StrategySetting<HedgeBudgetSettings> kHedgeBudget[] = {
    number_setting("share", &HedgeBudgetSettings::share, 0, 1),
    int_setting("min_per_s", &HedgeBudgetSettings::min_per_s, 0, 1000),
};

constexpr NameTable<HedgingDelayMode, 2> kHedgingDelayModes{{{
    {HedgingDelayMode::fixed, "fixed"},
    {HedgingDelayMode::observed_percentile, "observed_percentile"},
}}};

constexpr NameTable<GradientHeadroom, 2> kHeadrooms{{{
    {GradientHeadroom::sqrt_previous_limit, "sqrt_previous_limit"},
    {GradientHeadroom::sqrt_scaled_limit, "sqrt_scaled_limit"},
}}};

template <class S>
void check_table(const S& s, std::span<const StrategySetting<S>> table, const std::string& prefix,
                 std::vector<std::string>& errors) {
  for (const auto& f : table) {
    const double v = f.int_member ? static_cast<double>(s.*f.int_member) : s.*f.number_member;
    check_range(errors, prefix + f.key, v, f.lo, f.hi);
  }
}

}  // namespace

std::span<const StrategySetting<BulkheadPolicy>> bulkhead_settings() { return kBulkhead; }
std::span<const StrategySetting<RetryQuotaSettings>> retry_quota_settings() { return kRetryQuota; }
std::span<const StrategySetting<AdaptiveThrottleSettings>> adaptive_throttle_settings() { return kAdaptiveThrottle; }
std::span<const StrategySetting<AdaptiveRetryPolicy>> adaptive_retry_settings() { return kAdaptiveRetry; }
std::span<const StrategySetting<GradientLimitSettings>> concurrency_limit_settings() { return kConcurrencyLimit; }
std::span<const StrategySetting<HedgingDelaySettings>> hedging_delay_settings() { return kHedgingDelay; }
std::span<const StrategySetting<HedgeBudgetSettings>> hedge_budget_settings() { return kHedgeBudget; }

std::string_view to_string(HedgingDelayMode m) { return kHedgingDelayModes.name(m); }
bool parse_hedging_delay_mode(std::string_view text, HedgingDelayMode& out) {
  return kHedgingDelayModes.parse_into(text, out);
}
std::vector<std::string> hedging_delay_mode_names() { return kHedgingDelayModes.names(); }
std::string_view to_string(GradientHeadroom h) { return kHeadrooms.name(h); }
bool parse_gradient_headroom(std::string_view text, GradientHeadroom& out) { return kHeadrooms.parse_into(text, out); }
std::vector<std::string> gradient_headroom_names() { return kHeadrooms.names(); }

void check_range(std::vector<std::string>& errors, const std::string& name, double v, double lo, double hi) {
  // whole numbers print as "1", not "1.0"
  auto show = [](double x) {
    if (x == std::floor(x) && std::abs(x) < 1e15) return std::to_string(static_cast<long long>(x));
    std::ostringstream out;
    out << x;
    return out.str();
  };
  if (!(v >= lo && v <= hi))  // also refuses NaN
    errors.push_back(name + " must be between " + show(lo) + " and " + show(hi) + " (got " + show(v) + ")");
}

void validate(const BulkheadPolicy& s, const std::string& prefix, std::vector<std::string>& errors) {
  check_table(s, bulkhead_settings(), prefix, errors);
}

void validate(const RetryQuotaSettings& s, const std::string& prefix, std::vector<std::string>& errors) {
  check_table(s, retry_quota_settings(), prefix, errors);
}

void validate(const AdaptiveThrottleSettings& s, const std::string& prefix, std::vector<std::string>& errors) {
  check_table(s, adaptive_throttle_settings(), prefix, errors);
  // Each bucket covers window_ms / buckets of steady time: a remainder would be a window
  // the throttle cannot hold.
  if (s.buckets >= 1 && s.window_ms % s.buckets != 0)
    errors.push_back(prefix + "window_ms must be a multiple of buckets (got " + std::to_string(s.window_ms) + " and " +
                     std::to_string(s.buckets) + ")");
}

void validate(const AdaptiveRetryPolicy& s, const std::string& prefix, std::vector<std::string>& errors) {
  check_table(s, adaptive_retry_settings(), prefix, errors);
}

void validate(const GradientLimitSettings& s, const std::string& prefix, std::vector<std::string>& errors) {
  check_table(s, concurrency_limit_settings(), prefix, errors);
  if (s.max_limit < s.min_concurrency)
    errors.push_back(prefix + "max_limit must not be below min_concurrency (got " + std::to_string(s.max_limit) +
                     " and " + std::to_string(s.min_concurrency) + ")");
  else if (s.initial_limit < s.min_concurrency || s.initial_limit > s.max_limit)
    errors.push_back(prefix + "initial_limit must be between min_concurrency and max_limit, " +
                     std::to_string(s.min_concurrency) + " and " + std::to_string(s.max_limit) + " (got " +
                     std::to_string(s.initial_limit) + ")");
}

void validate(const HedgingDelaySettings& s, const std::string& prefix, std::vector<std::string>& errors) {
  check_table(s, hedging_delay_settings(), prefix, errors);
  if (s.min_samples > s.window_samples)
    errors.push_back(prefix + "min_samples must not exceed window_samples (got " + std::to_string(s.min_samples) +
                     " and " + std::to_string(s.window_samples) + ")");
}

void validate(const HedgeBudgetSettings& s, const std::string& prefix, std::vector<std::string>& errors) {
  check_table(s, hedge_budget_settings(), prefix, errors);
}

void validate(const HedgingPolicy& s, const std::string& prefix, std::vector<std::string>& errors) {
  validate(s.delay, prefix + "delay.", errors);
  validate(s.budget, prefix + "budget.", errors);
}

}  // namespace quote_lab
