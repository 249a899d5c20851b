#include "lab/formats/pipeline_json.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "lab/base/did_you_mean.hpp"
#include "lab/formats/json_fields.hpp"
#include "lab/formats/policy_json.hpp"
#include "lab/resilience/strategies/strategy_table.hpp"
#include "lab/resilience/strategy_settings.hpp"

namespace quote_lab {
namespace {

using json = nlohmann::ordered_json;
using namespace json_fields;

template <class S>
std::vector<std::string> keys_of(std::span<const StrategySetting<S>> table) {
  std::vector<std::string> out;
  for (const auto& f : table) out.emplace_back(f.key);
  return out;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A name as typed, shortened: a problem's line stays a line whatever was typed (40 as
// shown_value keeps values).
std::string shown_name(const std::string& typed) { return typed.size() > 40 ? typed.substr(0, 40) + "..." : typed; }

// "unknown setting 'K'", with the nearest setting of the strategy, or the strategy the
// setting belongs to, and every setting the strategy takes.
std::string unknown_setting(const std::string& key, const std::string& owner_label,
                            const std::vector<std::string>& allowed, std::optional<Strategy> strategy) {
  std::string msg = "unknown setting '" + shown_name(key) + "'";
  if (const auto meant = did_you_mean(key, allowed)) {
    msg += "; did you mean '" + *meant + "'?";
  } else if (strategy) {
    for (const auto& other : strategy_names())
      if (other != to_string(*strategy) && contains(strategy_setting_names(*parse_strategy(other)), key)) {
        msg += ", which belongs to '" + other + "'";
        break;
      }
  }
  return msg + (allowed.empty() ? " (" + owner_label + " takes none)"
                                 : " (" + owner_label + " takes: " + joined(allowed) + ")");
}

// Keeps the keys of `obj` in `allowed` (the others are reported) and returns them alone, so a
// reader never reads a setting that belongs elsewhere.
json known_settings(const json& obj, const std::string& where, const std::string& owner_label,
                    const std::vector<std::string>& allowed, std::optional<Strategy> strategy,
                    std::vector<std::string>& errors) {
  json out = json::object();
  for (const auto& [key, value] : obj.items()) {
    if (key == "strategy" && strategy) continue;
    if (contains(allowed, key)) out[key] = value;
    else errors.push_back(where + unknown_setting(key, owner_label, allowed, strategy));
  }
  return out;
}

template <class S>
void read_table(const json& obj, const std::string& prefix, std::span<const StrategySetting<S>> table, S& out,
                std::vector<std::string>& errors) {
  for (const auto& f : table) {
    if (f.int_member)
      read_int(obj, prefix, f.key, static_cast<int>(f.lo), static_cast<int>(f.hi), out.*f.int_member, errors);
    else
      read_number(obj, prefix, f.key, f.lo, f.hi, out.*f.number_member, errors);
  }
}

// Out of line: inlined into a struct that has no double, GCC's -Warray-bounds cannot see
// that a table of such a struct holds no number_member and warns on the read.
template <class S>
[[gnu::noinline]] double read_number_member(const S& s, double S::*member) {
  return s.*member;
}

template <class S>
void write_table(json& j, const S& s, std::span<const StrategySetting<S>> table) {
  for (const auto& f : table) {
    if (f.int_member) j[f.key] = s.*f.int_member;
    else j[f.key] = read_number_member(s, f.number_member);
  }
}

// Reads one strategy's settings struct: each setting within its range, then the ties between
// settings; any problem leaves the defaults, so the policy's final check does not repeat it.
template <class S>
S read_settings(const json& obj, const std::string& where, std::span<const StrategySetting<S>> table,
                std::vector<std::string>& errors) {
  S s{};
  const std::size_t before = errors.size();
  read_table(obj, where, table, s, errors);
  validate(s, where, errors);
  return errors.size() == before ? s : S{};
}

template <class S>
void read_choice(const json& obj, const std::string& where, const ChoiceSetting<S>& c, S& out,
                 std::vector<std::string>& errors) {
  if (!obj.contains(c.key)) return;
  const json& v = obj.at(c.key);
  if (!v.is_string() || !c.set(out, v.get<std::string>()))
    errors.push_back(choice_problem(where + c.key, v, c.names()));
}

// One settings struct: its numbers (read_settings), then its choices.
template <class S>
void read_group(const json& obj, const std::string& where, std::span<const StrategySetting<S>> table, S& out,
                std::vector<std::string>& errors) {
  out = read_settings(obj, where, table, errors);
  for (const auto& c : choice_settings(&out)) read_choice(obj, where, c, out, errors);
}

// The keys of one settings struct: its numbers, then its choices.
template <class S>
std::vector<std::string> group_keys(std::span<const StrategySetting<S>> table) {
  std::vector<std::string> out = keys_of(table);
  for (const auto& c : choice_settings(static_cast<const S*>(nullptr))) out.emplace_back(c.key);
  return out;
}

// The settings structs of strategy `s` (visit_settings): a flat one from the entry itself, a
// nested one ("delay.") from the object of its name, when given.
void read_settings_of(Strategy s, const json& settings, const std::string& where, OverloadStrategies& o,
                      std::vector<std::string>& errors) {
  visit_settings(s, o, [&](const std::string& prefix, auto& group, auto table) {
    if (prefix.empty()) return read_group(settings, where, table, group, errors);
    const std::string name = prefix.substr(0, prefix.size() - 1);
    if (!settings.contains(name)) return;
    const std::vector<std::string> keys = group_keys(table);
    if (!settings.at(name).is_object())
      return errors.push_back(where + name + " must be an object {" + joined(keys) + "}");
    const json nested = known_settings(settings.at(name), where + name + ": ", name, keys, {}, errors);
    read_group(nested, where + prefix, table, group, errors);
  });
}

void read_circuit_breaker(const json& obj, const std::string& where, bool own_breaker_allowed, PipelinePolicy& out,
                          std::vector<std::string>& errors) {
  if (obj.empty()) return;  // the breaker the policy shares
  if (!own_breaker_allowed)
    return errors.push_back(where +
                            "failure_threshold and open_duration_s give a named policy a breaker of its own; legacy "
                            "and resilient share the course breaker, the top-level \"breaker\"");
  BreakerPolicy b;
  read_int(obj, where, "failure_threshold", kFailureThresholdMin, kFailureThresholdMax, b.failure_threshold, errors);
  read_number(obj, where, "open_duration_s", kOpenDurationSMin, kOpenDurationSMax, b.open_duration_s, errors);
  out.breaker = b;
}

void read_retry_strategy(const json& obj, const std::string& where, RetryPolicy& p, std::vector<std::string>& errors) {
  read_retry_keys(obj, where, p, errors);
  if (p.jitter_min_ms > p.jitter_max_ms) {
    errors.push_back(where + "jitter_min_ms must not exceed jitter_max_ms (got " + std::to_string(p.jitter_min_ms) +
                     " and " + std::to_string(p.jitter_max_ms) + ")");
    p.jitter_min_ms = p.jitter_max_ms;  // reported once, here
  }
}

// Reads the settings of strategy `s` (only those it takes) into `out`.
void read_strategy(Strategy s, const json& settings, const std::string& where, bool own_breaker_allowed,
                   PipelinePolicy& out, std::vector<std::string>& errors) {
  RetryPolicy& p = out.retry;
  switch (s) {
    case Strategy::deadline:
      // Listed means there is one: 0 (none) is what leaving the strategy out says.
      if (!settings.contains("deadline_ms"))
        errors.push_back(where + "deadline_ms is required, between 1 and " + std::to_string(kDeadlineMsMax));
      p.deadline_ms = 1;  // whatever is wrong was said above: not "lists 'deadline', which the policy does not use"
      read_int(settings, where, "deadline_ms", 1, kDeadlineMsMax, p.deadline_ms, errors);
      return;
    case Strategy::retry: return read_retry_strategy(settings, where, p, errors);
    case Strategy::circuit_breaker: return read_circuit_breaker(settings, where, own_breaker_allowed, out, errors);
    case Strategy::timeout: return read_retry_keys(settings, where, p, errors);
    default: return read_settings_of(s, settings, where, p.overload, errors);  // fallback has none
  }
}

// The strategy named by one entry of the list, or why it names none.
std::optional<Strategy> entry_strategy(const json& entry, const std::string& at, std::vector<std::string>& errors) {
  const std::string one_of = " (one of: " + joined(strategy_names()) + ")";
  if (!entry.is_object()) {
    errors.push_back(at + " must be an object {\"strategy\": NAME, its settings}" + one_of);
    return std::nullopt;
  }
  if (!entry.contains("strategy")) {
    errors.push_back(at + ": \"strategy\" is missing" + one_of);
    return std::nullopt;
  }
  const auto& v = entry.at("strategy");
  const std::string typed = v.is_string() ? v.get<std::string>() : v.dump();
  const auto s = v.is_string() ? parse_strategy(typed) : std::nullopt;
  if (!s) {
    std::string msg = at + ": unknown strategy '" + shown_name(typed) + "'";
    if (const auto meant = v.is_string() ? did_you_mean(typed, strategy_names()) : std::nullopt)
      msg += "; did you mean '" + *meant + "'?";
    errors.push_back(msg + one_of);
  }
  return s;
}

// Each strategy listed twice or where it cannot run, at its index in the file: each one is
// checked against the strategies before it that can run, so a pipeline with two mistakes
// reports both, and one mistake is reported once.
void check_order(const std::string& name, const std::vector<Strategy>& listed, const std::vector<std::size_t>& index,
                 std::vector<std::string>& errors) {
  std::vector<Strategy> runnable;
  for (std::size_t k = 0; k < listed.size(); ++k) {
    runnable.push_back(listed[k]);
    const std::string problem = pipeline_problem(runnable);
    if (problem.empty()) continue;
    runnable.pop_back();
    errors.push_back(name + ".pipeline[" + std::to_string(index[k]) + "] (" + std::string(to_string(listed[k])) +
                     "): " + problem);
  }
}

}  // namespace

std::vector<std::string> strategy_setting_names(Strategy s) {
  std::vector<std::string> out;
  for (const SettingAbout& a : settings_about(s)) {
    std::string key = a.key.substr(0, a.key.find('.'));  // "delay.mode": the entry's key is "delay"
    if (!contains(out, key)) out.push_back(std::move(key));
  }
  return out;
}

PipelinePolicy pipeline_from_json(const json& list, const std::string& name, bool own_breaker_allowed,
                                  std::vector<std::string>& errors) {
  PipelinePolicy out;
  out.retry.mode = name;
  if (!list.is_array()) {
    errors.push_back(name + ".pipeline must be a list of {\"strategy\": NAME, its settings}, outermost first");
    return out;
  }
  std::vector<Strategy> listed;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = name + ".pipeline[" + std::to_string(i) + "]";
    const auto s = entry_strategy(list[i], at, errors);
    if (!s) continue;
    const std::string label(to_string(*s));
    const std::string where = at + " (" + label + "): ";
    const json settings = known_settings(list[i], where, label, strategy_setting_names(*s), s, errors);
    read_strategy(*s, settings, where, own_breaker_allowed, out, errors);
    listed.push_back(*s);
    index.push_back(i);
  }
  const auto has = [&listed](Strategy s) { return std::find(listed.begin(), listed.end(), s) != listed.end(); };
  RetryPolicy& p = out.retry;
  if (!has(Strategy::retry)) p.max_attempts = 1;
  p.pipeline = listed;
  const std::size_t before = errors.size();
  check_order(name, listed, index, errors);
  if (!has(Strategy::timeout)) {
    errors.push_back(name + ".pipeline: 'timeout' is missing: every pipeline ends with {\"strategy\": \"timeout\", "
                            "\"timeout_ms\": 10-10000}");
    p.pipeline.push_back(Strategy::timeout);
  }
  if (errors.size() != before) {
    // Reported here with the index; the policy's own check must not say it again.
    std::stable_sort(p.pipeline.begin(), p.pipeline.end(),
                     [](Strategy a, Strategy b) { return strategy_rank(a) < strategy_rank(b); });
    std::vector<Strategy> once;
    for (const Strategy s : p.pipeline) {
      if (std::find(once.begin(), once.end(), s) != once.end()) continue;
      once.push_back(s);
      if (!pipeline_problem(once).empty()) once.pop_back();  // still cannot run in the shipped order: left out
    }
    p.pipeline = once;
  }
  return out;
}

json pipeline_to_json(const RetryPolicy& p, const std::optional<BreakerPolicy>& own_breaker) {
  json list = json::array();
  for (const Strategy s : p.pipeline) {
    json e = {{"strategy", std::string(to_string(s))}};
    switch (s) {
      case Strategy::deadline: e["deadline_ms"] = p.deadline_ms; break;
      case Strategy::retry: {
        const json flat = to_json(p, true);
        for (const auto& key : strategy_setting_names(s)) e[key] = flat.at(key);
        break;
      }
      case Strategy::circuit_breaker:
        if (own_breaker) e.update(to_json(*own_breaker));
        break;
      case Strategy::timeout: e["timeout_ms"] = p.timeout_ms; break;
      default:
        visit_settings(s, p.overload, [&e](const std::string& prefix, const auto& group, auto table) {
          json& at = prefix.empty() ? e : (e[prefix.substr(0, prefix.size() - 1)] = json::object());
          write_table(at, group, table);
          for (const auto& c : choice_settings(&group)) at[c.key] = std::string(c.get(group));
        });
    }
    list.push_back(std::move(e));
  }
  return list;
}

namespace {

json prose_json(const Prose& p) { return {{"es", p.es}, {"en", p.en}}; }

// How the overload panel shows each live figure of strategy `s` (GaugeFamily).
json gauges_json(Strategy s) {
  json out = json::array();
  for (const GaugeFamily* f : gauges_of(s)) {
    json g = {{"family", f->name}, {"label", prose_json(f->label)}, {"shows", to_string(f->shows)},
              {"settles", f->settles}};
    if (!f->out_of.empty()) g["out_of"] = f->out_of;
    if (!f->before_first.en.empty()) g["before_first"] = prose_json(f->before_first);
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace

json strategies_to_json() {
  json list = json::array();
  for (const std::string& name : strategy_names()) {
    const Strategy s = *parse_strategy(name);
    RetryPolicy defaults;  // the resilient numbers and each strategy's sources' defaults
    defaults.pipeline = {s};
    const json entry = pipeline_to_json(defaults, BreakerPolicy{}).at(0);
    json settings = json::array();
    for (const SettingAbout& a : settings_about(s)) {
      json row = {{"name", a.key}};
      if (!a.choices.empty()) {
        row["choices"] = a.choices;
      } else if (a.integer) {
        row["min"] = static_cast<long long>(a.lo), row["max"] = static_cast<long long>(a.hi);
      } else {
        row["min"] = a.lo, row["max"] = a.hi;
      }
      const auto dot = a.key.find('.');
      const json value = dot == std::string::npos ? entry.value(a.key, json())
                                                   : entry.at(a.key.substr(0, dot)).value(a.key.substr(dot + 1), json());
      // deadline_ms 0 is "none": no default a listed deadline could take.
      const bool in_range = !value.is_number() || (value.get<double>() >= a.lo && value.get<double>() <= a.hi);
      row["default"] = in_range ? value : json();
      row["description"] = {{"es", a.does.es}, {"en", a.does.en}};
      row["source"] = a.source;
      settings.push_back(std::move(row));
    }
    const StrategyAbout about_it = about(s);
    const StrategySteps steps = steps_of(s);
    list.push_back({{"name", name},
                    {"term", prose_json(about_it.label)},
                    {"description", prose_json(about_it.does)},
                    {"source", about_it.source},
                    {"settings", std::move(settings)},
                    {"gauges", gauges_json(s)},
                    {"rejects", steps.rejected ? json(to_string(*steps.rejected)) : json()},
                    {"hedges", steps.hedges}});
  }
  return list;
}

}  // namespace quote_lab
