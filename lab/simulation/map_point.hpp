#pragma once
// One point of the metastability map in simulated time (GET /experiments/map, the dashboard's
// map): a policy, a trigger (the carrier loses `depth` of its capacity for `length_s` seconds)
// and an open load, judged as bench/metastability_map.py judges its runs, so the point the page
// draws is the point docs/metastability-map.sim.md has for the same policy:
//   the carrier   5 calls at a time, each served in 100 ms ± 10 % (50 calls a second), behind a
//                 FIFO queue of 50 that serves every queued call even after its caller gave up
//                 (the wasted work that sustains a metastable failure);
//   the trigger   3 s after the first call, round(5 × (1 − depth)) calls at a time for length_s;
//   the load      load × 50 arrivals a second, one every 1/R s, at most 400 in flight, for
//                 3 + length_s + the window;
//   the verdict   recovered after k s: the first 2 seconds in a row, from the trigger's end, whose
//                 live goodput (answered within 2000 ms; a fallback counts only when fresh, with
//                 fallback_max_age_s 0) reached 90 % of their arrivals; never within the window
//                 otherwise (experiments/recovery.hpp).
// Huang et al., "Metastable Failures in the Wild", OSDI '22 (Fig. 5: trigger × load; Theorem 2:
// below capacity ÷ worst-case amplification nothing stays down); Bronson et al., "Metastable
// Failures in Distributed Systems", HotOS '21.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lab/carrier/scenario.hpp"
#include "lab/experiments/storm_timeline.hpp"
#include "lab/resilience/policy.hpp"

namespace quote_lab {

/// The map's carrier and trigger, bench/metastability_map.py's CARRIER, AFTER_S and WINDOW_S.
inline constexpr int kMapCarrierCapacity = 5;    ///< calls served at once
inline constexpr int kMapServiceMs = 100;        ///< each call's service time, ± 10 %
inline constexpr int kMapQueueMax = 50;          ///< calls that may wait
inline constexpr double kMapCapacityRps = 1000.0 * kMapCarrierCapacity / kMapServiceMs;
inline constexpr int kMapTriggerAfterS = 3;      ///< from the first call
inline constexpr int kMapWindowS = 20;           ///< observed after the trigger
inline constexpr int kMapMaxWindowS = 60;        ///< a breaker open longer is not waited for
inline constexpr int kMapMaxInFlight = 400;
inline constexpr double kMapGoodputDeadlineMs = 2000;

/// What a point asks: every field is part of the answer, so equal asks give equal points.
struct MapPointAsk {
  std::string policy;  ///< a name the lab serves
  /// A quote's overrides (http/policy_overrides.hpp): name, value. GET /experiments/map gives
  /// only those that change the policy, each value written one way, so its key is canonical.
  std::vector<std::pair<std::string, std::string>> overrides;
  double depth = 0.6;  ///< share of the capacity the trigger takes, 0–1 (1: an outage)
  int length_s = 4;    ///< the trigger's length, 1–30 s
  double load = 0.45;  ///< offered load as a share of the carrier's capacity, 0.05–2

  /// One string per distinct ask (overrides sorted), for a cache.
  std::string key() const;
};

/// What the run showed.
struct MapPoint {
  MapPointAsk ask;
  double rate_per_s = 0;  ///< load × kMapCapacityRps
  int window_s = 0;       ///< seconds observed after the trigger
  std::optional<int> recovered_after_s;  ///< nullopt: never within window_s
  double calls_per_quote = 0;            ///< carrier calls ÷ arrivals (amplification)
  double live_ratio = 0;                 ///< live goodput ÷ arrivals, over the whole run
  /// Worst-case carrier calls per quote (the retry's attempts; 1 without a retry), and so
  /// Theorem 2's bound as a share of capacity (1 ÷ it); nullopt for a policy that hedges,
  /// whose worst case is not its attempts.
  std::optional<int> worst_calls_per_quote;
  std::vector<TimelineSecond> timeline;  ///< per arrival second: arrivals, useful (live)
};

/// The generated scenario of one trigger: bench/overload_scenarios.py's scenario() of the map's
/// carrier, named "map".
Scenario map_scenario(double depth, int length_s);

/// Seconds observed after the trigger for `policy`: kMapWindowS, or a breaker's open time plus
/// 10 s when longer (its half-open probe must fall inside), at most kMapMaxWindowS.
int map_window_s(const RetryPolicy& policy, const BreakerPolicy& breaker);

/// Problems with `ask`, each one sentence (empty: fine): its ranges, a policy `policies` does
/// not serve, an override that is not one or out of its range.
std::vector<std::string> validate_map_point(const MapPointAsk& ask, const Policies& policies);

/// Runs the point in simulated time (about 0.01–0.2 s of one core; seed 1: the arrivals are a
/// metronome, the seed only draws service times). Throws std::invalid_argument with the first
/// of validate_map_point's problems.
MapPoint simulate_map_point(const MapPointAsk& ask, const Policies& policies);

/// {"policy", "overrides": {...}, "depth", "length_s", "load", "rate_per_s", "capacity_rps",
///  "trigger": {"after_s", "end_s"}, "window_s", "recovered_after_s" (null: never),
///  "calls_per_quote", "live_ratio", "worst_calls_per_quote", "theorem2_load",
///  "timeline": [{"second", "arrivals", "useful"}]}.
nlohmann::ordered_json to_json(const MapPoint& p);

}  // namespace quote_lab
