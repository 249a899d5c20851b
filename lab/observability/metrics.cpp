#include "lab/observability/metrics.hpp"

#include <prometheus/gauge.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <mutex>
#include <nlohmann/json.hpp>

namespace quote_lab {
namespace {

constexpr QuoteStatus kStatuses[] = {QuoteStatus::completed, QuoteStatus::degraded, QuoteStatus::failed};
constexpr AttemptOutcome kOutcomes[] = {AttemptOutcome::success, AttemptOutcome::timeout,
                                        AttemptOutcome::error, AttemptOutcome::short_circuit};
constexpr BreakerState kStates[] = {BreakerState::closed, BreakerState::open, BreakerState::half_open};
constexpr const char* kUpstream = "carrier";

// A family with one unlabelled sample, built at collection time from a snapshot.
prometheus::MetricFamily single(const char* name, const char* help, prometheus::MetricType type, double value) {
  prometheus::ClientMetric m;
  if (type == prometheus::MetricType::Counter) m.counter.value = value;
  else m.gauge.value = value;
  return {name, help, type, {m}};
}

// A counter family with one sample per entry of `counts`, labelled `label`=its key.
prometheus::MetricFamily counted_by(const char* name, const char* help, const char* label,
                                   const std::map<std::string, std::uint64_t>& counts) {
  prometheus::MetricFamily family{name, help, prometheus::MetricType::Counter, {}};
  for (const auto& [key, n] : counts) {
    prometheus::ClientMetric m;
    m.label = {{label, key}};
    m.counter.value = static_cast<double>(n);
    family.metric.push_back(m);
  }
  return family;
}

// Registers one counter family in `registry`; the series are added by the caller.
prometheus::Family<prometheus::Counter>& counter_family(prometheus::Registry& registry, const char* name,
                                                        const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
}

// A counter family whose series are added on first use: their labels come from bounded sets
// (reasons, routes, status codes), most never seen. The caller's mutex guards `series`.
template <typename Key>
struct LazyCounters {
  prometheus::Family<prometheus::Counter>* family = nullptr;
  std::map<Key, prometheus::Counter*> series;

  // Adds the series of `key` at 0 (before the family is shared: no lock).
  void add(const Key& key, const std::map<std::string, std::string>& labels) {
    if (!series.count(key)) series[key] = &family->Add(labels);
  }

  // Increments the series of `key`, adding it to the family with `labels` the first time
  // (only the first use of each pays for the lookup under the write lock).
  void increment(std::shared_mutex& mutex, const Key& key, const std::map<std::string, std::string>& labels) {
    {
      std::shared_lock read(mutex);
      if (const auto it = series.find(key); it != series.end()) {
        it->second->Increment();
        return;
      }
    }
    std::unique_lock write(mutex);
    auto [it, inserted] = series.try_emplace(key, nullptr);
    if (inserted) it->second = &family->Add(labels);
    it->second->Increment();
  }
};

// Counters by (policy, reason): the retries skipped and the calls an overload strategy refused.
using ReasonCounters = LazyCounters<std::pair<std::string, Reason>>;

std::map<std::string, std::string> reason_labels(const std::string& mode, Reason reason) {
  return {{"mode", mode}, {"reason", std::string(to_string(reason))}};
}

void count_reason(ReasonCounters& counters, std::shared_mutex& mutex, const std::string& mode, Reason reason) {
  counters.increment(mutex, {mode, reason}, reason_labels(mode, reason));
}

// The hedging steps and their `outcome` label: sent (a second call went), won (it answered
// first), skipped (kept back: the budget, or a half-open probe).
constexpr std::pair<Step, const char*> kHedgeOutcomes[] = {
    {Step::hedge, "sent"}, {Step::hedge_won, "won"}, {Step::hedge_skipped, "skipped"}};

// The `outcome` of a hedging step; null for any other step.
const char* hedge_outcome(Step step) {
  for (const auto& [s, outcome] : kHedgeOutcomes)
    if (s == step) return outcome;
  return nullptr;
}

}  // namespace

const std::vector<double>& quote_duration_buckets_s() {
  // Bounds sit where the course's answers land, so histogram_quantile reads them back
  // (Prometheus interpolates linearly inside a bucket: a wide bucket blurs every answer in
  // it). Measured with the default policies (docs/grafana.md):
  //   4–10 µs     a short circuit (breaker open, fallback from memory), by machine load:
  //               steps of ×2–2.5 from 1 µs to 1 ms
  //   115–150 ms  ok, one attempt
  //   220–235 ms  resilient, one timed-out attempt (the half-open probe)
  //   360–370 ms  legacy, one timed-out attempt
  //   535–600 ms  resilient, 2 × 220 ms + 80 ms backoff + 15–45 ms jitter
  //   1.44–1.58 s legacy, 4 × 360 ms: narrow buckets, so identical answers read as
  //               themselves at p50 and p99 instead of anywhere between 1 and 1.5 s
  // Nothing lands between 1 and 100 ms, or between 2 and 10 s: one bound each. 28 bounds in
  // all, each one series per (mode, scenario).
  static const std::vector<double> buckets{
      0.000001, 0.0000025, 0.000005, 0.00001, 0.000025,  // short circuits
      0.00005,  0.0001,    0.00025,  0.0005,  0.001,     //
      0.01,     0.1,       0.15,                         // ok
      0.2,      0.24,                                    // 220 ms
      0.34,     0.38,                                    // 360 ms
      0.45,     0.52,      0.6,                          // flaky; 550 ms
      0.75,     1.0,                                     // burst, legacy ~0.9 s
      1.42,     1.46,      1.5,      1.6,                // 1.44 s
      2.0,      10.0};
  return buckets;
}

struct Metrics::Series {
  prometheus::Registry registry;
  // Keyed by the policy's name (QuoteRequest::mode): a bounded set, the policies file's.
  std::map<std::tuple<std::string, std::string, QuoteStatus>, prometheus::Counter*> requests;
  std::map<std::pair<std::string, std::string>, prometheus::Histogram*> duration;
  std::map<std::pair<std::string, AttemptOutcome>, prometheus::Counter*> attempts;
  std::map<std::string, prometheus::Counter*> retries;
  std::map<std::string, prometheus::Counter*> fallbacks;
  std::map<std::string, prometheus::Counter*> cancelled;
  std::map<std::pair<BreakerState, BreakerState>, prometheus::Counter*> transitions;
  // Added on first use (LazyCounters); http_mutex guards their series.
  ReasonCounters skipped;
  ReasonCounters rejected;
  LazyCounters<std::pair<std::string, Step>> hedges;
  LazyCounters<std::pair<std::string, int>> http;  // by route and status code
  LazyCounters<std::string> rate_limited;          // by route
  std::shared_mutex http_mutex;

