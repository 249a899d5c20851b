#include "lab/simulation/scorecard.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "lab/experiments/recovery.hpp"

namespace quote_lab {
namespace {

StormOptions closed(const std::string& scenario, int clients, long requests, std::uint64_t seed) {
  StormOptions o;
  o.scenario = scenario;
  o.clients = clients;
  o.requests = requests;
  o.seed = seed;
  return o;
}

StormOptions open(const std::string& scenario, double rate, double duration_s, std::uint64_t seed) {
  StormOptions o;
  o.scenario = scenario;
  o.rate_per_s = rate;
  o.arrivals = ArrivalProcess::uniform;
  o.duration_s = duration_s;
  o.max_in_flight = kStormMaxInFlight;
  o.seed = seed;
  return o;
}

double round_to(double v, double per_unit) { return std::round(v * per_unit) / per_unit; }

}  // namespace

const std::vector<BatteryRun>& scorecard_battery() {
  static const std::vector<BatteryRun> battery = [] {
    // capacity_drop's trigger: 1 s after the first call, 1.5 s long (scenarios/capacity_drop.json).
    // Recovery is of live quotes: a fallback would hide whether the carrier came back.
    StormOptions drop = open("capacity_drop", 20, 12, 4);
    drop.goodput.fallback_max_age_s = 0;
    return std::vector<BatteryRun>{
        {"provider_down", closed("provider_down", 10, 500, 1), std::nullopt},
        {"tail_latency", closed("tail_latency", 10, 500, 2), std::nullopt},
        {"rate_limited", closed("rate_limited", 10, 300, 3), std::nullopt},
        {"capacity_drop", drop, 2.5},
        {"overloaded_fifo", open("overloaded_fifo", 80, 10, 5), std::nullopt},
    };
  }();
  return battery;
}

Scorecard score_policy(const std::string& policy, const SimulationSetup& lab) {
  if (!lab.policies.find(policy)) throw std::invalid_argument("no policy named '" + policy + "'");
  Scorecard card;
  card.policy = policy;
  double calls = 0, p99 = 0, goodput = 0;
  int answered = 0;
  for (const BatteryRun& run : scorecard_battery()) {
    StormOptions o = run.load;
    o.mode = policy;
    const StormResult r = simulate_storm(o, lab);
    ScoreRow row;
    row.run = run.name;
    const double arrivals = static_cast<double>(std::max(1L, r.arrivals));
    row.goodput_ratio = static_cast<double>(r.goodput) / arrivals;
    row.live_ratio = static_cast<double>(r.goodput_live) / arrivals;
    row.p99_ms = r.latency.p99_ms;
    row.calls_per_quote = r.amplification.value_or(0);
    if (run.trigger_end_s) row.recovered_after_s = recovered_after_s(r.timeline, *run.trigger_end_s);
    goodput += run_score(row);
    calls += row.calls_per_quote;
    if (row.p99_ms) {
      p99 += *row.p99_ms;
      ++answered;
    }
    card.rows.push_back(row);
  }
  const auto n = static_cast<double>(card.rows.size());
  card.score = std::max(0.0, round_to(100 * goodput / n, 10));
  card.calls_per_quote = round_to(calls / n, 1000);
  card.p99_ms = answered > 0 ? round_to(p99 / answered, 10) : 0;
  return card;
}

double run_score(const ScoreRow& row) {
  const double answered = (row.goodput_ratio + row.live_ratio) / 2;
  return answered - kCallCost * row.calls_per_quote;
}

bool ranks_before(const Scorecard& a, const Scorecard& b) {
  if (a.score != b.score) return a.score > b.score;
  if (a.calls_per_quote != b.calls_per_quote) return a.calls_per_quote < b.calls_per_quote;
  return a.p99_ms < b.p99_ms;
}

namespace {

nlohmann::ordered_json row_json(const ScoreRow& r) {
  auto optional = [](const auto& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr); };
  nlohmann::ordered_json out{{"goodput_ratio", round_to(r.goodput_ratio, 10000)},
                             {"live_ratio", round_to(r.live_ratio, 10000)},
                             {"p99_ms", r.p99_ms ? nlohmann::ordered_json(round_to(*r.p99_ms, 100)) : nullptr},
                             {"calls_per_quote", round_to(r.calls_per_quote, 1000)}};
  if (r.run == "capacity_drop") out["recovered_after_s"] = optional(r.recovered_after_s);
  return out;
}

}  // namespace

