#include "lab/experiments/storm_report.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>

#include "lab/experiments/storm_target.hpp"

namespace quote_lab {
namespace {

nlohmann::ordered_json latency_json(const LatencySummary& s) {
  auto v = [](const std::optional<double>& x) {
    return x ? nlohmann::ordered_json(std::round(*x * 100) / 100) : nlohmann::ordered_json(nullptr);
  };
  return {{"p50", v(s.p50_ms)}, {"p95", v(s.p95_ms)}, {"p99", v(s.p99_ms)}, {"max", v(s.max_ms)}, {"samples", s.count}};
}

}  // namespace

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

nlohmann::ordered_json params_json(const std::vector<std::pair<std::string, std::string>>& params) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [k, v] : params) out[k] = v;
  return out;
}

namespace {

// Everything but the layers, in the order the JSON has always had.
nlohmann::ordered_json json_without_layers(const StormResult& r) {
  auto opt = [](const auto& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr); };
  nlohmann::ordered_json statuses = nlohmann::ordered_json::object();
  for (const auto& [k, v] : r.status_counts) statuses[k] = v;
  nlohmann::ordered_json health = latency_json(r.health_latency);
  nlohmann::ordered_json targets = nlohmann::ordered_json::array();
  for (const auto& t : r.per_target) {
    nlohmann::ordered_json counts = nlohmann::ordered_json::object();
    for (const auto& [k, v] : t.status_counts) counts[k] = v;
    targets.push_back({{"target", t.target},
                       {"clients", r.options.rate_per_s ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(t.clients)},
                       {"requests", t.requests},
                       {"status_counts", counts},
                       {"latency_ms", latency_json(t.latency)},
                       {"carrier_calls", opt(t.carrier_calls)}});
  }
  return {{"target", r.options.target},
          {"mode", r.options.mode},
          {"scenario", r.options.scenario},
          {"params", params_json(r.options.params)},
          {"clients", r.options.rate_per_s ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.options.clients)},
          {"requests", r.requests},
          {"elapsed_s", std::round(r.elapsed_s * 100) / 100},
          {"throughput_rps", std::round(r.throughput_rps * 10) / 10},
          {"latency_ms", latency_json(r.latency)},
          {"status_counts", statuses},
          {"attempt_latency_ms", latency_json(r.attempt_latency)},
          {"carrier_calls", opt(r.carrier_calls)},
          {"amplification", r.amplification ? nlohmann::ordered_json(std::round(*r.amplification * 1000) / 1000)
                                            : nlohmann::ordered_json(nullptr)},
          {"health_latency_ms", health},
          {"wasted_carrier_calls", opt(r.wasted_carrier_calls)},
          {"wasted_carrier_seconds", r.wasted_carrier_seconds ? nlohmann::ordered_json(std::round(*r.wasted_carrier_seconds * 1000) / 1000)
                                                              : nlohmann::ordered_json(nullptr)},
          {"carrier_received", opt(r.carrier_received)},
          {"carrier_in_flight_after", opt(r.carrier_in_flight_after)},
          {"carrier_peak_in_flight", opt(r.carrier_peak_in_flight)},
          {"targets", targets}};
}


// The load and its goodput (StormResult's second part), rounded as a report reads them.
nlohmann::ordered_json load_json(const StormResult& r) {
  const StormOptions& o = r.options;
  const bool open = o.rate_per_s.has_value();
  auto round_to = [](double v, double per_unit) { return std::round(v * per_unit) / per_unit; };
  auto open_only = [open](auto v) { return open ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr); };
  nlohmann::ordered_json verdicts = nlohmann::ordered_json::object();
  for (const auto v : answer_verdicts()) {
    const std::string name(to_string(v));
    const auto it = r.verdicts.find(name);
    verdicts[name] = it == r.verdicts.end() ? 0 : it->second;  // every verdict, 0 included
  }
  nlohmann::ordered_json out = {
      {"load_model", load_model(o)},
      {"rate_per_s", open_only(o.rate_per_s.value_or(0))},
      {"arrival_process", open_only(std::string(to_string(o.arrivals)))},
      {"max_in_flight", open_only(o.max_in_flight)},
      {"seed", r.seed},
      {"arrivals", r.arrivals},
      {"arrivals_not_sent", r.arrivals_not_sent},
      {"arrival_window_s", round_to(r.arrival_window_s, 1000)},
      {"offered_rps", round_to(r.offered_rps, 100)},
      {"goodput", r.goodput},
      {"goodput_rps", round_to(r.goodput_rps, 100)},
      {"goodput_live", r.goodput_live},
      {"goodput_live_rps", round_to(r.goodput_live_rps, 100)},
      {"goodput_ratio", r.goodput_ratio ? nlohmann::ordered_json(round_to(*r.goodput_ratio, 10000)) : nlohmann::ordered_json(nullptr)},
      {"goodput_rule", {{"deadline_ms", o.goodput.deadline_ms}, {"fallback_max_age_s", o.goodput.fallback_max_age_s}}},
      {"verdicts", verdicts},
      {"dispatch_lag_ms", open ? latency_json(r.dispatch_lag) : nlohmann::ordered_json(nullptr)},
      {"peak_in_flight", open_only(r.peak_in_flight)},
      {"sheddable_share", o.sheddable_share}};
  if (o.sheddable_share > 0) {
    out["by_priority"] = nlohmann::ordered_json::object();
    for (const auto& [priority, counts] : r.by_priority) out["by_priority"][priority] = to_json(counts);
  }
  return out;
}

}  // namespace

