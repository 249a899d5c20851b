#include "lab/carrier/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <optional>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "lab/base/did_you_mean.hpp"
#include "lab/carrier/http_date.hpp"
#include "lab/formats/json_int.hpp"

namespace quote_lab {
namespace {

// Bounds of the numbers a scenario file holds: a simulated latency or hang of at most ten
// minutes, an HTTP status, a listing position.
constexpr int kMaxLatencyMs = 600000;
constexpr int kMinStatus = 100;
constexpr int kMaxStatus = 599;
constexpr int kMaxOrder = 1000000;
constexpr int kMaxFaults = 20;
constexpr int kMaxSliceBytes = 65536;
constexpr int kMaxCapacity = 10000;
constexpr std::int64_t kMaxRetryAfterS = 86400;

using Kind = AttemptBehaviour::Kind;

// Every response word a file may use, with its kind (aliases after the Toxiproxy-like names).
struct KindName {
  const char* name;
  Kind kind;
};
constexpr KindName kKinds[] = {{"ok", Kind::answer},         {"timeout", Kind::timeout},
                               {"hang", Kind::timeout},      {"reset_peer", Kind::reset_peer},
                               {"refused", Kind::refused},   {"slicer", Kind::slicer},
                               {"bandwidth", Kind::slicer},  {"malformed", Kind::malformed},
                               {"truncated", Kind::truncated}};

std::string allowed_responses() {
  std::string s;
  for (const auto& k : kKinds) s += std::string(s.empty() ? "" : ", ") + "\"" + k.name + "\"";
  return s + " or an HTTP status " + std::to_string(kMinStatus) + "-" + std::to_string(kMaxStatus);
}

// "p50" → 0.50, "p99.9" → 0.999, "max" → 1, "min" → 0; nullopt for anything else.
std::optional<double> percentile_key(const std::string& key) {
  if (key == "min") return 0.0;
  if (key == "max") return 1.0;
  if (key.size() < 2 || key[0] != 'p') return std::nullopt;
  const std::string num = key.substr(1);
  if (num.find_first_not_of("0123456789.") != std::string::npos || num.front() == '.' || num.back() == '.') return std::nullopt;
  const double p = std::stod(num);
  if (p <= 0 || p >= 100) return std::nullopt;
  return p / 100.0;
}

void parse_latency(const nlohmann::ordered_json& lat, const std::string& where, AttemptBehaviour& b,
                   std::vector<std::string>& errors) {
  if (lat.is_object()) {
    for (const auto& [key, v] : lat.items()) {
      const auto p = percentile_key(key);
      const auto ms = json_int_in_range(v, 0, kMaxLatencyMs);
      if (!p) errors.push_back(where + ".latency_ms: unknown key '" + key + "' (allowed: \"min\", \"pNN\" such as \"p50\" or \"p99.9\", \"max\")");
      else if (!ms) errors.push_back(int_range_problem(where + ".latency_ms." + key, v, 0, kMaxLatencyMs));
      else b.latency_table.push_back({*p, static_cast<int>(*ms)});
    }
    if (!lat.contains("max")) errors.push_back(where + ".latency_ms needs \"max\" (the slowest call, in ms)");
    if (!lat.contains("min")) b.latency_table.push_back({0.0, 0});
    std::sort(b.latency_table.begin(), b.latency_table.end(),
              [](const LatencyPoint& x, const LatencyPoint& y) { return x.fraction < y.fraction; });
    for (std::size_t i = 1; i < b.latency_table.size(); ++i)
      if (b.latency_table[i].ms < b.latency_table[i - 1].ms)
        errors.push_back(where + ".latency_ms: values must not decrease as the percentile grows");
    if (!b.latency_table.empty()) {
      b.latency_min_ms = b.latency_table.front().ms;
      b.latency_max_ms = b.latency_table.back().ms;
    }
    return;
  }
  if (!lat.is_array() || lat.size() != 2 || !lat[0].is_number_integer() || !lat[1].is_number_integer()) {
    errors.push_back(where + ".latency_ms must be [min, max], two integers in ms, or a percentile table such as "
                             "{\"p50\": 120, \"p99\": 900, \"max\": 1500}");
    return;
  }
  // Each bound is range-checked before it becomes an int (no silent wrap of 4294967396 to 100).
  const auto lo = json_int_in_range(lat[0], 0, kMaxLatencyMs);
  const auto hi = json_int_in_range(lat[1], 0, kMaxLatencyMs);
  if (!lo) errors.push_back(int_range_problem(where + ".latency_ms[0]", lat[0], 0, kMaxLatencyMs));
  if (!hi) errors.push_back(int_range_problem(where + ".latency_ms[1]", lat[1], 0, kMaxLatencyMs));
  if (lo && hi) {
    b.latency_min_ms = static_cast<int>(*lo);
    b.latency_max_ms = static_cast<int>(*hi);
    if (b.latency_min_ms > b.latency_max_ms)
      errors.push_back(where + ".latency_ms must satisfy 0 <= min <= max <= " + std::to_string(kMaxLatencyMs));
  }
}

void parse_retry_after_field(const nlohmann::ordered_json& v, const std::string& where, AttemptBehaviour& b,
                             std::vector<std::string>& errors) {
  if (v.is_string() && parse_http_date(v.get<std::string>())) {
    b.retry_after = v.get<std::string>();
  } else if (const auto s = json_int_in_range(v, 0, kMaxRetryAfterS)) {
    b.retry_after = std::to_string(*s);
  } else {
    errors.push_back(where + ".retry_after must be whole seconds 0-" + std::to_string(kMaxRetryAfterS) +
                     " or an HTTP-date such as \"Wed, 21 Oct 2026 07:28:00 GMT\" (got " + v.dump().substr(0, 40) + ")");
  }
  if (b.kind != Kind::answer || (b.status != 429 && b.status < 500))
    errors.push_back(where + ".retry_after goes with a 429 or a 5xx response only");
}

void parse_slicer(const nlohmann::ordered_json& j, const std::string& where, AttemptBehaviour& b,
                  std::vector<std::string>& errors) {
  for (const char* key : {"slice_bytes", "slice_delay_ms"}) {
    if (!j.contains(key)) continue;
    if (b.kind != Kind::slicer) {
      errors.push_back(where + "." + key + " goes with \"slicer\" or \"bandwidth\" only");
      continue;
    }
    const bool bytes = std::string_view(key) == "slice_bytes";
    const std::int64_t lo = bytes ? 1 : 0;
    const std::int64_t hi = bytes ? kMaxSliceBytes : kMaxLatencyMs;
    if (const auto v = json_int_in_range(j.at(key), lo, hi)) (bytes ? b.slice_bytes : b.slice_delay_ms) = static_cast<int>(*v);
    else errors.push_back(int_range_problem(where + "." + key, j.at(key), lo, hi));
  }
}

AttemptBehaviour parse_behaviour(const nlohmann::ordered_json& j, const std::string& where,
                                 std::vector<std::string>& errors, const AttemptBehaviour* base = nullptr) {
  AttemptBehaviour b;
  if (!j.is_object()) {
    errors.push_back(where + " must be an object");
    return b;
  }
  static const std::vector<std::string> kKeys{"latency_ms", "response", "body", "retry_after", "slice_bytes",
                                              "slice_delay_ms", "faults", "probability"};
  for (const auto& [key, _] : j.items())
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end() || (key == "faults" && base) ||
        (key == "probability" && !base))
      errors.push_back(where + ": unknown key '" + key + "' (allowed: latency_ms, response, body, retry_after, " +
                       "slice_bytes, slice_delay_ms, " + (base ? "probability" : "faults") + ")");
  const auto resp = j.find("response");
  if (resp == j.end()) {
    errors.push_back(where + ".response is missing (" + allowed_responses() + ")");
  } else if (resp->is_string()) {
    const auto* k = std::find_if(std::begin(kKinds), std::end(kKinds),
                                 [&](const KindName& n) { return *resp == n.name; });
    if (k == std::end(kKinds)) {
      errors.push_back(where + ".response must be " + allowed_responses() + " (got " + resp->dump().substr(0, 40) + ")");
    } else {
      b.kind = k->kind;
      b.response = k->name;
      b.status = k->kind == Kind::timeout ? 504 : 200;
    }
  } else if (const auto status = json_int_in_range(*resp, kMinStatus, kMaxStatus)) {
    b.kind = Kind::answer;
    b.status = static_cast<int>(*status);
  } else {
    errors.push_back(where + ".response must be " + allowed_responses() + " (got " + resp->dump().substr(0, 40) + ")");
  }
  // A timeout holds the call for the scenario's hang_ms, and a refused call never arrives:
  // neither has a latency of its own.
  const bool needs_latency = b.kind != Kind::timeout && b.kind != Kind::refused;
  if (const auto lat = j.find("latency_ms"); lat != j.end()) parse_latency(*lat, where, b, errors);
  else if (base) b.latency_min_ms = base->latency_min_ms, b.latency_max_ms = base->latency_max_ms, b.latency_table = base->latency_table;
  else if (needs_latency) errors.push_back(where + ".latency_ms is missing (a [min, max] pair in ms, or a percentile table)");
  if (const auto body = j.find("body"); body != j.end()) {
    if (!body->is_string()) errors.push_back(where + ".body must be a string (sent as it is)");
    else if (b.kind != Kind::answer || b.status == 200) errors.push_back(where + ".body goes with an HTTP status other than 200 only");
    else b.body = body->get<std::string>();
  }
  if (const auto ra = j.find("retry_after"); ra != j.end()) parse_retry_after_field(*ra, where, b, errors);
  parse_slicer(j, where, b, errors);
  if (base) {
    const auto p = j.find("probability");
    if (p == j.end() || !p->is_number() || p->get<double>() < 0 || p->get<double>() > 1)
      errors.push_back(where + ".probability must be a number between 0 and 1" +
                       (p == j.end() ? std::string(" (missing)") : " (got " + p->dump().substr(0, 40) + ")"));
    else b.probability = p->get<double>();
    if (b.kind == Kind::refused)
      errors.push_back(where + ".response \"refused\" cannot be a fault with a probability: the lab decides to connect "
                               "elsewhere before the carrier could draw it (put it in attempts or then)");
  }
  if (const auto faults = j.find("faults"); faults != j.end() && !base) {
    if (!faults->is_array() || faults->size() > kMaxFaults) {
      errors.push_back(where + ".faults must be a list of at most " + std::to_string(kMaxFaults) + " behaviours");
    } else {
      double sum = 0;
      for (std::size_t i = 0; i < faults->size(); ++i) {
        b.faults.push_back(parse_behaviour((*faults)[i], where + ".faults[" + std::to_string(i) + "]", errors, &b));
        sum += b.faults.back().probability;
      }
      if (sum > 1 + 1e-9) errors.push_back(where + ".faults: the probabilities add up to more than 1");
      if (b.kind == Kind::refused && !b.faults.empty())
        errors.push_back(where + ": a \"refused\" behaviour cannot have faults (nothing answers to draw them)");
    }
  }
  return b;
}

Metastable parse_metastable(const nlohmann::ordered_json& j, std::vector<std::string>& errors) {
  Metastable m;
  if (!j.is_object()) {
    errors.push_back("metastable must be an object {\"down_ms\", \"capacity\", \"overload\"}");
    return m;
  }
  for (const auto& [key, _] : j.items())
    if (key != "down_ms" && key != "down" && key != "capacity" && key != "overload")
      errors.push_back("metastable: unknown key '" + key + "' (allowed: down_ms, down, capacity, overload)");
  const auto down = j.contains("down_ms") ? json_int_in_range(j.at("down_ms"), 0, kMaxLatencyMs) : std::nullopt;
  if (down) m.down_ms = static_cast<int>(*down);
  else errors.push_back(int_range_problem("metastable.down_ms", j.value("down_ms", nlohmann::ordered_json()), 0, kMaxLatencyMs));
  const auto cap = j.contains("capacity") ? json_int_in_range(j.at("capacity"), 1, kMaxCapacity) : std::nullopt;
  if (cap) m.capacity = static_cast<int>(*cap);
  else errors.push_back(int_range_problem("metastable.capacity", j.value("capacity", nlohmann::ordered_json()), 1, kMaxCapacity));
  for (const char* key : {"down", "overload"}) {
    auto& b = std::string_view(key) == "down" ? m.down : m.overload;
    const std::string where = std::string("metastable.") + key;
    if (!j.contains(key)) errors.push_back(where + " is missing (a behaviour)");
    else b = parse_behaviour(j.at(key), where, errors);
    if (b.kind == Kind::refused) errors.push_back(where + " cannot be \"refused\" (the call has already arrived)");
  }
  return m;
}

std::string required_string(const nlohmann::ordered_json& j, const char* key,
                            std::vector<std::string>& errors) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string() || it->get<std::string>().empty()) {
    errors.push_back(std::string(key) + " must be a non-empty string");
    return {};
  }
  return it->get<std::string>();
}

