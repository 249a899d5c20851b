#include "lab/carrier/scenario_shedding.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "lab/base/name_table.hpp"
#include "lab/formats/json_int.hpp"

namespace quote_lab {
namespace {

constexpr NameTable<QueueDiscipline, 4> kDisciplineNames{{{
    {QueueDiscipline::fifo, "fifo"},
    {QueueDiscipline::lifo, "lifo"},
    {QueueDiscipline::codel, "codel"},
    {QueueDiscipline::adaptive_lifo, "adaptive_lifo"},
}}};

// A simulated wait of at most ten minutes, as every other time of a scenario file.
constexpr int kMaxMs = 600000;

using Json = nlohmann::ordered_json;

// Every key of `j` must be one of `allowed`; `where` names the object.
void known_keys(const Json& j, const std::string& where, const std::vector<std::string>& allowed,
                std::vector<std::string>& errors) {
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  for (const auto& [key, _] : j.items())
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      errors.push_back(where + ": unknown key '" + key + "' (allowed: " + list + ")");
}

// j[key] as an int in [lo, hi]; absent: `fallback`, or a problem when there is none.
int int_field(const Json& j, const std::string& where, const char* key, int lo, int hi, std::optional<int> fallback,
              std::vector<std::string>& errors) {
  const auto it = j.find(key);
  if (it == j.end()) {
    if (!fallback) errors.push_back(where + "." + key + " is missing (an integer between " + std::to_string(lo) +
                                    " and " + std::to_string(hi) + ")");
    return fallback.value_or(lo);
  }
  if (const auto v = json_int_in_range(*it, lo, hi)) return static_cast<int>(*v);
  errors.push_back(int_range_problem(where + "." + key, *it, lo, hi));
  return fallback.value_or(lo);
}

// j[key] as a number in [0, 1]; absent: `fallback`, or a problem when there is none.
double share_field(const Json& j, const std::string& where, const char* key, std::optional<double> fallback,
                   std::vector<std::string>& errors) {
  const auto it = j.find(key);
  if (it == j.end() && fallback) return *fallback;
  if (it != j.end() && it->is_number() && it->get<double>() >= 0 && it->get<double>() <= 1) return it->get<double>();
  errors.push_back(where + "." + key + " must be a number between 0 and 1" +
                   (it == j.end() ? std::string(" (missing)") : " (got " + it->dump().substr(0, 40) + ")"));
  return 0;
}

SheddingQueue parse_queue(const Json& j, std::vector<std::string>& errors) {
  SheddingQueue q;
  if (!j.is_object()) {
    errors.push_back("shedding.queue must be an object {\"discipline\", \"max\"} (codel: also target_ms, interval_ms)");
    return q;
  }
  known_keys(j, "shedding.queue", {"discipline", "max", "target_ms", "interval_ms"}, errors);
  std::string allowed;
  for (const auto& n : queue_discipline_names()) allowed += (allowed.empty() ? "\"" : ", \"") + n + "\"";
  const auto d = j.find("discipline");
  const auto parsed = d != j.end() && d->is_string() ? kDisciplineNames.parse(d->get<std::string>()) : std::nullopt;
  if (parsed) q.discipline = *parsed;
  else errors.push_back("shedding.queue.discipline must be " + allowed +
                        (d == j.end() ? std::string(" (missing)") : " (got " + d->dump().substr(0, 40) + ")"));
  q.max = int_field(j, "shedding.queue", "max", 0, kMaxSheddingCalls, std::nullopt, errors);
  const bool codel = q.discipline == QueueDiscipline::codel || q.discipline == QueueDiscipline::adaptive_lifo;
  for (const char* key : {"target_ms", "interval_ms"})
    if (j.contains(key) && !codel)
      errors.push_back(std::string("shedding.queue.") + key + " goes with \"codel\" or \"adaptive_lifo\" only");
  q.target_ms = int_field(j, "shedding.queue", "target_ms", 1, kMaxMs, q.target_ms, errors);
  q.interval_ms = int_field(j, "shedding.queue", "interval_ms", 1, kMaxMs, q.interval_ms, errors);
  if (q.target_ms > q.interval_ms)
    errors.push_back("shedding.queue.target_ms must not exceed interval_ms (CoDel waits target_ms at most only "
                     "while congested, interval_ms otherwise)");
  return q;
}

SheddingTrigger parse_trigger(const Json& j, std::vector<std::string>& errors) {
  SheddingTrigger t;
  if (!j.is_object()) {
    errors.push_back("shedding.trigger must be an object {\"after_ms\", \"length_ms\", \"capacity_drop\"}");
    return t;
  }
  known_keys(j, "shedding.trigger", {"after_ms", "length_ms", "capacity_drop"}, errors);
  t.after_ms = int_field(j, "shedding.trigger", "after_ms", 0, kMaxMs, 0, errors);
  t.length_ms = int_field(j, "shedding.trigger", "length_ms", 1, kMaxMs, std::nullopt, errors);
  t.capacity_drop = share_field(j, "shedding.trigger", "capacity_drop", std::nullopt, errors);
  return t;
}

}  // namespace

std::string_view to_string(QueueDiscipline d) { return kDisciplineNames.name(d); }
std::vector<std::string> queue_discipline_names() { return kDisciplineNames.names(); }

Shedding shedding_from_json(const Json& j, std::vector<std::string>& errors) {
  Shedding s;
  if (!j.is_object()) {
    errors.push_back("shedding must be an object {\"capacity\", \"queue\", \"critical_share\", \"trigger\"}");
    return s;
  }
  known_keys(j, "shedding", {"capacity", "queue", "critical_share", "trigger"}, errors);
  s.capacity = int_field(j, "shedding", "capacity", 1, kMaxSheddingCalls, std::nullopt, errors);
  if (const auto q = j.find("queue"); q != j.end()) s.queue = parse_queue(*q, errors);
  else errors.push_back("shedding.queue is missing (e.g. {\"discipline\": \"fifo\", \"max\": 16})");
  s.critical_share = share_field(j, "shedding", "critical_share", 0.0, errors);
  if (const auto t = j.find("trigger"); t != j.end()) s.trigger = parse_trigger(*t, errors);
  return s;
}

nlohmann::ordered_json to_json(const Shedding& s) {
  Json queue = {{"discipline", to_string(s.queue.discipline)}, {"max", s.queue.max}};
  if (s.queue.discipline == QueueDiscipline::codel || s.queue.discipline == QueueDiscipline::adaptive_lifo) {
    queue["target_ms"] = s.queue.target_ms;
    queue["interval_ms"] = s.queue.interval_ms;
  }
  Json out = {{"capacity", s.capacity}, {"queue", queue}, {"critical_share", s.critical_share}};
  if (s.trigger)
    out["trigger"] = {{"after_ms", s.trigger->after_ms},
                      {"length_ms", s.trigger->length_ms},
                      {"capacity_drop", s.trigger->capacity_drop}};
  return out;
}

}  // namespace quote_lab