nlohmann::ordered_json to_json(const Scorecard& card, const Scorecard* legacy, const Scorecard* resilient) {
  nlohmann::ordered_json out{{"policy", card.policy},
                             {"score", card.score},
                             {"calls_per_quote", card.calls_per_quote},
                             {"p99_ms", card.p99_ms}};
  if (legacy && resilient) out["against"] = {{"legacy", legacy->score}, {"resilient", resilient->score}};
  out["runs"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < card.rows.size(); ++i) {
    nlohmann::ordered_json run{{"run", card.rows[i].run}};
    run.update(row_json(card.rows[i]));
    if (legacy && resilient) {
      run["legacy"] = row_json(legacy->rows[i]);
      run["resilient"] = row_json(resilient->rows[i]);
    }
    out["runs"].push_back(run);
  }
  return out;
}

Scorecard scorecard_from_json(const nlohmann::ordered_json& j) {
  try {
    Scorecard card;
    card.policy = j.at("policy").get<std::string>();
    card.score = j.at("score").get<double>();
    card.calls_per_quote = j.at("calls_per_quote").get<double>();
    card.p99_ms = j.at("p99_ms").get<double>();
    for (const auto& run : j.at("runs")) {
      ScoreRow row;
      row.run = run.at("run").get<std::string>();
      row.goodput_ratio = run.at("goodput_ratio").get<double>();
      row.live_ratio = run.at("live_ratio").get<double>();
      if (!run.at("p99_ms").is_null()) row.p99_ms = run.at("p99_ms").get<double>();
      row.calls_per_quote = run.at("calls_per_quote").get<double>();
      if (run.contains("recovered_after_s") && !run.at("recovered_after_s").is_null())
        row.recovered_after_s = run.at("recovered_after_s").get<int>();
      card.rows.push_back(std::move(row));
    }
    return card;
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("scorecard: ") + e.what());
  }
}

std::string format_scorecard(const Scorecard& card, const Scorecard& legacy, const Scorecard& resilient) {
  std::ostringstream out;
  char line[200];
  std::snprintf(line, sizeof line, "scorecard of %s: %.1f (legacy %.1f, resilient %.1f)\n", card.policy.c_str(),
                card.score, legacy.score, resilient.score);
  out << line;
  out << "  run               goodput (you / legacy / resilient)   p99 ms                  calls per quote\n";
  auto p99 = [](const ScoreRow& r) { return r.p99_ms ? *r.p99_ms : 0.0; };
  for (std::size_t i = 0; i < card.rows.size(); ++i) {
    const ScoreRow &you = card.rows[i], &l = legacy.rows[i], &r = resilient.rows[i];
    std::snprintf(line, sizeof line, "  %-16s  %3.0f %% / %3.0f %% / %3.0f %%              %6.0f / %6.0f / %6.0f   %4.2f / %4.2f / %4.2f\n",
                  you.run.c_str(), 100 * you.goodput_ratio, 100 * l.goodput_ratio, 100 * r.goodput_ratio, p99(you),
                  p99(l), p99(r), you.calls_per_quote, l.calls_per_quote, r.calls_per_quote);
    out << line;
    if (you.run == "capacity_drop") {
      auto after = [](const ScoreRow& x) {
        return x.recovered_after_s ? std::to_string(*x.recovered_after_s) + " s" : std::string("never");
      };
      out << "    recovered after the trigger: " << after(you) << " / " << after(l) << " / " << after(r) << "\n";
    }
  }
  return out.str();
}

}  // namespace quote_lab