bool valid_name(const std::string& n) {
  return !n.empty() && n.size() <= 40 && std::all_of(n.begin(), n.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

}  // namespace

const AttemptBehaviour& Scenario::behaviour_for(int attempt) const {
  const auto index = static_cast<std::size_t>(std::max(attempt, 1) - 1);
  return index < attempts.size() ? attempts[index] : then;
}

int draw_latency_ms(const AttemptBehaviour& b, double u) {
  u = std::clamp(u, 0.0, 1.0);
  if (!b.latency_table.empty()) {
    const auto& t = b.latency_table;
    if (u <= t.front().fraction) return t.front().ms;
    for (std::size_t i = 1; i < t.size(); ++i) {
      if (u > t[i].fraction) continue;
      const double span = t[i].fraction - t[i - 1].fraction;
      const double at = span > 0 ? (u - t[i - 1].fraction) / span : 1.0;
      return static_cast<int>(std::lround(t[i - 1].ms + at * (t[i].ms - t[i - 1].ms)));
    }
    return t.back().ms;
  }
  const int span = b.latency_max_ms - b.latency_min_ms + 1;
  const int offset = static_cast<int>(std::floor(u * span));
  return std::min(b.latency_max_ms, b.latency_min_ms + offset);
}

const AttemptBehaviour& pick_fault(const AttemptBehaviour& b, double u) {
  double sum = 0;
  for (const auto& f : b.faults) {
    sum += f.probability;
    if (u < sum) return f;
  }
  return b;
}

Scenario scenario_from_json(const nlohmann::ordered_json& j, const std::string& source) {
  std::vector<std::string> errors;
  Scenario s;
  s.source = source;
  if (!j.is_object()) throw ScenarioError(source + ": a scenario file must hold a JSON object");
  for (const auto& [key, _] : j.items())
    if (key != "name" && key != "aliases" && key != "description" && key != "attempts" &&
        key != "then" && key != "hang_ms" && key != "order" && key != "metastable" && key != "shedding" &&
        key != "expected")
      errors.push_back("unknown key '" + key + "' (allowed: name, order, aliases, description, attempts, then, "
                       "hang_ms, metastable, shedding, expected)");
  s.name = required_string(j, "name", errors);
  if (!s.name.empty() && !valid_name(s.name))
    errors.push_back("name must use a-z, 0-9, '_' or '-' (at most 40 characters)");
  if (j.contains("aliases")) {
    const auto& a = j.at("aliases");
    if (!a.is_array()) errors.push_back("aliases must be a list of names");
    else
      for (const auto& alias : a) {
        if (alias.is_string() && valid_name(alias.get<std::string>()))
          s.aliases.push_back(alias.get<std::string>());
        else
          errors.push_back("aliases: each alias must be a name using a-z, 0-9, '_' or '-'");
      }
  }
  const auto desc = j.find("description");
  if (desc == j.end() || !desc->is_object()) {
    errors.push_back("description must be an object with \"es\" and \"en\" texts");
  } else {
    s.description_es = desc->value("es", "");
    s.description_en = desc->value("en", "");
    if (s.description_es.empty() || s.description_en.empty())
      errors.push_back("description needs both \"es\" and \"en\" texts");
  }
  const auto attempts = j.find("attempts");
  if (attempts != j.end()) {
    if (!attempts->is_array() || attempts->size() > 20) {
      errors.push_back("attempts must be a list of at most 20 behaviours");
    } else {
      for (std::size_t i = 0; i < attempts->size(); ++i)
        s.attempts.push_back(
            parse_behaviour((*attempts)[i], "attempts[" + std::to_string(i) + "]", errors));
    }
  }
  if (!j.contains("then")) errors.push_back("then is missing (the behaviour after the listed attempts)");
  else s.then = parse_behaviour(j.at("then"), "then", errors);
  if (j.contains("hang_ms")) {
    const auto& h = j.at("hang_ms");
    if (const auto ms = json_int_in_range(h, 1, kMaxLatencyMs)) s.hang_ms = static_cast<int>(*ms);
    else errors.push_back(int_range_problem("hang_ms", h, 1, kMaxLatencyMs));
  }
  if (j.contains("order")) {
    const auto& o = j.at("order");
    if (const auto order = json_int_in_range(o, -kMaxOrder, kMaxOrder)) s.order = static_cast<int>(*order);
    else errors.push_back(int_range_problem("order", o, -kMaxOrder, kMaxOrder) + " (listing position)");
  }
  if (const auto m = j.find("metastable"); m != j.end()) s.metastable = parse_metastable(*m, errors);
  if (const auto sh = j.find("shedding"); sh != j.end()) s.shedding = shedding_from_json(*sh, errors);
  if (s.metastable && s.shedding)
    errors.push_back("metastable and shedding cannot be combined: both set the carrier's capacity (use one)");
  if (const auto e = j.find("expected"); e != j.end()) s.expected = expectations_from_json(*e, errors);
  if (!errors.empty()) {
    std::string msg = source + ": invalid scenario:";
    for (const auto& e : errors) msg += "\n  - " + e;
    throw ScenarioError(msg);
  }
  return s;
}

ScenarioCatalog::ScenarioCatalog(std::vector<Scenario> scenarios) : scenarios_(std::move(scenarios)) {
  for (std::size_t i = 0; i < scenarios_.size(); ++i) {
    std::vector<std::string> names{scenarios_[i].name};
    names.insert(names.end(), scenarios_[i].aliases.begin(), scenarios_[i].aliases.end());
    for (const auto& n : names) {
      const auto [it, inserted] = index_.emplace(n, i);
      if (!inserted)
        throw ScenarioError(scenarios_[i].source + ": the name '" + n + "' is already used by " +
                            scenarios_[it->second].source);
    }
  }
}

ScenarioCatalog ScenarioCatalog::load_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw ScenarioError(dir.string() + ": scenario directory not found (use --scenarios-dir)");
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw ScenarioError(dir.string() + ": no *.json scenario files");
  std::vector<Scenario> scenarios;
  for (const auto& file : files) {
    std::ifstream in(file);
    if (!in) throw ScenarioError(file.string() + ": cannot be read");
    nlohmann::ordered_json j;
    try {
      j = nlohmann::ordered_json::parse(in);
    } catch (const nlohmann::ordered_json::parse_error& e) {
      throw ScenarioError(file.string() + ": not valid JSON: " + e.what());
    }
    scenarios.push_back(scenario_from_json(j, file.string()));
  }
  std::stable_sort(scenarios.begin(), scenarios.end(), [](const Scenario& a, const Scenario& b) {
    return std::tie(a.order, a.name) < std::tie(b.order, b.name);
  });
  return ScenarioCatalog(std::move(scenarios));
}