  Series(const std::vector<std::string>& scenarios, const std::vector<std::string>& modes,
         const Metrics::Pipelines& pipelines) {
    auto& req = counter_family(registry, "quote_lab_quote_requests_total",
                               "Quote requests answered by the lab, by mode, scenario and final status "
                               "(completed = live quote, degraded = fallback quote, failed = 503).");
    auto& dur = prometheus::BuildHistogram()
                    .Name("quote_lab_quote_duration_seconds")
                    .Help("Time the lab took to answer one quote request, retries and backoff "
                          "included, in seconds.")
                    .Register(registry);
    auto& att = counter_family(registry, "quote_lab_carrier_attempts_total",
                               "Attempts to call the carrier by mode and outcome; short_circuit = "
                               "the circuit breaker refused the call, so it never left the lab.");
    auto& ret = counter_family(registry, "quote_lab_retries_total",
                               "Carrier calls that were retries of an earlier failed attempt.");
    auto& fb = counter_family(registry, "quote_lab_fallbacks_total",
                              "Quote requests answered with the cached fallback quote.");
    auto& cancel = counter_family(registry, "quote_lab_quotes_cancelled_total",
                                  "Quote flows stopped because their client left (in a queue, a wait or an "
                                  "attempt): no further call to the carrier, no fallback.");
    auto& tr = counter_family(registry, "quote_lab_breaker_transitions_total",
                              "Circuit breaker state changes, from one state to another.");
    http.family = &counter_family(registry, "quote_lab_http_requests_total",
                           "HTTP requests the lab answered, by route template and status code.");
    rate_limited.family = &counter_family(registry, "quote_lab_rate_limited_total",
                                   "Quote requests refused with a 429 by the per-client rate limit "
                                   "(--rate-limit), by route template.");
    skipped.family = &counter_family(registry, "quote_lab_retries_skipped_total",
                              "Retries a quote flow did not make, by mode and reason (retry_budget, " +
                                  strategy_reasons(&StrategySteps::retry_skipped) +
                                  ", deadline, not_retryable, circuit_open, ...).");
    rejected.family = &counter_family(registry, "quote_lab_overload_rejections_total",
                               "Carrier calls an overload strategy refused before they left the lab, by mode "
                               "and reason (" + strategy_reasons(&StrategySteps::rejected) + ").");
    hedges.family = &counter_family(registry, "quote_lab_hedges_total",
                             "Hedged calls by mode and outcome: sent (a second call went to the carrier), won (it "
                             "answered first), skipped (the hedge budget kept it back, or the call was the half-open probe).");
    for (const std::string& m : modes) {
      const std::string& mode = m;
      for (const auto& s : scenarios) {
        for (auto st : kStatuses)
          requests[{m, s, st}] =
              &req.Add({{"mode", mode}, {"scenario", s}, {"status", std::string(to_string(st))}});
        duration[{m, s}] =
            &dur.Add({{"mode", mode}, {"scenario", s}}, quote_duration_buckets_s());
      }
      for (auto o : kOutcomes)
        attempts[{m, o}] = &att.Add({{"mode", mode}, {"outcome", std::string(to_string(o))}});
      retries[m] = &ret.Add({{"mode", mode}});
      fallbacks[m] = &fb.Add({{"mode", mode}});
      cancelled[m] = &cancel.Add({{"mode", mode}});
    }
    for (const auto& [mode, strategies] : pipelines) {
      if (!retries.count(mode)) continue;  // a mode outside the bounded set is not counted
      for (const Strategy strategy : strategies) {
        const StrategySteps own = steps_of(strategy);
        if (own.rejected) rejected.add({mode, *own.rejected}, reason_labels(mode, *own.rejected));
        if (own.retry_skipped) skipped.add({mode, *own.retry_skipped}, reason_labels(mode, *own.retry_skipped));
        if (own.hedges)
          for (const auto& [step, outcome] : kHedgeOutcomes) hedges.add({mode, step}, {{"mode", mode}, {"outcome", outcome}});
      }
    }
    for (auto from : kStates)
      for (auto to : kStates)
        if (from != to)
          transitions[{from, to}] = &tr.Add({{"upstream", kUpstream},
                                             {"from", std::string(to_string(from))},
                                             {"to", std::string(to_string(to))}});
  }
};

Metrics::Metrics(std::vector<std::string> scenarios, std::vector<std::string> routes,
                 std::vector<std::string> modes, Pipelines pipelines)
    : scenarios_(std::move(scenarios)), routes_(std::move(routes)), modes_(std::move(modes)),
      pipelines_(std::move(pipelines)), series_(std::make_unique<Series>(scenarios_, modes_, pipelines_)) {
  routes_.push_back("other");
}

Metrics::~Metrics() = default;

void Metrics::record(const QuoteTrace& t) {
  std::shared_lock lock(mutex_);
  auto& s = *series_;
  const std::string& mode = t.request.mode;
  if (auto it = s.requests.find({mode, t.request.scenario, t.status}); it != s.requests.end())
    it->second->Increment();
  if (auto it = s.duration.find({mode, t.request.scenario}); it != s.duration.end())
    it->second->Observe(t.elapsed_ms / 1000.0);
  for (auto o : t.outcomes())
    if (auto it = s.attempts.find({mode, o}); it != s.attempts.end()) it->second->Increment();
  if (auto it = s.retries.find(mode); it != s.retries.end()) it->second->Increment(t.retries());
  if (t.fallback_used())
    if (auto it = s.fallbacks.find(mode); it != s.fallbacks.end()) it->second->Increment();
  if (t.cancelled())
    if (auto it = s.cancelled.find(mode); it != s.cancelled.end()) it->second->Increment();
  if (!s.retries.count(mode)) return;  // a mode outside the bounded set is not counted
  for (const auto& e : t.events) {
    if (e.step == Step::retry_skipped && e.reason) count_reason(s.skipped, s.http_mutex, mode, *e.reason);
    if (e.step == Step::rejected && e.reason) count_reason(s.rejected, s.http_mutex, mode, *e.reason);
    if (const char* outcome = hedge_outcome(e.step))
      s.hedges.increment(s.http_mutex, {mode, e.step}, {{"mode", mode}, {"outcome", outcome}});
  }
}

void Metrics::record_transition(const BreakerTransition& t) {
  std::shared_lock lock(mutex_);
  if (auto it = series_->transitions.find({t.from, t.to}); it != series_->transitions.end())
    it->second->Increment();
}


std::string Metrics::route_label(const std::string& route) const {
  return std::find(routes_.begin(), routes_.end(), route) != routes_.end() ? route : "other";
}

void Metrics::record_http(const std::string& route, int code) {
  const std::string label = route_label(route);
  // Status codes outside 100–599 never come from httplib; clamp anyway to keep the set bounded.
  code = std::clamp(code, 100, 599);
  std::shared_lock lock(mutex_);
  auto& s = *series_;
  s.http.increment(s.http_mutex, {label, code}, {{"route", label}, {"code", std::to_string(code)}});
}

void Metrics::record_rate_limited(const std::string& route) {
  const std::string label = route_label(route);
  std::shared_lock lock(mutex_);
  auto& s = *series_;
  s.rate_limited.increment(s.http_mutex, label, {{"route", label}});
}

void Metrics::add_state_backend(std::vector<prometheus::MetricFamily>& families, bool up, std::uint64_t errors) {
  families.push_back(single("quote_lab_state_backend_up",
                            "1 while the shared state backend (Redis) answers; 0 while each replica decides alone.",
                            prometheus::MetricType::Gauge, up ? 1 : 0));
  families.push_back(single("quote_lab_state_backend_errors_total",
                            "Failed round trips and reconnects to the shared state backend.",
                            prometheus::MetricType::Counter, static_cast<double>(errors)));
}

std::vector<prometheus::MetricFamily> Metrics::collect(
    const BreakerSnapshot& breaker, const std::optional<CarrierStats>& carrier) const {
  std::vector<prometheus::MetricFamily> families;
  {
    std::shared_lock lock(mutex_);
    families = series_->registry.Collect();
  }
  prometheus::MetricFamily state{"quote_lab_breaker_state",
                                 "Circuit breaker state of each upstream: 1 for the current "
                                 "state, 0 for the others.",
                                 prometheus::MetricType::Gauge,
                                 {}};
  for (auto s : kStates) {
    prometheus::ClientMetric m;
    m.label = {{"state", std::string(to_string(s))}, {"upstream", kUpstream}};
    m.gauge.value = breaker.state == s ? 1 : 0;
    state.metric.push_back(m);
  }
  families.push_back(state);
  if (carrier) {
    families.push_back(counted_by("quote_lab_carrier_calls_total",
                                  "Calls the simulated carrier received, by scenario (retries "
                                  "included: compare with quote requests to see amplification).",
                                  "scenario", carrier->calls_by_scenario));
    families.push_back(single("quote_lab_carrier_in_flight", "Calls the simulated carrier is serving right now.",
                              prometheus::MetricType::Gauge, carrier->in_flight));
    families.push_back(single("quote_lab_carrier_peak_in_flight",
                              "Most calls the simulated carrier served at once since start or reset.",
                              prometheus::MetricType::Gauge, carrier->peak_in_flight));
    families.push_back(single("quote_lab_carrier_wasted_calls_total",
                              "Calls the carrier finished after the caller had already given up (timed out): wasted work.",
                              prometheus::MetricType::Counter, static_cast<double>(carrier->wasted_calls)));
    families.push_back(single("quote_lab_carrier_wasted_seconds_total",
                              "Carrier time, in seconds, spent on calls whose caller had already given up.",
                              prometheus::MetricType::Counter, carrier->wasted_seconds));
    families.push_back(counted_by("quote_lab_carrier_shed_calls_total",
                                  "Calls a carrier that sheds load answered with a 503 instead of serving, by "
                                  "reason (queue_full, codel, priority, workers_busy).",
                                  "reason", carrier->shed_calls));
    families.push_back(single("quote_lab_carrier_queued_calls",
                              "Calls waiting now in the queues of carriers that shed load, every lab's.",
                              prometheus::MetricType::Gauge, carrier->queued));
  }
  return families;
}

std::string Metrics::to_text(const std::vector<prometheus::MetricFamily>& families) {
  return prometheus::TextSerializer().Serialize(families);
}

nlohmann::ordered_json Metrics::to_json(const std::vector<prometheus::MetricFamily>& families) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& f : families) {
    nlohmann::ordered_json samples = nlohmann::ordered_json::array();
    for (const auto& m : f.metric) {
      nlohmann::ordered_json labels = nlohmann::ordered_json::object();
      for (const auto& l : m.label) labels[l.name] = l.value;
      nlohmann::ordered_json sample = {{"labels", labels}};
      switch (f.type) {
        case prometheus::MetricType::Counter: sample["value"] = m.counter.value; break;
        case prometheus::MetricType::Gauge: sample["value"] = m.gauge.value; break;
        case prometheus::MetricType::Histogram: {
          sample["count"] = m.histogram.sample_count;
          sample["sum"] = m.histogram.sample_sum;
          nlohmann::ordered_json buckets = nlohmann::ordered_json::array();
          for (const auto& b : m.histogram.bucket)
            buckets.push_back({{"le", std::isinf(b.upper_bound) ? nlohmann::ordered_json("+Inf")
                                                                 : nlohmann::ordered_json(b.upper_bound)},
                               {"count", b.cumulative_count}});
          sample["buckets"] = buckets;
          break;
        }
        default: sample["value"] = m.untyped.value; break;
      }
      samples.push_back(sample);
    }
    const char* type = f.type == prometheus::MetricType::Counter     ? "counter"
                       : f.type == prometheus::MetricType::Gauge     ? "gauge"
                       : f.type == prometheus::MetricType::Histogram ? "histogram"
                                                                     : "untyped";
    out.push_back({{"name", f.name}, {"help", f.help}, {"type", type}, {"samples", samples}});
  }
  return out;
}

void Metrics::reset() {
  auto fresh = std::make_unique<Series>(scenarios_, modes_, pipelines_);
  std::unique_lock lock(mutex_);
  series_.swap(fresh);
}

}  // namespace quote_lab
