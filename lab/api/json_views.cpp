#include "lab/api/json_views.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <string_view>

#include "lab/api/quote_sentences.hpp"
#include "lab/base/time_format.hpp"
#include "lab/formats/policy_json.hpp"
#include "lab/formats/quote_json.hpp"

namespace quote_lab {
namespace {

// Latencies keep two decimals so a sub-millisecond short circuit does not read as 0.
double round2(double v) { return std::round(v * 100) / 100; }

// Quote answers and the dependency are written straight from the values with RapidJSON's
// writer, never built as a document first: on a short circuit, building and printing an
// nlohmann document was two thirds of the request (bench/changes.md). Every
// string written here is UTF-8 by construction (names from fixed sets, ids in hex, values
// parsed as JSON) except the state file's path and error, which go through valid_utf8().
using Buffer = rapidjson::StringBuffer;
using OneLine = rapidjson::Writer<Buffer>;
using Pretty = rapidjson::PrettyWriter<Buffer>;

// A path or an OS message may hold bytes that are not UTF-8: replaced (U+FFFD) as nlohmann
// does; ASCII, the common case, is returned as it is.
std::string valid_utf8(const std::string& s) {
  if (std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) return s;
  const auto quoted = nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return nlohmann::json::parse(quoted).get<std::string>();
}

template <class W>
void key(W& w, std::string_view k) {
  w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
}
template <class W>
void text(W& w, std::string_view v) {
  w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}
template <class W>
void number(W& w, double v) {
  if (std::isfinite(v)) w.Double(v);
  else w.Null();  // as nlohmann prints NaN and infinities
}
template <class W>
void time_or_null(W& w, const std::optional<WallTime>& t) {
  if (t) text(w, format_iso8601(*t));
  else w.Null();
}
template <class W>
void text_or_null(W& w, const std::optional<std::string>& v) {
  if (v) text(w, valid_utf8(*v));
  else w.Null();
}

// Any nlohmann value (the policy, rendered once per mode) into the same writer.
template <class W>
void value(W& w, const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::object:
      w.StartObject();
      for (const auto& [k, v] : j.items()) {
        key(w, k);
        value(w, v);
      }
      w.EndObject();
      break;
    case nlohmann::ordered_json::value_t::array:
      w.StartArray();
      for (const auto& v : j) value(w, v);
      w.EndArray();
      break;
    case nlohmann::ordered_json::value_t::string: text(w, j.get_ref<const std::string&>()); break;
    case nlohmann::ordered_json::value_t::boolean: w.Bool(j.get<bool>()); break;
    case nlohmann::ordered_json::value_t::number_integer: w.Int64(j.get<std::int64_t>()); break;
    case nlohmann::ordered_json::value_t::number_unsigned: w.Uint64(j.get<std::uint64_t>()); break;
    case nlohmann::ordered_json::value_t::number_float: number(w, j.get<double>()); break;
    default: w.Null(); break;
  }
}

template <class W>
void write_event(W& w, const TraceEvent& e) {
  w.StartObject();
  key(w, "event"), text(w, to_string(e.step));
  key(w, "attempt"), w.Int(e.attempt);
  if (e.elapsed_ms) key(w, "elapsed_ms"), number(w, round2(*e.elapsed_ms));
  if (e.reason) key(w, "reason"), text(w, to_string(*e.reason));
  if (e.wait_ms) key(w, "wait_ms"), w.Int64(*e.wait_ms);
  w.EndObject();
}

// The quote fields of the carrier's answer (formats/quote_json.hpp writes the same four).
template <class W>
void write_quote_fields(W& w, const Quote& q) {
  key(w, "quote_id"), text(w, q.quote_id);
  key(w, "amount"), number(w, q.amount);
  key(w, "currency"), text(w, q.currency);
  key(w, "priced_at"), text(w, format_iso8601(q.priced_at));
}

// The breaker fields of /dependency/state: name, circuit_status, consecutive_failures,
// opened_until (ISO 8601 UTC or null), cooldown_left_ms, open_events,
// short_circuit_count, last_outcome (null before any call), last_latency_ms.
template <class W>
void write_breaker_fields(W& w, const BreakerSnapshot& s) {
  key(w, "name"), text(w, s.name);
  key(w, "circuit_status"), text(w, to_string(s.state));
  key(w, "consecutive_failures"), w.Int(s.consecutive_failures);
  key(w, "opened_until"), time_or_null(w, s.opened_until);
  key(w, "cooldown_left_ms"), w.Int64(s.cooldown_left_ms);
  key(w, "open_events"), w.Uint64(s.open_events);
  key(w, "short_circuit_count"), w.Uint64(s.short_circuit_count);
  key(w, "last_outcome");
  if (s.last_outcome.empty()) w.Null();
  else text(w, s.last_outcome);
  key(w, "last_latency_ms");
  if (s.last_latency_ms) number(w, round2(*s.last_latency_ms));
  else w.Null();
}

// /dependency/state: the breaker, fallback_quote (quote fields, source, cached_at, age_s,
// customer_id, items, seed), state_file, state_file_set_aside, state_file_error,
// state_backend {kind, healthy, error}.
template <class W>
void write_dependency(W& w, const DependencyView& d) {
  w.StartObject();
  write_breaker_fields(w, d.breaker);
  key(w, "fallback_quote");
  w.StartObject();
  const CachedQuote& q = d.fallback_quote;
  write_quote_fields(w, q.quote);
  key(w, "source"), text(w, "fallback");
  key(w, "cached_at"), text(w, format_iso8601(q.cached_at));
  key(w, "age_s"), number(w, q.age_s(d.now));
  key(w, "customer_id"), w.Int(q.customer_id);
  key(w, "items"), w.Int(q.items);
  key(w, "seed"), w.Bool(q.seed);
  w.EndObject();
  key(w, "state_file"), text(w, valid_utf8(d.state_file));
  key(w, "state_file_set_aside"), text_or_null(w, d.state_file_set_aside);
  key(w, "state_file_error"), text_or_null(w, d.state_file_error);
  key(w, "state_backend");
  w.StartObject();
  key(w, "kind"), text(w, d.state_backend.kind);
  key(w, "healthy"), w.Bool(d.state_backend.healthy);
  key(w, "error"), text_or_null(w, d.state_backend.error);
  w.EndObject();
  w.EndObject();
}

template <class W>
void write_quote_response(W& w, const QuoteTrace& t, const PolicyView& policy, const DependencyView& dependency, const std::vector<std::string>& overrides,
                          double queue_ms, Language language) {
  w.StartObject();
  key(w, "mode"), text(w, t.request.mode);
  key(w, "scenario"), text(w, t.request.scenario);
  key(w, "status"), text(w, to_string(t.status));
  key(w, "request_id"), text(w, t.request.request_id);
  key(w, "trace_id"), text(w, t.request.trace_id);
  key(w, "customer_id"), w.Int(t.request.customer_id);
  key(w, "items"), w.Int(t.request.items);
  key(w, "priority"), text(w, to_string(t.request.priority));
  key(w, "quote");
  if (t.answer) {
    w.StartObject();
    write_quote_fields(w, t.answer->quote);
    key(w, "source"), text(w, t.answer->fallback ? "fallback" : "live");
    if (t.answer->fallback) {
      key(w, "cached_at"), text(w, format_iso8601(t.answer->cached_at));
      key(w, "age_s"), number(w, t.answer->age_s);
      key(w, "seed"), w.Bool(t.answer->seed);
    }
    w.EndObject();
  } else {
    w.Null();
  }
  key(w, "attempts"), w.Int(t.attempts());
  key(w, "retries"), w.Int(t.retries());
  key(w, "timeout_count"), w.Int(t.timeouts());
  key(w, "rejected");  // which overload strategy refused the call before the carrier; null: none did
  if (const auto r = t.rejected()) text(w, to_string(*r));
  else w.Null();
  key(w, "events");
  w.StartArray();
  for (const auto& e : t.events) write_event(w, e);
  w.EndArray();
  key(w, "policy_note"), text(w, policy.note(language));
  key(w, "dependency"), write_dependency(w, dependency);
  key(w, "elapsed_ms"), number(w, round2(t.elapsed_ms));
  key(w, "queue_ms"), number(w, round2(queue_ms));
  key(w, "timestamp_utc"), text(w, format_iso8601(t.timestamp));
  const Explanation said = explanation(t);
  key(w, "explanation");
  w.StartObject();
  key(w, "es"), text(w, said.es);
  key(w, "en"), text(w, said.en);
  w.EndObject();
  key(w, "policy"), value(w, *policy.object);
  key(w, "policy_overrides");
  w.StartArray();
  for (const auto& o : overrides) text(w, o);
  w.EndArray();
  w.EndObject();
}

// The writer calls above, building a document instead of text: a route that embeds the
// dependency in a larger document gets it from the one writer of its fields.
class DocumentWriter {
 public:
  nlohmann::ordered_json take() { return std::move(root_); }
  void StartObject() { open(nlohmann::ordered_json::object()); }
  void StartArray() { open(nlohmann::ordered_json::array()); }
  void EndObject() { open_.pop_back(); }
  void EndArray() { open_.pop_back(); }
  void Key(const char* k, rapidjson::SizeType n) { key_.assign(k, n); }
  void String(const char* s, rapidjson::SizeType n) { put(std::string(s, n)); }
  void Int(int v) { put(v); }
  void Int64(std::int64_t v) { put(v); }
  void Uint64(std::uint64_t v) { put(v); }
  void Double(double v) { put(v); }
  void Bool(bool v) { put(v); }
  void Null() { put(nullptr); }

