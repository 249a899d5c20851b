#include "lab/simulation/map_point.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "lab/experiments/recovery.hpp"
#include "lab/experiments/storm_report.hpp"  // number_text
#include "lab/simulation/simulated_storm.hpp"

namespace quote_lab {
namespace {

double round_to(double v, double per_unit) { return std::round(v * per_unit) / per_unit; }

// The ask's policy with its overrides applied (the simulation's own rule); nullopt with the
// problem in `errors`.
std::optional<RetryPolicy> overridden_policy(const MapPointAsk& ask, const Policies& policies,
                                             std::vector<std::string>& errors) {
  if (!policies.find(ask.policy)) {
    errors.push_back("no policy named '" + ask.policy.substr(0, 40) + "'");
    return std::nullopt;
  }
  StormOptions o;
  o.mode = ask.policy;
  o.params = ask.overrides;
  return policy_with_params(o, policies, errors);
}

const BreakerPolicy& breaker_of(const MapPointAsk& ask, const Policies& policies) {
  const NamedPolicy* named = policies.find_named(ask.policy);
  return named && named->breaker ? *named->breaker : policies.breaker;
}

}  // namespace

std::string MapPointAsk::key() const {
  auto sorted = overrides;
  std::sort(sorted.begin(), sorted.end());
  std::string k = policy + "|" + number_text(depth) + "|" + std::to_string(length_s) + "|" + number_text(load);
  for (const auto& [name, value] : sorted) k += "|" + name + "=" + value;
  return k;
}

Scenario map_scenario(double depth, int length_s) {
  const int spread = std::max(1, kMapServiceMs / 10);
  const nlohmann::ordered_json j{
      {"name", "map"},
      {"description",
       {{"es", "El proveedor del mapa de la metaestabilidad"}, {"en", "The metastability map's carrier"}}},
      {"attempts", nlohmann::ordered_json::array()},
      {"then", {{"latency_ms", {kMapServiceMs - spread, kMapServiceMs + spread}}, {"response", "ok"}}},
      {"shedding",
       {{"capacity", kMapCarrierCapacity},
        {"queue", {{"discipline", "fifo"}, {"max", kMapQueueMax}}},
        {"trigger", {{"after_ms", kMapTriggerAfterS * 1000}, {"length_ms", length_s * 1000}, {"capacity_drop", depth}}}}}};
  return scenario_from_json(j, "the metastability map");
}

int map_window_s(const RetryPolicy& policy, const BreakerPolicy& breaker) {
  if (!policy.uses(Strategy::circuit_breaker)) return kMapWindowS;
  const int probe_s = static_cast<int>(std::ceil(breaker.open_duration_s)) + 10;
  return std::clamp(probe_s, kMapWindowS, kMapMaxWindowS);
}

std::vector<std::string> validate_map_point(const MapPointAsk& ask, const Policies& policies) {
  std::vector<std::string> errors;
  if (!(ask.depth >= 0 && ask.depth <= 1)) errors.push_back("depth must be between 0 and 1");
  if (ask.length_s < 1 || ask.length_s > 30) errors.push_back("length_s must be between 1 and 30");
  if (!(ask.load >= 0.05 && ask.load <= 2)) errors.push_back("load must be between 0.05 and 2");
  overridden_policy(ask, policies, errors);
  return errors;
}

MapPoint simulate_map_point(const MapPointAsk& ask, const Policies& policies) {
  std::vector<std::string> errors = validate_map_point(ask, policies);
  if (!errors.empty()) throw std::invalid_argument(errors.front());
  const RetryPolicy policy = *overridden_policy(ask, policies, errors);

  MapPoint point;
  point.ask = ask;
  point.rate_per_s = ask.load * kMapCapacityRps;
  point.window_s = map_window_s(policy, breaker_of(ask, policies));
  if (!policy.uses(Strategy::hedging)) point.worst_calls_per_quote = policy.uses(Strategy::retry) ? policy.max_attempts : 1;

  const ScenarioCatalog catalog({map_scenario(ask.depth, ask.length_s)});
  SimulationSetup lab{policies, catalog};
  // bench/openloop_runs.py's SERVE_ARGS: the lab's 16 default workers would be a queue of
  // their own and would cap legacy's retries.
  lab.workers = 256;
  lab.carrier_workers = 512;
  StormOptions o;
  o.mode = ask.policy;
  o.params = ask.overrides;
  o.scenario = "map";
  o.rate_per_s = point.rate_per_s;
  o.arrivals = ArrivalProcess::uniform;
  o.duration_s = kMapTriggerAfterS + ask.length_s + point.window_s;
  o.max_in_flight = kMapMaxInFlight;
  o.seed = 1;
  o.goodput.deadline_ms = kMapGoodputDeadlineMs;
  o.goodput.fallback_max_age_s = 0;  // a fallback hides whether the carrier came back
  const StormResult r = simulate_storm(o, lab);

  point.timeline = r.timeline;
  point.recovered_after_s = recovered_after_s(r.timeline, kMapTriggerAfterS + ask.length_s);
  const double arrivals = static_cast<double>(std::max(1L, r.arrivals));
  point.calls_per_quote = r.amplification.value_or(0);
  point.live_ratio = static_cast<double>(r.goodput_live) / arrivals;
  return point;
}

nlohmann::ordered_json to_json(const MapPoint& p) {
  nlohmann::ordered_json overrides = nlohmann::ordered_json::object();
  for (const auto& [k, v] : p.ask.overrides) overrides[k] = v;
  nlohmann::ordered_json timeline = nlohmann::ordered_json::array();
  for (const TimelineSecond& s : p.timeline)
    timeline.push_back({{"second", s.second}, {"arrivals", s.arrivals}, {"useful", s.useful}});
  const auto optional = [](const auto& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr); };
  return {{"policy", p.ask.policy},
          {"overrides", overrides},
          {"depth", p.ask.depth},
          {"length_s", p.ask.length_s},
          {"load", p.ask.load},
          {"rate_per_s", round_to(p.rate_per_s, 100)},
          {"capacity_rps", kMapCapacityRps},
          {"trigger", {{"after_s", kMapTriggerAfterS}, {"end_s", kMapTriggerAfterS + p.ask.length_s}}},
          {"window_s", p.window_s},
          {"recovered_after_s", optional(p.recovered_after_s)},
          {"calls_per_quote", round_to(p.calls_per_quote, 1000)},
          {"live_ratio", round_to(p.live_ratio, 10000)},
          {"worst_calls_per_quote", optional(p.worst_calls_per_quote)},
          {"theorem2_load", p.worst_calls_per_quote ? nlohmann::ordered_json(round_to(1.0 / *p.worst_calls_per_quote, 10000))
                                                    : nlohmann::ordered_json(nullptr)},
          {"timeline", timeline}};
}

}  // namespace quote_lab