nlohmann::ordered_json to_json(const StormResult& r) {
  nlohmann::ordered_json out = json_without_layers(r);
  out.update(load_json(r));
  if (!r.layers.empty()) {
    out["layers"] = nlohmann::ordered_json::array();
    for (const auto& l : r.layers) out["layers"].push_back(to_json(l));
  }
  if (r.metastable) out["metastable"] = *r.metastable;
  out["timeline"] = to_json(r.timeline);
  return out;
}

namespace {
// One line on a metastable episode: did the carrier come back while the storm called it?
void report_metastable(std::ostream& out, const nlohmann::ordered_json& m, double storm_s) {
  const double since = m.value("since_trigger_start_s", 0.0);
  const double trigger_s = m.value("down_ms", 0) / 1000.0;
  out << "  metastable        trigger " << trigger_s << " s; ";
  if (!m.value("trigger_over", false)) out << "still in the trigger when the storm ended\n";
  else if (m.contains("recovered_after_trigger_s") && m["recovered_after_trigger_s"].is_number())
    out << "the carrier recovered " << m["recovered_after_trigger_s"].get<double>() << " s after the trigger ended\n";
  else if (m.value("calls_after_trigger", 0) == 0)
    out << "no call reached the carrier since the trigger ended (" << since - trigger_s
        << " s ago): nothing overloads it, its recovery shows with the next calls\n";
  else
    out << "NOT recovered: " << since - trigger_s << " s after the trigger ended the carrier was still overloaded ("
        << m.value("overloaded_calls", 0) << " of " << m.value("calls_after_trigger", 0) << " calls since)\n";
  // An episode is per lab and starts with its first call: a second storm finds it long over.
  if (since > storm_s + 2)
    out << "                    (the trigger started " << since - storm_s
        << " s before this storm: POST /reset-lab starts a new episode)\n";
}

// Who made the load: the open loop's arrivals or the closed loop's clients.
std::string load_words(const StormOptions& o) {
  std::ostringstream out;
  if (o.rate_per_s) out << number_text(*o.rate_per_s) << " arrivals/s (" << to_string(o.arrivals) << ", open loop)";
  else out << o.clients << " clients";
  return out.str();
}

// Two lines: the load offered, and the goodput it got.
void report_load(std::ostream& out, const StormResult& r) {
  const StormOptions& o = r.options;
  out << std::setprecision(1);
  out << "  load              ";
  if (o.rate_per_s)
    out << "open loop: " << number_text(*o.rate_per_s) << " arrivals/s asked (" << to_string(o.arrivals) << "), " << r.offered_rps
        << " offered: " << r.arrivals << " arrivals in " << r.arrival_window_s << " s, " << r.arrivals_not_sent
        << " not sent (at most " << o.max_in_flight << " in flight; " << r.peak_in_flight << " at the peak)\n";
  else
    out << "closed loop: " << o.clients << " clients, each waiting for its answer: " << r.arrivals << " requests, "
        << r.offered_rps << "/s offered\n";
  out << "  goodput           " << r.goodput << " useful answers, " << r.goodput_rps << "/s, "
      << 100 * r.goodput_ratio.value_or(0) << " % of arrivals (HTTP 200, a live quote or a fallback at most "
      << number_text(o.goodput.fallback_max_age_s) << " s old, within " << number_text(o.goodput.deadline_ms) << " ms); "
      << r.goodput_live << " of them live quotes, " << r.goodput_live_rps << "/s";
  std::string why;
  for (const auto& [verdict, n] : r.verdicts)
    if (verdict != "useful" && n > 0) why += (why.empty() ? "" : ", ") + verdict + " " + std::to_string(n);
  out << (why.empty() ? "\n" : "; not useful: " + why + "\n");
  for (const auto& [priority, c] : r.by_priority)
    out << "    " << priority << "  " << c.arrivals << " arrivals, " << c.sent << " sent, " << c.useful << " useful\n";
}

}  // namespace