 private:
  // Adds to the innermost open container (under the last key for an object); the
  // containers outside it get nothing while it is open, so the pointers to them hold.
  nlohmann::ordered_json& put(nlohmann::ordered_json v) {
    if (open_.empty()) return root_ = std::move(v);
    nlohmann::ordered_json& into = *open_.back();
    if (into.is_array()) {
      into.push_back(std::move(v));
      return into.back();
    }
    return into[key_] = std::move(v);
  }
  void open(nlohmann::ordered_json empty) { open_.push_back(&put(std::move(empty))); }

  nlohmann::ordered_json root_;
  std::vector<nlohmann::ordered_json*> open_;
  std::string key_;
};

// Runs `write` into a writer of `layout`; the text ends with a newline when pretty (as
// send_json's answers do).
template <class Write>
std::string written(JsonLayout layout, const Write& write) {
  Buffer buffer(nullptr, 4096);  // a quote answer is about 2 KB: no regrowth
  if (layout == JsonLayout::pretty) {
    Pretty w(buffer);
    w.SetIndent(' ', 2);
    write(w);
    buffer.Put('\n');
  } else {
    OneLine w(buffer);
    write(w);
  }
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

PolicyView policy_view(const RetryPolicy& p, const nlohmann::ordered_json& rendered) {
  return {policy_note(p, Language::en), policy_note(p, Language::es),
          std::make_shared<const nlohmann::ordered_json>(rendered)};
}

std::string quote_response_text(const QuoteTrace& t, const DependencyView& dependency, const PolicyView& policy,
                                const std::vector<std::string>& overrides, double queue_ms, JsonLayout layout,
                                Language language) {
  return written(layout, [&](auto& w) { write_quote_response(w, t, policy, dependency, overrides, queue_ms, language); });
}

std::string dependency_text(const DependencyView& d, JsonLayout layout) {
  return written(layout, [&](auto& w) { write_dependency(w, d); });
}

nlohmann::ordered_json dependency_json(const DependencyView& d) {
  DocumentWriter w;
  write_dependency(w, d);
  return w.take();
}

nlohmann::ordered_json incident_json(const Incident& i) {
  return {{"request_id", i.request_id},
          {"mode", i.mode},
          {"scenario", i.scenario},
          {"status", std::string(to_string(i.status))},
          {"attempts", i.attempts},
          {"retries", i.retries},
          {"timeout_count", i.timeout_count},
          {"fallback_used", i.fallback_used},
          {"short_circuited", i.short_circuited},
          {"cancelled", i.cancelled},
          {"elapsed_ms", round2(i.elapsed_ms)},
          {"queue_ms", round2(i.queue_ms)},
          {"timestamp_utc", format_iso8601(i.timestamp)}};
}

nlohmann::ordered_json diagnostics_json(const nlohmann::ordered_json& modes, const DiagnosticsView& d) {
  return {{"modes", modes},
          {"policies", policies_shown_json(d.policies, false)},
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
                                    const std::vector<std::string>& scenario_names,
                                    const std::optional<MetastableView>& metastable,
                                    const std::optional<StationView>& shedding) {
  nlohmann::ordered_json counters = nullptr;  // the mode is shown once, at the top
  if (stats) {
    counters = to_json(*stats);
    counters.erase("mode");
  }
  return {{"url", url},
          {"mode", mode},
          {"embedded", stats.has_value()},
          {"stats", counters},
          {"metastable", metastable ? to_json(*metastable) : nlohmann::ordered_json(nullptr)},
          {"shedding", shedding ? to_json(*shedding) : nlohmann::ordered_json(nullptr)},
          {"scenarios", scenario_names}};
}

int quote_http_status(const QuoteTrace& t) { return t.status == QuoteStatus::failed ? 503 : 200; }

}  // namespace quote_lab
