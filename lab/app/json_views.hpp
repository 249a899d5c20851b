#pragma once
// How traces, breaker snapshots and incidents look as JSON (SPEC.md, "Routes"). Pure
// functions of their inputs: one rendering for the API, the incidents and the dashboard.

#include <nlohmann/json.hpp>
#include <optional>

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
nlohmann::ordered_json quote_json(const QuoteTrace& t, const nlohmann::ordered_json& dependency);

/// One /incidents entry.
nlohmann::ordered_json incident_json(const Incident& i);

/// HTTP status of a quote response: 200 for completed and degraded, 503 for failed.
int quote_http_status(const QuoteTrace& t);

}  // namespace quote_lab
