#include "lab/observability/telemetry.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace quote_lab {
namespace {

void add(FlowCounters& c, const FlowRecord& f) {
  const Incident& i = f.incident;
  ++c.requests;
  c.completed += i.status == QuoteStatus::completed;
  c.degraded += i.status == QuoteStatus::degraded;
  c.failed += i.status == QuoteStatus::failed;
  c.attempts += static_cast<std::uint64_t>(i.attempts);
  c.retries += static_cast<std::uint64_t>(i.retries);
  c.timeouts += static_cast<std::uint64_t>(i.timeout_count);
  c.fallbacks += i.fallback_used;
  c.circuit_opens += f.circuit_opened;
  c.short_circuits += static_cast<std::uint64_t>(f.short_circuits);
  c.latency_window_ms.push_back(i.elapsed_ms);
  if (c.latency_window_ms.size() > Telemetry::kLatencyWindow) c.latency_window_ms.pop_front();
  c.max_ms = std::max(c.max_ms, i.elapsed_ms);
}

nlohmann::ordered_json opt(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(std::round(*v * 100) / 100) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json to_json(const FlowCounters& c) {
  auto lat = summarize_latency({c.latency_window_ms.begin(), c.latency_window_ms.end()});
  if (c.requests > 0) lat.max_ms = c.max_ms;
  return {{"requests", c.requests},
          {"successes", c.completed},
          {"degraded", c.degraded},
          {"failures", c.failed},
          {"attempts", c.attempts},
          {"retries", c.retries},
          {"timeouts", c.timeouts},
          {"fallbacks", c.fallbacks},
          {"circuit_opens", c.circuit_opens},
          {"short_circuits", c.short_circuits},
          {"latency_ms",
           {{"samples", lat.count},
            {"p50", opt(lat.p50_ms)},
            {"p95", opt(lat.p95_ms)},
            {"p99", opt(lat.p99_ms)},
            {"max", opt(lat.max_ms)}}}};
}

}  // namespace

LatencySummary summarize_latency(std::vector<double> samples) {
  LatencySummary s;
  s.count = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  auto rank = [&](double p) {
    // nearest rank: the smallest value with at least p of the sample at or below it
    const auto n = static_cast<double>(samples.size());
    const auto i = static_cast<std::size_t>(std::max(1.0, std::ceil(p * n))) - 1;
    return samples[std::min(i, samples.size() - 1)];
  };
  s.p50_ms = rank(0.50);
  s.p95_ms = rank(0.95);
  s.p99_ms = rank(0.99);
  s.max_ms = samples.back();
  return s;
}

FlowRecord flow_record(const QuoteTrace& t, double queue_ms) {
  return {Incident{t.request.request_id, t.request.mode, t.request.scenario, t.status, t.attempts(), t.retries(),
                   t.timeouts(), t.fallback_used(), t.short_circuited(), t.elapsed_ms, t.timestamp, queue_ms, t.cancelled()},
          t.short_circuits(), t.circuit_opened()};
}

void Telemetry::record(const FlowRecord& f) {
  std::lock_guard lock(mutex_);
  record_locked(f);
}

void Telemetry::record_locked(const FlowRecord& f) {
  const Incident& i = f.incident;
  add(by_mode_[i.mode], f);
  add(by_mode_scenario_[i.mode][i.scenario], f);
  incidents_.push_back(i);
  if (incidents_.size() > kMaxIncidents) incidents_.pop_front();
}

std::vector<Incident> Telemetry::incidents(std::size_t limit) const {
  std::lock_guard lock(mutex_);
  std::vector<Incident> out;
  for (auto it = incidents_.rbegin(); it != incidents_.rend() && out.size() < limit; ++it)
    out.push_back(*it);
  return out;
}

nlohmann::ordered_json Telemetry::summary_json(const std::vector<std::string>& scenarios) const {
  std::lock_guard lock(mutex_);
  nlohmann::ordered_json modes = nlohmann::ordered_json::object();
  const nlohmann::ordered_json not_asked = to_json(FlowCounters{});
  // The course's two modes always (SPEC), then the named policies that ran.
  std::vector<std::string> names;
  for (const Mode mode : kModes) names.emplace_back(to_string(mode));
  for (const auto& [name, _] : by_mode_)
    if (!parse_mode(name)) names.push_back(name);
  for (const std::string& mode : names) {
    const auto m = by_mode_.find(mode);
    nlohmann::ordered_json j = to_json(m == by_mode_.end() ? FlowCounters{} : m->second);
    // Every listed scenario first, as not asked; the counters then fill in their place (an
    // ordered object keeps a key where it was first written) or follow.
    nlohmann::ordered_json per_scenario = nlohmann::ordered_json::object();
    for (const std::string& name : scenarios) per_scenario[name] = not_asked;
    if (const auto s = by_mode_scenario_.find(mode); s != by_mode_scenario_.end())
      for (const auto& [name, counters] : s->second) per_scenario[name] = to_json(counters);
    j["scenarios"] = per_scenario;
    modes[mode] = j;
  }
  return modes;
}

void Telemetry::reset(const std::deque<FlowRecord>& kept) {
  std::lock_guard lock(mutex_);
  incidents_.clear();
  by_mode_.clear();
  by_mode_scenario_.clear();
  for (const FlowRecord& f : kept) record_locked(f);
}

TelemetryState Telemetry::state() const {
  std::lock_guard lock(mutex_);
  return {incidents_, by_mode_, by_mode_scenario_};
}

void Telemetry::restore(TelemetryState s) {
  auto bound = [](FlowCounters& c) {
    while (c.latency_window_ms.size() > kLatencyWindow) c.latency_window_ms.pop_front();
  };
  for (auto& [_, c] : s.by_mode) bound(c);
  for (auto& [_, scenarios] : s.by_mode_scenario)
    for (auto& [_, c] : scenarios) bound(c);
  while (s.incidents.size() > kMaxIncidents) s.incidents.pop_front();
  std::lock_guard lock(mutex_);
  incidents_ = std::move(s.incidents);
  by_mode_ = std::move(s.by_mode);
  by_mode_scenario_ = std::move(s.by_mode_scenario);
}

ClassTotals Telemetry::class_totals() const {
  ClassTotals t;
  std::vector<double> samples;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [mode, c] : by_mode_) {
      t.requests += c.requests;
      t.carrier_calls += c.attempts;
      samples.insert(samples.end(), c.latency_window_ms.begin(), c.latency_window_ms.end());
    }
  }
  t.p99_ms = summarize_latency(std::move(samples)).p99_ms;
  return t;
}

}  // namespace quote_lab
