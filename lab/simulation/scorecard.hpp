#pragma once
// The class challenge's scorecard: a policy (a student's own pipeline, or any the lab serves)
// run in simulated time over a fixed battery of five storms, beside legacy and resilient on the
// same battery with the same seeds:
//   provider_down     the carrier never answers in time (10 clients, 500 quotes)
//   tail_latency      a long tail: half within 120 ms, 1 % past 900 (10 clients, 500 quotes)
//   rate_limited      429 with Retry-After: 1 (10 clients, 300 quotes)
//   capacity_drop     the carrier loses 75 % of its capacity for 1.5 s under an open load of
//                     20 arrivals a second (half its capacity) for 12 s: does goodput of live
//                     quotes come back, and after how many seconds (the metastability map's rule)
//   overloaded_fifo   an open load of 80 arrivals a second, twice what the carrier serves,
//                     behind its FIFO queue, for 10 s
// Each run is one simulate_storm; a battery is about 0.1 s of one core.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lab/simulation/simulated_storm.hpp"

namespace quote_lab {

/// One storm of the battery.
struct BatteryRun {
  std::string name;        ///< the scenario's name: each run has its own scenario
  StormOptions load;       ///< the storm (its mode is set to the policy scored)
  std::optional<double> trigger_end_s;  ///< a triggered run: when its trigger ends, for recovery
};

/// The five runs above, in order.
const std::vector<BatteryRun>& scorecard_battery();

/// What one policy did in one run.
struct ScoreRow {
  std::string run;
  double goodput_ratio = 0;       ///< useful answers ÷ arrivals (the storm's goodput rule)
  double live_ratio = 0;          ///< live quotes among them ÷ arrivals
  std::optional<double> p99_ms;   ///< of the quotes answered
  double calls_per_quote = 0;     ///< carrier calls ÷ quotes sent (amplification)
  std::optional<int> recovered_after_s;  ///< a triggered run: seconds after the trigger; null: never
};

/// What one carrier call per quote costs a run's score: a design that calls a dead carrier once
/// per quote loses 0.1 of the run, a retry storm of 4 calls per quote 0.4, a breaker that opened
/// almost nothing. The carrier is shared (the class's GET /class ranks by carrier calls per
/// request for the same reason): a call that gets no answer, or one answer twice, is capacity
/// taken from everyone else, which the battery's own carrier (one design, 10 clients) does not
/// always show. The lab's own rule, not a published one.
inline constexpr double kCallCost = 0.1;

/// One run's score, at most 1: half its goodput ratio (useful answers, a fresh fallback
/// included), half its live ratio (the carrier's own price), less kCallCost for each carrier
/// call per quote. Below 0 when the calls cost more than the answers bring: a run already lost
/// still pays for every call it made (only the card's score stops at 0).
double run_score(const ScoreRow& row);

/// One policy over the whole battery. `score`, 0–100 to 0.1: 100 × the mean of the runs'
/// run_score, never below 0. A design that only ever falls back, never calling, scores 50. A class ranks by it, then by fewer
/// carrier calls per quote, then by a lower mean p99.
struct Scorecard {
  std::string policy;
  std::vector<ScoreRow> rows;
  double score = 0;
  double calls_per_quote = 0;  ///< mean over the runs
  double p99_ms = 0;           ///< mean over the runs that answered
};

/// The battery run for `policy` (a name `lab.policies` serves). Throws std::invalid_argument
/// when it does not.
Scorecard score_policy(const std::string& policy, const SimulationSetup& lab);

/// True when `a` ranks before `b` (score, then calls per quote, then p99).
bool ranks_before(const Scorecard& a, const Scorecard& b);

/// {"policy", "score", "calls_per_quote", "p99_ms", "runs": [{"run", "goodput_ratio",
/// "live_ratio", "p99_ms", "calls_per_quote", "recovered_after_s"}]}; with `legacy` and
/// `resilient`, each run also carries theirs under those keys, and the top level their scores.
nlohmann::ordered_json to_json(const Scorecard& card, const Scorecard* legacy = nullptr,
                               const Scorecard* resilient = nullptr);

/// to_json(card)'s form (its baselines, when present, ignored) back: throws
/// std::invalid_argument naming what is missing or of the wrong type.
Scorecard scorecard_from_json(const nlohmann::ordered_json& j);

/// A plain-text table for a terminal: each run's figures beside legacy's and resilient's.
std::string format_scorecard(const Scorecard& card, const Scorecard& legacy, const Scorecard& resilient);

}  // namespace quote_lab
