#include "lab/app/json_views.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "lab/base/time_format.hpp"
#include "lab/formats/policy_json.hpp"
#include "lab/formats/quote_json.hpp"

namespace quote_lab {
namespace {

// Latencies keep two decimals so a sub-millisecond short circuit does not read as 0.
double round2(double v) { return std::round(v * 100) / 100; }

nlohmann::ordered_json event_json(const TraceEvent& e) {
  nlohmann::ordered_json j = {{"event", to_string(e.step)}, {"attempt", e.attempt}};
  if (e.elapsed_ms) j["elapsed_ms"] = round2(*e.elapsed_ms);
  if (e.reason) j["reason"] = to_string(*e.reason);
  if (e.wait_ms) j["wait_ms"] = *e.wait_ms;
  return j;
}

// One plain sentence per outcome, in both of the course's languages.
nlohmann::ordered_json explanation(const QuoteTrace& t) {
  const int n = t.attempts();
  const std::string times_es = n == 1 ? "1 vez" : std::to_string(n) + " veces";
  const std::string times_en = n == 1 ? "once" : std::to_string(n) + " times";
  const bool short_circuited = t.short_circuited();
  const bool probed = t.probed();
  if (t.status == QuoteStatus::completed && probed)
    return {{"es", "El circuito estaba semiabierto: esta llamada fue la sonda, el proveedor respondió y el circuito se cerró."},
            {"en", "The breaker was half-open: this call was the probe, the carrier answered and the breaker closed."}};
  if (t.status == QuoteStatus::completed && n == 1)
    return {{"es", "Cotización en vivo al primer intento."}, {"en", "Live quote on the first attempt."}};
  if (t.status == QuoteStatus::completed)
    return {{"es", "Cotización en vivo tras " + std::to_string(n) + " intentos: el reintento sirvió."},
            {"en", "Live quote after " + std::to_string(n) + " attempts: the retry helped."}};
  if (t.status == QuoteStatus::degraded && short_circuited)
    return {{"es", "Circuito abierto: no se llamó al proveedor; se respondió con la cotización de respaldo."},
            {"en", "Circuit open: the carrier was not called; the fallback quote was served."}};
  if (t.status == QuoteStatus::degraded && probed)
    return {{"es", "La sonda del circuito semiabierto falló: el circuito se reabrió y se respondió con la cotización de respaldo."},
            {"en", "The half-open probe failed: the breaker reopened and the fallback quote was served."}};
  if (t.status == QuoteStatus::degraded)
    return {{"es", "El proveedor falló " + times_es + "; se respondió con la cotización de respaldo."},
            {"en", "The carrier failed " + times_en + "; the fallback quote was served."}};
  return {{"es", "El proveedor falló " + times_es + " y no hay respaldo: 503."},
          {"en", "The carrier failed " + times_en + " and there is no fallback: 503."}};
}

}  // namespace

nlohmann::ordered_json breaker_json(const BreakerSnapshot& s) {
  return {{"name", s.name},
          {"circuit_status", std::string(to_string(s.state))},
          {"consecutive_failures", s.consecutive_failures},
          {"opened_until", s.opened_until ? nlohmann::ordered_json(format_iso8601(*s.opened_until))
                                          : nlohmann::ordered_json(nullptr)},
          {"cooldown_left_ms", s.cooldown_left_ms},
          {"open_events", s.open_events},
          {"short_circuit_count", s.short_circuit_count},
          {"last_outcome", s.last_outcome.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.last_outcome)},
          {"last_latency_ms", s.last_latency_ms ? nlohmann::ordered_json(round2(*s.last_latency_ms))
                                                : nlohmann::ordered_json(nullptr)}};
}

nlohmann::ordered_json cached_quote_json(const CachedQuote& q, WallTime now) {
  nlohmann::ordered_json j = to_json(q.quote);
  j["source"] = "fallback";
  j["cached_at"] = format_iso8601(q.cached_at);
  j["age_s"] = q.age_s(now);
  j["customer_id"] = q.customer_id;
  j["items"] = q.items;
  j["seed"] = q.seed;
  return j;
}