std::string format_report(const StormResult& r) {
  auto ms = [](const std::optional<double>& v) {
    std::ostringstream s;
    if (v) s << std::fixed << std::setprecision(1) << *v << " ms";
    else s << "—";
    return s.str();
  };
  std::ostringstream out;
  out << std::fixed << std::setprecision(1);
  out << "storm: " << load_words(r.options) << " on " << storm_quote_path(r.options.mode) << "?scenario=" << r.options.scenario
      << " against " << r.options.target;
  if (!r.options.extra_targets.empty()) out << " and " << r.options.extra_targets.size() << " more (round robin)";
  out << "\n";
  out << "  requests          " << r.requests << " in " << r.elapsed_s << " s (" << r.throughput_rps << " req/s)\n";
  out << "  latency           p50 " << ms(r.latency.p50_ms) << ", p95 " << ms(r.latency.p95_ms) << ", p99 "
      << ms(r.latency.p99_ms) << ", max " << ms(r.latency.max_ms) << "\n";
  report_load(out, r);
  out << "  status            ";
  for (const auto& [k, v] : r.status_counts) out << k << " " << v << "  ";
  out << "\n";
  out << "  carrier calls     ";
  if (r.carrier_calls) out << *r.carrier_calls << " sent by the lab (" << std::setprecision(2) << r.amplification.value_or(0) << " per quote request)\n";
  else out << "—\n";
  if (r.carrier_received)
    out << "  carrier received  " << *r.carrier_received << " so far, " << r.carrier_in_flight_after.value_or(0)
        << " still being served (a saturated carrier works through abandoned calls long after)\n";
  out << std::setprecision(1);
  if (r.health_latency.count > 0)  // a simulated storm has no /health to measure
    out << "  /health latency   p50 " << ms(r.health_latency.p50_ms) << ", p99 " << ms(r.health_latency.p99_ms) << ", max "
        << ms(r.health_latency.max_ms) << "  (measured alongside: worker exhaustion shows here)\n";
  out << "  wasted carrier    ";
  if (r.wasted_carrier_calls)
    out << *r.wasted_carrier_calls << " calls finished after their caller gave up, " << std::setprecision(2)
        << r.wasted_carrier_seconds.value_or(0) << " s of carrier time\n";
  else out << "—\n";
  if (r.metastable) report_metastable(out, *r.metastable, r.elapsed_s);
  if (!r.layers.empty()) {
    out << "  layers            " << r.layers.size() << ": layer 1 is the lab (its own policy), the others relays of "
        << kRelayAttempts << " attempts without backoff\n";
    for (const auto& l : r.layers)
      out << "    layer " << l.layer << " -> " << l.calls << "  " << l.requests << " requests, " << l.calls_out
          << " calls (" << std::setprecision(2) << l.calls_per_request << " per client request)\n";
    out << std::setprecision(1);
  }
  if (r.per_target.size() > 1) {
    out << "  per target\n";
    for (const auto& t : r.per_target) {
      out << "    " << t.target << "  ";
      if (!r.options.rate_per_s) out << t.clients << " clients, ";
      out << t.requests << " requests, p50 "
          << ms(t.latency.p50_ms) << ", carrier calls ";
      if (t.carrier_calls) out << *t.carrier_calls;
      else out << "—";
      out << ",";
      for (const auto& [k, v] : t.status_counts) out << " " << k << " " << v;
      out << "\n";
    }
    out << "    total  ";
    if (!r.options.rate_per_s) out << r.options.clients << " clients, ";
    out << r.requests << " requests, carrier calls ";
    if (r.carrier_calls) out << *r.carrier_calls;
    else out << "—";
    out << "\n";
  }
  return out.str();
}

}  // namespace quote_lab
