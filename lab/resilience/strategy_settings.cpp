#include "lab/resilience/strategy_settings.hpp"

#include <cmath>
#include <sstream>

#include "lab/base/name_table.hpp"
#include "lab/resilience/policy.hpp"

namespace quote_lab {
namespace {

template <class S>
constexpr StrategySetting<S> int_setting(const char* key, int S::*member, int lo, int hi, Prose does,
                                         const char* source) {
  return {key, member, nullptr, static_cast<double>(lo), static_cast<double>(hi), does, source};
}
template <class S>
constexpr StrategySetting<S> number_setting(const char* key, double S::*member, double lo, double hi, Prose does,
                                            const char* source) {
  return {key, nullptr, member, lo, hi, does, source};
}

const StrategySetting<BulkheadPolicy> kBulkhead[] = {
    int_setting("max_concurrent", &BulkheadPolicy::max_concurrent, 1, 1000,
                {"cotizaciones de la política dentro a la vez, en este laboratorio",
                 "quotes of the policy inside at once, in this lab"},
                "quote-lab"),
    int_setting("max_queued", &BulkheadPolicy::max_queued, 0, 1000,
                {"cotizaciones que esperan un lugar en la cola", "quotes waiting in the queue for a place"},
                "Polly v8 ConcurrencyLimiter QueueLimit"),
    int_setting("queue_timeout_ms", &BulkheadPolicy::queue_timeout_ms, 0, 5000,
                {"lo más que espera en la cola una cotización (ms)", "the longest a queued quote waits (ms)"},
                "quote-lab"),
};

const StrategySetting<RetryQuotaSettings> kRetryQuota[] = {
    int_setting("capacity", &RetryQuotaSettings::capacity, 0, 100000,
                {"unidades de la cuota al empezar, y su máximo", "the quota's units at the start, and its most"},
                "botocore retries/quota.py"),
    int_setting("retry_cost", &RetryQuotaSettings::retry_cost, 0, 100000,
                {"lo que paga cada reintento", "what each retry pays"}, "botocore retries/standard.py"),
    int_setting("timeout_retry_cost", &RetryQuotaSettings::timeout_retry_cost, 0, 100000,
                {"lo que paga un reintento tras un tiempo límite agotado",
                 "what a retry after a timeout pays"},
                "botocore retries/standard.py"),
    int_setting("no_retry_increment", &RetryQuotaSettings::no_retry_increment, 0, 100000,
                {"lo que devuelve una respuesta correcta al primer intento",
                 "what a successful answer at the first attempt gives back"},
                "botocore retries/standard.py"),
};

const StrategySetting<AdaptiveThrottleSettings> kAdaptiveThrottle[] = {
    number_setting("k", &AdaptiveThrottleSettings::k, 1, 10,
                   {"K: cuántas solicitudes por cada aceptada se dejan pasar antes de descartar",
                    "K: how many requests per accepted one go through before dropping"},
                   "go-zero core/breaker (Google SRE: 2)"),
    int_setting("window_ms", &AdaptiveThrottleSettings::window_ms, 1000, 600000,
                {"la ventana de la que se cuentan solicitudes y aceptadas (ms), múltiplo de `buckets`",
                 "the window requests and accepts are counted over (ms), a multiple of `buckets`"},
                "go-zero core/breaker"),
    int_setting("buckets", &AdaptiveThrottleSettings::buckets, 1, 1000,
                {"tramos de la ventana", "slices of the window"}, "go-zero core/breaker"),
    int_setting("protection", &AdaptiveThrottleSettings::protection, 0, 1000,
                {"solicitudes de la ventana que nunca se descartan", "requests in the window never dropped"},
                "go-zero core/breaker"),
};

const StrategySetting<AdaptiveRetryPolicy> kAdaptiveRetry[] = {
    int_setting("max_wait_ms", &AdaptiveRetryPolicy::max_wait_ms, 0, 5000,
                {"lo más que espera un intento su ficha (ms); más: rechazado",
                 "the longest an attempt waits for its token (ms); longer: refused"},
                "quote-lab"),
};

const StrategySetting<GradientLimitSettings> kConcurrencyLimit[] = {
    int_setting("initial_limit", &GradientLimitSettings::initial_limit, 1, 1000,
                {"el límite al empezar, entre min_concurrency y max_limit",
                 "the limit at the start, between min_concurrency and max_limit"},
                "Envoy adaptive_concurrency"),
    int_setting("max_limit", &GradientLimitSettings::max_limit, 1, 1000,
                {"el límite más alto", "the highest limit"}, "Envoy adaptive_concurrency"),
    int_setting("min_concurrency", &GradientLimitSettings::min_concurrency, 1, 1000,
                {"el límite mientras mide el RTT mínimo", "the limit while it measures the minimum RTT"}, "Envoy adaptive_concurrency"),
    int_setting("update_interval_ms", &GradientLimitSettings::update_interval_ms, 1, 60000,
                {"cada cuánto recalcula el límite (ms)", "how often the limit is recomputed (ms)"},
                "Envoy adaptive_concurrency (example)"),
    int_setting("min_rtt_interval_ms", &GradientLimitSettings::min_rtt_interval_ms, 100, 3600000,
                {"cada cuánto vuelve a medir el RTT mínimo (ms)", "how often the minimum RTT is measured again (ms)"},
                "Envoy adaptive_concurrency (example)"),
    // At most the samples a window keeps.
    int_setting("min_rtt_request_count", &GradientLimitSettings::min_rtt_request_count, 1,
                static_cast<int>(GradientLimitSettings::kMaxSamples),
                {"llamadas con que mide el RTT mínimo", "calls the minimum RTT is measured from"},
                "Envoy adaptive_concurrency"),
    number_setting("jitter_pct", &GradientLimitSettings::jitter_pct, 0, 100,
                   {"variación aleatoria del intervalo de medida (%)",
                    "random variation of the measuring interval (%)"},
                   "Envoy adaptive_concurrency"),
    number_setting("buffer_pct", &GradientLimitSettings::buffer_pct, 0, 100,
                   {"margen sobre el RTT mínimo que no baja el límite (%)",
                    "margin over the minimum RTT that does not lower the limit (%)"},
                   "Envoy adaptive_concurrency"),
    number_setting("sample_percentile", &GradientLimitSettings::sample_percentile, 0, 100,
                   {"percentil de los RTT medidos que se compara con el mínimo",
                    "percentile of the sampled RTTs compared with the minimum"},
                   "Envoy adaptive_concurrency"),
};

const StrategySetting<HedgingDelaySettings> kHedgingDelay[] = {
    int_setting("fixed_delay_ms", &HedgingDelaySettings::fixed_delay_ms, 0, 10000,
                {"espera antes de la llamada de cobertura (ms), fija o hasta tener min_samples",
                 "wait before the hedged call (ms), fixed or until min_samples are seen"},
                "quote-lab: p90 (tail_latency)"),
    number_setting("percentile", &HedgingDelaySettings::percentile, 0, 100,
                   {"percentil de las latencias observadas que se espera",
                    "percentile of the observed latencies waited"},
                   "Dean, Barroso, 'The Tail at Scale'"),
    int_setting("window_samples", &HedgingDelaySettings::window_samples, 1, 10000,
                {"latencias recientes que se guardan", "recent latencies kept"}, "quote-lab"),
    int_setting("min_samples", &HedgingDelaySettings::min_samples, 1, 10000,
                {"latencias que hacen falta antes de usar el percentil, hasta window_samples",
                 "latencies needed before the percentile is used, up to window_samples"},
                "quote-lab"),
};

const StrategySetting<HedgeBudgetSettings> kHedgeBudget[] = {
    number_setting("share", &HedgeBudgetSettings::share, 0, 1,
                   {"coberturas por solicitud, como mucho", "hedges per request, at most"}, "quote-lab"),
    int_setting("min_per_s", &HedgeBudgetSettings::min_per_s, 0, 1000,
                {"coberturas por segundo que el presupuesto siempre permite",
                 "hedges per second the budget always allows"},
                "quote-lab"),
};

// The course's settings: their fields and ranges are RetryPolicy's and BreakerPolicy's
// (policy.hpp); these rows add what each sets and its source, in the file's order.
struct CourseSetting {
  Strategy strategy;
  const char* key;
  Prose does;
  const char* source;
};

const CourseSetting kCourse[] = {
    {Strategy::deadline, "deadline_ms",
     {"plazo total del flujo (ms), reintentos y esperas incluidos",
      "total deadline of the flow (ms), retries and waits included"},
     "gRPC A6"},
    {Strategy::retry, "max_attempts",
     {"intentos como máximo, el primero incluido", "attempts at most, the first included"},
     "SPEC"},
    {Strategy::retry, "backoff_base_ms",
     {"espera base entre reintentos (ms), que se duplica en cada uno",
      "backoff base between retries (ms), doubled on each"},
     "SPEC"},
    {Strategy::retry, "backoff_max_ms",
     {"tope de cada espera entre reintentos (ms), variación incluida", "cap on every backoff (ms), jitter included"},
     "quote-lab"},
    {Strategy::retry, "jitter", {"variación aleatoria de la espera", "how the backoff is jittered"},
     "AWS Architecture Blog, 'Exponential Backoff And Jitter'; SPEC"},
    {Strategy::retry, "jitter_min_ms",
     {"variación sumada más pequeña (ms), con additive", "smallest added jitter (ms), with additive"}, "SPEC"},
    {Strategy::retry, "jitter_max_ms",
     {"variación sumada más grande (ms), con additive", "largest added jitter (ms), with additive"}, "SPEC"},
    {Strategy::retry, "retry_on", {"los fallos que se reintentan", "the failures that are retried"},
     "ADR-0005"},
    {Strategy::retry, "retry_budget_ratio",
     {"presupuesto de reintentos: reintentos por solicitud; null, sin presupuesto",
      "retry budget: retries per request; null, no budget"},
     "Finagle RetryBudget"},
    {Strategy::retry, "retry_budget_min_per_s",
     {"reintentos por segundo que el presupuesto siempre permite", "retries per second the budget always allows"},
     "Finagle RetryBudget"},
    {Strategy::retry, "idempotency_key",
     {"clave de idempotencia que recibe el proveedor", "the idempotency key the carrier gets"},
     "SPEC"},
    {Strategy::circuit_breaker, "failure_threshold",
     {"fallos seguidos que abren el disyuntor propio de la política",
      "failures in a row that open the policy's own circuit breaker"},
     "SPEC"},
    {Strategy::circuit_breaker, "open_duration_s",
     {"segundos que el disyuntor propio queda abierto", "seconds the policy's own circuit breaker stays open"},
     "SPEC"},
    {Strategy::timeout, "timeout_ms", {"tiempo límite de cada intento (ms)", "timeout of each attempt (ms)"},
     "SPEC"},
};

// The range and kind of course setting `key`: RetryPolicy's integer fields, its choices and
// its ratio, BreakerPolicy's two.
SettingAbout course_about(const CourseSetting& c) {
  SettingAbout a{.key = c.key, .does = c.does, .source = c.source};
  const std::string_view key = c.key;
  for (const RetryIntField& f : retry_int_fields())
    if (key == f.key) a.lo = f.lo, a.hi = f.hi, a.integer = true;
  if (key == "deadline_ms") a.lo = 1;  // listed means there is one
  if (key == "jitter") a.choices = jitter_names();
  if (key == "retry_on") a.choices = retry_on_all_names();
  if (key == "idempotency_key") a.choices = idempotency_key_names();
  if (key == "retry_budget_ratio") a.hi = 1;
  if (key == "failure_threshold") a.lo = kFailureThresholdMin, a.hi = kFailureThresholdMax, a.integer = true;
  if (key == "open_duration_s") a.lo = kOpenDurationSMin, a.hi = kOpenDurationSMax;
  return a;
}

template <class S>
void add_table(std::vector<SettingAbout>& out, std::span<const StrategySetting<S>> table, const std::string& prefix) {
  for (const auto& f : table)
    out.push_back({.key = prefix + f.key, .lo = f.lo, .hi = f.hi, .integer = f.int_member != nullptr, .does = f.does,
                   .source = f.source});
}

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

std::span<const ChoiceSetting<GradientLimitSettings>> choice_settings(const GradientLimitSettings*) {
  static const ChoiceSetting<GradientLimitSettings> kChoices[] = {
      {"headroom", gradient_headroom_names, [](const GradientLimitSettings& g) { return to_string(g.headroom); },
       [](GradientLimitSettings& g, std::string_view text) { return parse_gradient_headroom(text, g.headroom); },
       {"margen que se suma al límite calculado", "headroom added to the computed limit"},
       "Envoy adaptive_concurrency (docs: sqrt_previous_limit; code: sqrt_scaled_limit)"},
  };
  return kChoices;
}

std::span<const ChoiceSetting<HedgingDelaySettings>> choice_settings(const HedgingDelaySettings*) {
  static const ChoiceSetting<HedgingDelaySettings> kChoices[] = {
      {"mode", hedging_delay_mode_names, [](const HedgingDelaySettings& d) { return to_string(d.mode); },
       [](HedgingDelaySettings& d, std::string_view text) { return parse_hedging_delay_mode(text, d.mode); },
       {"espera fija, o el percentil de las latencias observadas",
        "a fixed wait, or the percentile of the observed latencies"},
       "Dean, Barroso, 'The Tail at Scale'; gRPC A6 hedgingDelay"},
  };
  return kChoices;
}

std::vector<SettingAbout> settings_about(Strategy s) {
  std::vector<SettingAbout> out;
  for (const CourseSetting& c : kCourse)
    if (c.strategy == s) out.push_back(course_about(c));
  const OverloadStrategies defaults;
  visit_settings(s, defaults, [&out](const std::string& prefix, const auto& group, auto table) {
    add_table(out, table, prefix);
    for (const auto& c : choice_settings(&group))
      out.push_back({.key = prefix + c.key, .choices = c.names(), .does = c.does, .source = c.source});
  });
  return out;
}

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


}  // namespace quote_lab