const Scenario* ScenarioCatalog::find(std::string_view name_or_alias) const {
  // Students type "OK" and "Provider_Down"; every name in the index is lower case.
  const auto it = index_.find(ascii_lower(name_or_alias));
  return it == index_.end() ? nullptr : &scenarios_[it->second];
}

std::vector<std::string> ScenarioCatalog::accepted_names() const {
  std::vector<std::string> names;
  for (const auto& s : scenarios_) names.push_back(s.name);
  for (const auto& s : scenarios_) names.insert(names.end(), s.aliases.begin(), s.aliases.end());
  return names;
}

ApiError unknown_scenario_error(const ScenarioCatalog& catalog, std::string_view typed) {
  // Echo at most a short, printable prefix of what was typed.
  std::string shown(typed.substr(0, 40));
  for (char& c : shown)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  auto names = catalog.accepted_names();
  if (const auto meant = did_you_mean(typed, names))
    return api_error(400, "unknown_scenario", MessageId::unknown_scenario_did_you_mean,
                     {{"got", shown}, {"suggestion", *meant}}, std::move(names));
  return api_error(400, "unknown_scenario", MessageId::unknown_scenario, {{"got", shown}}, std::move(names));
}

nlohmann::ordered_json to_json(const Scenario& s) {
  // The course scenarios render with "latency_ms" and "response" only; every other
  // field appears only when the file uses it.
  std::function<nlohmann::ordered_json(const AttemptBehaviour&)> behaviour = [&](const AttemptBehaviour& b) {
    if (b.kind == AttemptBehaviour::Kind::timeout)
      return nlohmann::ordered_json{{"response", b.response}, {"hang_ms", s.hang_ms}};
    nlohmann::ordered_json r;
    if (b.kind != AttemptBehaviour::Kind::refused) {
      if (!b.latency_table.empty()) {
        r["latency_ms"] = nlohmann::ordered_json::object();
        for (const auto& p : b.latency_table) {
          char key[16];
          std::snprintf(key, sizeof key, "p%g", p.fraction * 100);
          r["latency_ms"][p.fraction == 0 ? "min" : p.fraction == 1 ? "max" : key] = p.ms;
        }
      } else {
        r["latency_ms"] = {b.latency_min_ms, b.latency_max_ms};
      }
    }
    if (!b.response.empty()) r["response"] = b.response;
    else r["response"] = b.status;
    if (b.body) r["body"] = *b.body;
    if (!b.retry_after.empty()) r["retry_after"] = b.retry_after;
    if (b.kind == AttemptBehaviour::Kind::slicer) {
      r["slice_bytes"] = b.slice_bytes;
      r["slice_delay_ms"] = b.slice_delay_ms;
    }
    if (b.probability > 0) r["probability"] = b.probability;
    if (!b.faults.empty()) {
      r["faults"] = nlohmann::ordered_json::array();
      for (const auto& f : b.faults) r["faults"].push_back(behaviour(f));
    }
    return r;
  };
  nlohmann::ordered_json attempts = nlohmann::ordered_json::array();
  for (const auto& a : s.attempts) attempts.push_back(behaviour(a));
  nlohmann::ordered_json out = {{"name", s.name},
                                {"aliases", s.aliases},
                                {"description", {{"es", s.description_es}, {"en", s.description_en}}},
                                {"attempts", attempts},
                                {"then", behaviour(s.then)}};
  if (s.metastable)
    out["metastable"] = {{"down_ms", s.metastable->down_ms},
                         {"down", behaviour(s.metastable->down)},
                         {"capacity", s.metastable->capacity},
                         {"overload", behaviour(s.metastable->overload)}};
  if (s.shedding) out["shedding"] = to_json(*s.shedding);
  if (!s.expected.empty()) {
    out["expected"] = nlohmann::ordered_json::object();
    for (const auto& [policy, e] : s.expected) out["expected"][policy] = to_json(e);
  }
  return out;
}

}  // namespace quote_lab
