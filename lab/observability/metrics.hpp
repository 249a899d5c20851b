#pragma once
// Every Prometheus metric of the lab, declared in one place (SPEC.md, "Prometheus names"):
// prefix quote_lab_, base units (seconds), counters ending in _total, labels from bounded
// sets only (mode, canonical scenario, status, outcome, state, route template, code).
// Series are created up front and kept by reference: a labelled lookup costs ~300 ns,
// an increment ~10 ns (measured on prometheus-cpp 1.0.1, see docs/stack-notes.md).

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <shared_mutex>
#include <string>
#include <tuple>
#include <vector>

#include "lab/carrier/carrier_simulator.hpp"
#include "lab/resilience/breaker.hpp"
#include "lab/resilience/pipeline.hpp"
#include "lab/resilience/quote_trace.hpp"

namespace quote_lab {

/// Latency buckets in seconds, ascending: they resolve ~10 µs short circuits and the default
/// policies' own times (0.22, 0.36, 0.55 and 1.44 s) to a few percent through histogram_quantile.
const std::vector<double>& quote_duration_buckets_s();

class Metrics {
 public:
  /// `scenarios`: the canonical names (a bounded label set); `routes`: the route
  /// templates that label HTTP requests ("other" is added); `modes`: the policy names that
  /// label quote flows (legacy, resilient and the named policies; flows of any other
  /// mode are not counted); `pipelines`: each mode's strategies, whose own series
  /// (steps_of: refusals by reason, skipped retries by reason, hedges by outcome) exist
  /// from start at 0. Other reasons' series appear on first use.
  using Pipelines = std::map<std::string, std::vector<Strategy>>;
  Metrics(std::vector<std::string> scenarios, std::vector<std::string> routes,
          std::vector<std::string> modes = {"legacy", "resilient"}, Pipelines pipelines = {});
  ~Metrics();

  /// Counts one finished quote flow, and each retry it skipped in
  /// quote_lab_retries_skipped_total{mode, reason}.
  void record(const QuoteTrace& trace);
  /// Counts one breaker transition.
  void record_transition(const BreakerTransition& t);
  /// Counts one HTTP request by route template (unknown templates count as "other").
  void record_http(const std::string& route, int code);
  /// Counts one request refused by the per-client rate limit (a 429), by route template
  /// (unknown templates count as "other").
  void record_rate_limited(const std::string& route);

  /// Every family, including the breaker state and the embedded carrier's counters
  /// (absent when the carrier is external), ready to serialise.
  std::vector<prometheus::MetricFamily> collect(const BreakerSnapshot& breaker,
                                                const std::optional<CarrierStats>& carrier) const;
  /// With a shared state backend (--state-backend redis://…): adds
  /// quote_lab_state_backend_up (gauge, 1 healthy / 0 not) and
  /// quote_lab_state_backend_errors_total (counter: failed round trips and reconnects).
  static void add_state_backend(std::vector<prometheus::MetricFamily>& families, bool up, std::uint64_t errors);
  /// Text exposition format 0.0.4.
  static std::string to_text(const std::vector<prometheus::MetricFamily>& families);
  /// The same families as JSON: [{"name","help","type","samples":[{"labels","value"}]}].
  static nlohmann::ordered_json to_json(const std::vector<prometheus::MetricFamily>& families);

  /// Back to zero (the lab's reset). Prometheus's rate() treats it as a counter reset.
  void reset();

 private:
  struct Series;
  /// `route` if it is one of the known templates, else "other" (a bounded label set).
  std::string route_label(const std::string& route) const;
  std::vector<std::string> scenarios_;
  std::vector<std::string> routes_;
  std::vector<std::string> modes_;
  Pipelines pipelines_;
  mutable std::shared_mutex mutex_;  // guards series_ (replaced by reset; shared for updates)
  std::unique_ptr<Series> series_;
};

}  // namespace quote_lab
