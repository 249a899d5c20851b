#pragma once
// How traces, breaker snapshots, the dependency, incidents and the carrier look as JSON
// (SPEC.md, "Routes"). Pure functions of their inputs: one rendering for the API, the
// incidents and the dashboard. LabApp returns values (lab_views.hpp); this renders them.

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lab/app/lab_views.hpp"
#include "lab/carrier/carrier_simulator.hpp"
#include "lab/observability/telemetry.hpp"
#include "lab/resilience/circuit_breaker.hpp"
#include "lab/resilience/fallback_cache.hpp"
#include "lab/resilience/quote_trace.hpp"

namespace quote_lab {

/// The breaker fields of /dependency/state: name, circuit_status, consecutive_failures,
/// opened_until (ISO 8601 UTC or null), cooldown_left_ms, open_events,
/// short_circuit_count, last_outcome (null before any call), last_latency_ms.
nlohmann::ordered_json breaker_json(const BreakerSnapshot& s);

/// A cached quote as `fallback_quote` shows it: quote fields, source "fallback",
/// cached_at, age_s, customer_id, items, seed.
nlohmann::ordered_json cached_quote_json(const CachedQuote& q, WallTime now);

/// One quote response. `dependency` is the breaker view to embed.
nlohmann::ordered_json quote_json(const QuoteTrace& t, nlohmann::ordered_json dependency);

/// One /incidents entry.
nlohmann::ordered_json incident_json(const Incident& i);

/// One quote response as the client and every open dashboard get it: quote_json() with the
/// dependency, then `policy` (the rendered policy the flow ran under) and
/// `policy_overrides` (the names of the per-request overrides, possibly none).
nlohmann::ordered_json quote_response_json(const QuoteTrace& t, const DependencyView& dependency,
                                           const nlohmann::ordered_json& policy,
                                           const std::vector<std::string>& overrides);

/// /dependency/state: breaker_json() plus fallback_quote, state_file, state_file_set_aside
/// and state_file_error (null when absent).
nlohmann::ordered_json dependency_json(const DependencyView& d);

/// /diagnostics/summary: {"modes" (the telemetry's own summary), "policies", "dependency",
/// "carrier_mode"}.
nlohmann::ordered_json diagnostics_json(const nlohmann::ordered_json& modes, const DiagnosticsView& d);

/// /incidents: {"limit", "incidents": [incident_json...]}.
nlohmann::ordered_json incidents_json(int limit, const std::vector<Incident>& incidents);

/// /carrier: {"url", "mode", "embedded", "stats" (the embedded carrier's counters without
/// the mode, or null), "scenarios" (every accepted name)}.
nlohmann::ordered_json carrier_json(const std::string& url, const std::string& mode,
                                    const std::optional<CarrierStats>& stats,
                                    const std::vector<std::string>& scenario_names);

/// HTTP status of a quote response: 200 for completed and degraded, 503 for failed.
int quote_http_status(const QuoteTrace& t);

}  // namespace quote_lab