nlohmann::ordered_json quote_json(const QuoteTrace& t, nlohmann::ordered_json dependency) {
  nlohmann::ordered_json quote = nullptr;
  if (t.answer) {
    quote = to_json(t.answer->quote);
    quote["source"] = t.answer->fallback ? "fallback" : "live";
    if (t.answer->fallback) {
      quote["cached_at"] = format_iso8601(t.answer->cached_at);
      quote["age_s"] = t.answer->age_s;
      quote["seed"] = t.answer->seed;
    }
  }
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  for (const auto& e : t.events) events.push_back(event_json(e));
  return {{"mode", to_string(t.request.mode)},
          {"scenario", t.request.scenario},
          {"status", std::string(to_string(t.status))},
          {"request_id", t.request.request_id},
          {"trace_id", t.request.trace_id},
          {"customer_id", t.request.customer_id},
          {"items", t.request.items},
          // moved, not copied: a nested object in an initializer list is otherwise copied whole
          {"quote", std::move(quote)},
          {"attempts", t.attempts()},
          {"retries", t.retries()},
          {"timeout_count", t.timeouts()},
          {"events", std::move(events)},
          {"dependency", std::move(dependency)},
          {"elapsed_ms", round2(t.elapsed_ms)},
          {"timestamp_utc", format_iso8601(t.timestamp)},
          {"explanation", explanation(t)}};
}

nlohmann::ordered_json incident_json(const Incident& i) {
  return {{"request_id", i.request_id},
          {"mode", to_string(i.mode)},
          {"scenario", i.scenario},
          {"status", std::string(to_string(i.status))},
          {"attempts", i.attempts},
          {"retries", i.retries},
          {"timeout_count", i.timeout_count},
          {"fallback_used", i.fallback_used},
          {"short_circuited", i.short_circuited},
          {"elapsed_ms", round2(i.elapsed_ms)},
          {"queue_ms", round2(i.queue_ms)},
          {"timestamp_utc", format_iso8601(i.timestamp)}};
}

nlohmann::ordered_json quote_response_json(const QuoteTrace& t, const DependencyView& dependency,
                                           const nlohmann::ordered_json& policy,
                                           const std::vector<std::string>& overrides) {
  auto body = quote_json(t, dependency_json(dependency));
  body["policy"] = policy;
  body["policy_overrides"] = overrides;
  return body;
}

nlohmann::ordered_json dependency_json(const DependencyView& d) {
  const auto optional_text = [](const std::optional<std::string>& s) {
    return s ? nlohmann::ordered_json(*s) : nlohmann::ordered_json(nullptr);
  };
  nlohmann::ordered_json j = breaker_json(d.breaker);
  j["fallback_quote"] = cached_quote_json(d.fallback_quote, d.now);
  j["state_file"] = d.state_file;
  j["state_file_set_aside"] = optional_text(d.state_file_set_aside);
  j["state_file_error"] = optional_text(d.state_file_error);
  return j;
}

nlohmann::ordered_json diagnostics_json(const nlohmann::ordered_json& modes, const DiagnosticsView& d) {
  return {{"modes", modes},
          {"policies", to_json(d.policies)},
          {"dependency", dependency_json(d.dependency)},
          {"carrier_mode", d.carrier_mode}};
}

nlohmann::ordered_json incidents_json(int limit, const std::vector<Incident>& incidents) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& i : incidents) list.push_back(incident_json(i));
  return {{"limit", limit}, {"incidents", list}};
}

nlohmann::ordered_json carrier_json(const std::string& url, const std::string& mode,
                                    const std::optional<CarrierStats>& stats,
                                    const std::vector<std::string>& scenario_names) {
  nlohmann::ordered_json counters = nullptr;  // the mode is shown once, at the top
  if (stats) {
    counters = to_json(*stats);
    counters.erase("mode");
  }
  return {{"url", url}, {"mode", mode}, {"embedded", stats.has_value()}, {"stats", counters}, {"scenarios", scenario_names}};
}

int quote_http_status(const QuoteTrace& t) { return t.status == QuoteStatus::failed ? 503 : 200; }

}  // namespace quote_lab
