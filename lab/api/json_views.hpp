#pragma once
// How traces, breaker snapshots, the dependency, incidents and the carrier look as JSON
// (SPEC.md, "Routes"). Pure functions of their inputs: one rendering for the API, the
// incidents and the dashboard. LabApp returns values (lab_views.hpp); this renders them.

#include <nlohmann/json_fwd.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lab/app/lab_views.hpp"
#include "lab/api/quote_sentences.hpp"
#include "lab/carrier/carrier_simulator.hpp"
#include "lab/observability/telemetry.hpp"
#include "lab/resilience/breaker.hpp"
#include "lab/resilience/fallback_cache.hpp"
#include "lab/resilience/policy.hpp"
#include "lab/resilience/quote_trace.hpp"

namespace quote_lab {

/// One /incidents entry.
nlohmann::ordered_json incident_json(const Incident& i);

/// How a text answer is laid out: `pretty` as curl shows every answer (two-space indent,
/// final newline, as send_json), `one_line` for a live event.
enum class JsonLayout { pretty, one_line };

/// A policy as every quote answer shows it, built once when the lab starts (or once per
/// request for per-request overrides): its `policy` object and its policy_note() in both
/// languages. The answer's writer writes them with the rest of the answer, in its layout.
struct PolicyView {
  std::string note_en;            ///< policy_note() of the policy, in English
  std::string note_es;            ///< the same in Spanish
  /// The policy as formats/policy_json writes it (never null; shared, as it never changes).
  std::shared_ptr<const nlohmann::ordered_json> object;

  /// The note in `language`.
  const std::string& note(Language language) const { return language == Language::es ? note_es : note_en; }
};
/// The view of `p`, whose JSON form (formats/policy_json) is `rendered`.
PolicyView policy_view(const RetryPolicy& p, const nlohmann::ordered_json& rendered);

/// One quote response as the client and every open dashboard get it (SPEC fields, with
/// `policy_note` (policy.note, in `language`) just before `dependency`, `queue_ms` after `elapsed_ms` (how
/// long the request waited for a worker), then `explanation` {es, en}, `policy`: the policy
/// the request ran under, and `policy_overrides`: the names of the per-request overrides,
/// possibly none). Written straight from the values, without a JSON document: building one
/// was two thirds of a short circuit (bench/changes.md).
std::string quote_response_text(const QuoteTrace& t, const DependencyView& dependency, const PolicyView& policy,
                                const std::vector<std::string>& overrides, double queue_ms, JsonLayout layout,
                                Language language = Language::en);

/// /dependency/state: the breaker (name, circuit_status, consecutive_failures, opened_until
/// as ISO 8601 UTC or null, cooldown_left_ms, open_events, short_circuit_count,
/// last_outcome, last_latency_ms), fallback_quote (quote fields, source, cached_at, age_s,
/// customer_id, items, seed), state_file, state_file_set_aside and state_file_error (null
/// when absent). The same fields as a quote answer's `dependency`.
std::string dependency_text(const DependencyView& d, JsonLayout layout);
/// dependency_text() as a document, for answers that embed it.
nlohmann::ordered_json dependency_json(const DependencyView& d);

/// /diagnostics/summary: {"modes" (the telemetry's own summary), "policies", "dependency",
/// "carrier_mode"}.
nlohmann::ordered_json diagnostics_json(const nlohmann::ordered_json& modes, const DiagnosticsView& d);

/// /incidents: {"limit", "incidents": [incident_json...]}.
nlohmann::ordered_json incidents_json(int limit, const std::vector<Incident>& incidents);

/// /carrier: {"url", "mode", "embedded", "stats" (the embedded carrier's counters without
/// the mode, or null), "metastable" (this lab's metastable episode, metastable_episode.hpp's
/// to_json, or null), "shedding" (this lab's shedding station, shedding_station.hpp's
/// to_json, or null), "scenarios" (every accepted name)}.
nlohmann::ordered_json carrier_json(const std::string& url, const std::string& mode,
                                    const std::optional<CarrierStats>& stats,
                                    const std::vector<std::string>& scenario_names,
                                    const std::optional<MetastableView>& metastable = std::nullopt,
                                    const std::optional<StationView>& shedding = std::nullopt);

/// HTTP status of a quote response: 200 for completed and degraded, 503 for failed.
int quote_http_status(const QuoteTrace& t);

}  // namespace quote_lab
