#pragma once
// What a storm asks the lab it targets, over HTTP: whether it is a quote lab and serves the
// policy (asked before the storm hammers it), and what the lab reports of its carrier — its
// counters, its metastable episode, the calls it made in a policy — read before, during and
// after the storm. Each answer is nullopt when the lab does not give it.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace quote_lab {

/// The quote route a storm of policy `mode` sends its requests to: /quote-legacy and
/// /quote-resilient for the course's two, /quote/NAME for a named policy.
std::string storm_quote_path(const std::string& mode);

/// Whether `target` is a quote lab, asked before a storm hammers it (unchecked, a storm
/// against another port reported 176,381 req/s and exited 0): GET /health must answer 200
/// with "service": "quote-lab". nullopt when it does; otherwise one sentence saying what
/// answered instead (the simulated carrier, another service, nothing). /health waits for
/// a worker like a quote does, so a busy lab gets up to 30 s.
std::optional<std::string> check_storm_target(const std::string& target);

/// Whether the quote lab at `target` serves policy `mode`, asked before a storm: nullopt
/// when it does (its index, GET /, lists it under `policies`); otherwise one sentence that
/// names the policy, a near miss ("did you mean 'adr0005'?") and every policy the lab has.
/// A lab whose index lists no policies is taken to serve legacy and resilient only.
std::optional<std::string> check_storm_mode(const std::string& target, const std::string& mode);

/// The carrier's counters as the lab at `target` shows them at GET /carrier (nullopt when
/// its carrier is external or it does not answer).
std::optional<nlohmann::ordered_json> carrier_stats(const std::string& target);

/// The metastable episode of lab `lab` ("" the teacher's) as GET /carrier shows it (nullopt:
/// none, or no embedded carrier).
std::optional<nlohmann::ordered_json> metastable_episode(const std::string& target, const std::string& lab);

/// Carrier calls lab `lab` has made in policy `mode`: quote_lab_carrier_attempts_total without
/// the short circuits, which never leave the lab, plus the hedged calls sent
/// (quote_lab_hedges_total{outcome="sent"}), read from its JSON metrics. Its `mode` label is
/// the policy's name, a named policy's too (metrics.hpp).
std::optional<double> lab_carrier_calls(const std::string& target, const std::string& lab, const std::string& mode);

}  // namespace quote_lab
