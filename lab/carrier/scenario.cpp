#include "lab/carrier/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "lab/base/did_you_mean.hpp"
#include "lab/formats/json_int.hpp"

namespace quote_lab {
namespace {

// Bounds of the numbers a scenario file holds: a simulated latency or hang of at most ten
// minutes, an HTTP status, a listing position.
constexpr int kMaxLatencyMs = 600000;
constexpr int kMinStatus = 200;
constexpr int kMaxStatus = 599;
constexpr int kMaxOrder = 1000000;

AttemptBehaviour parse_behaviour(const nlohmann::ordered_json& j, const std::string& where,
                                 std::vector<std::string>& errors) {
  AttemptBehaviour b;
  if (!j.is_object()) {
    errors.push_back(where + " must be an object");
    return b;
  }
  for (const auto& [key, _] : j.items())
    if (key != "latency_ms" && key != "response")
      errors.push_back(where + ": unknown key '" + key + "'");
  const auto lat = j.find("latency_ms");
  const auto resp_it = j.find("response");
  const bool is_hang = resp_it != j.end() && resp_it->is_string() && *resp_it == "hang";
  if (lat == j.end() && is_hang) {
    // a hang has no latency of its own: it holds the connection for the scenario's hang_ms
  } else if (lat == j.end()) {
    errors.push_back(where + ".latency_ms is missing (a [min, max] pair in ms)");
  } else if (!lat->is_array() || lat->size() != 2 || !(*lat)[0].is_number_integer() ||
             !(*lat)[1].is_number_integer()) {
    errors.push_back(where + ".latency_ms must be [min, max], two integers in ms");
  } else {
    // Each bound is range-checked before it becomes an int (no silent wrap of 4294967396 to 100).
    const auto lo = json_int_in_range((*lat)[0], 0, kMaxLatencyMs);
    const auto hi = json_int_in_range((*lat)[1], 0, kMaxLatencyMs);
    if (!lo) errors.push_back(int_range_problem(where + ".latency_ms[0]", (*lat)[0], 0, kMaxLatencyMs));
    if (!hi) errors.push_back(int_range_problem(where + ".latency_ms[1]", (*lat)[1], 0, kMaxLatencyMs));
    if (lo && hi) {
      b.latency_min_ms = static_cast<int>(*lo);
      b.latency_max_ms = static_cast<int>(*hi);
      if (b.latency_min_ms > b.latency_max_ms)
        errors.push_back(where + ".latency_ms must satisfy 0 <= min <= max <= " + std::to_string(kMaxLatencyMs));
    }
  }
  const auto resp = j.find("response");
  if (resp == j.end()) {
    errors.push_back(where + ".response is missing (\"ok\", \"hang\" or an HTTP status)");
  } else if (resp->is_string() && *resp == "ok") {
    b.kind = AttemptBehaviour::Kind::answer;
    b.status = 200;
  } else if (resp->is_string() && *resp == "hang") {
    b.kind = AttemptBehaviour::Kind::hang;
    b.status = 504;
  } else if (const auto status = json_int_in_range(*resp, kMinStatus, kMaxStatus)) {
    b.kind = AttemptBehaviour::Kind::answer;
    b.status = static_cast<int>(*status);
  } else {
    errors.push_back(where + ".response must be \"ok\", \"hang\" or an HTTP status 200-599");
  }
  return b;
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
  const int span = b.latency_max_ms - b.latency_min_ms + 1;
  const int offset = static_cast<int>(std::floor(std::clamp(u, 0.0, 1.0) * span));
  return std::min(b.latency_max_ms, b.latency_min_ms + offset);
}

Scenario scenario_from_json(const nlohmann::ordered_json& j, const std::string& source) {
  std::vector<std::string> errors;
  Scenario s;
  s.source = source;
  if (!j.is_object()) throw ScenarioError(source + ": a scenario file must hold a JSON object");
  for (const auto& [key, _] : j.items())
    if (key != "name" && key != "aliases" && key != "description" && key != "attempts" &&
        key != "then" && key != "hang_ms" && key != "order")
      errors.push_back("unknown key '" + key + "'");
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
  auto behaviour = [&s](const AttemptBehaviour& b) {
    if (b.kind == AttemptBehaviour::Kind::hang)
      return nlohmann::ordered_json{{"response", "hang"}, {"hang_ms", s.hang_ms}};
    nlohmann::ordered_json r = {{"latency_ms", {b.latency_min_ms, b.latency_max_ms}}};
    if (b.status == 200) r["response"] = "ok";
    else r["response"] = b.status;
    return r;
  };
  nlohmann::ordered_json attempts = nlohmann::ordered_json::array();
  for (const auto& a : s.attempts) attempts.push_back(behaviour(a));
  return {{"name", s.name},
          {"aliases", s.aliases},
          {"description", {{"es", s.description_es}, {"en", s.description_en}}},
          {"attempts", attempts},
          {"then", behaviour(s.then)}};
}

}  // namespace quote_lab
