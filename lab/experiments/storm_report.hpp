#pragma once
// A storm's result as a reader gets it: the --json document (to_json) and the terminal's
// plain-text report (format_report), from the StormResult a run filled (storm.hpp).

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "lab/experiments/storm.hpp"

namespace quote_lab {

/// A number as the reports and the option errors write it: "0.1", "2000".
std::string number_text(double v);

/// A storm's `params` (the overrides each of its requests carries) as a JSON object,
/// name → value as sent, e.g. {"circuit_breaker": "false"}; {} when none.
nlohmann::ordered_json params_json(const std::vector<std::pair<std::string, std::string>>& params);

/// The --json shape: target, mode, scenario, params (params_json), clients (null in open
/// loop), requests, throughput_rps, latency_ms {p50,p95,p99,max}, status_counts,
/// carrier_calls, amplification, health_latency_ms {p50,p99,...}, wasted_carrier_calls, ...,
/// and `targets`: [{target, clients, requests, status_counts, latency_ms, carrier_calls}];
/// with layers > 1 also `layers`: [{layer, calls, requests, calls_out, calls_per_request}].
/// Load and goodput: load_model ("open" | "closed"), rate_per_s (asked; null closed),
/// arrival_process and max_in_flight (null closed), seed, arrivals, arrivals_not_sent,
/// arrival_window_s, offered_rps, goodput, goodput_rps, goodput_ratio, goodput_rule
/// {deadline_ms, fallback_max_age_s}, verdicts {no_answer, not_a_quote, late, stale_fallback,
/// useful}, dispatch_lag_ms and peak_in_flight (open), sheddable_share, by_priority
/// {critical, sheddable: {arrivals, sent, answered, useful}} (only with a share above 0), and
/// timeline: [{second, arrivals, not_sent, sent, answered, useful, not_useful,
/// carrier_calls}] (storm_timeline.hpp says how each second counts).
nlohmann::ordered_json to_json(const StormResult& r);

/// A plain-text report for a terminal.
std::string format_report(const StormResult& r);

}  // namespace quote_lab
