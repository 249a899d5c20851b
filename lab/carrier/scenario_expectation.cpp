#include "lab/carrier/scenario_expectation.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "lab/formats/json_int.hpp"
#include "lab/resilience/vocabulary.hpp"

namespace quote_lab {
namespace {

constexpr int kMaxAttempts = 100;

bool one_of(const std::string& v, std::initializer_list<const char*> set) {
  return std::any_of(set.begin(), set.end(), [&](const char* s) { return v == s; });
}

Expectation parse_one(const nlohmann::ordered_json& j, const std::string& where, std::vector<std::string>& errors) {
  Expectation e;
  if (!j.is_object()) {
    errors.push_back(where + " must be an object");
    return e;
  }
  for (const auto& [key, _] : j.items())
    if (!one_of(key, {"status", "http_status", "attempts", "reasons", "source"}))
      errors.push_back(where + ": unknown key '" + key + "' (allowed: status, http_status, attempts, reasons, source)");
  const auto status = j.find("status");
  if (status != j.end() && status->is_string()) e.statuses.push_back(status->get<std::string>());
  else if (status != j.end() && status->is_array())
    for (const auto& s : *status) e.statuses.push_back(s.is_string() ? s.get<std::string>() : s.dump());
  if (e.statuses.empty() || std::any_of(e.statuses.begin(), e.statuses.end(), [](const std::string& s) {
        return !one_of(s, {"completed", "degraded", "failed"});
      }))
    errors.push_back(where + ".status must be \"completed\", \"degraded\" or \"failed\", or a list of them");
  if (const auto h = j.find("http_status"); h != j.end()) {
    if (const auto v = json_int_in_range(*h, 100, 599)) e.http_status = static_cast<int>(*v);
    else errors.push_back(int_range_problem(where + ".http_status", *h, 100, 599));
  }
  const auto attempts = j.find("attempts");
  if (attempts == j.end()) {
    errors.push_back(where + ".attempts is missing (a count, or [min, max])");
  } else if (const auto n = json_int_in_range(*attempts, 0, kMaxAttempts)) {
    e.attempts_min = e.attempts_max = static_cast<int>(*n);
  } else if (attempts->is_array() && attempts->size() == 2 && json_int_in_range((*attempts)[0], 0, kMaxAttempts) &&
             json_int_in_range((*attempts)[1], 0, kMaxAttempts) && (*attempts)[0] <= (*attempts)[1]) {
    e.attempts_min = (*attempts)[0].get<int>();
    e.attempts_max = (*attempts)[1].get<int>();
  } else {
    errors.push_back(where + ".attempts must be a count 0-100 or [min, max] with min <= max");
  }
  if (const auto r = j.find("reasons"); r != j.end()) {
    const auto names = reason_names();
    std::vector<std::string> reasons;
    bool bad = !r->is_array();
    if (!bad)
      for (const auto& x : *r) {
        if (!x.is_string() || std::find(names.begin(), names.end(), x.get<std::string>()) == names.end()) bad = true;
        else reasons.push_back(x.get<std::string>());
      }
    if (bad) {
      std::string allowed;
      for (const auto& n : names) allowed += (allowed.empty() ? "" : ", ") + n;
      errors.push_back(where + ".reasons must be a list of reasons (allowed: " + allowed + ")");
    } else {
      e.reasons = std::move(reasons);
    }
  }
  if (const auto s = j.find("source"); s != j.end()) {
    if (s->is_null()) e.source = "null";
    else if (s->is_string() && one_of(s->get<std::string>(), {"live", "fallback"})) e.source = s->get<std::string>();
    else errors.push_back(where + ".source must be \"live\", \"fallback\" or null");
  }
  return e;
}

}  // namespace

std::map<std::string, Expectation> expectations_from_json(const nlohmann::ordered_json& j,
                                                          std::vector<std::string>& errors) {
  std::map<std::string, Expectation> out;
  if (!j.is_object()) {
    errors.push_back("expected must be an object: policy name → expected outcome");
    return out;
  }
  for (const auto& [policy, e] : j.items()) out[policy] = parse_one(e, "expected." + policy, errors);
  return out;
}

nlohmann::ordered_json to_json(const Expectation& e) {
  nlohmann::ordered_json j;
  if (e.statuses.size() == 1) j["status"] = e.statuses.front();
  else j["status"] = e.statuses;
  if (e.http_status) j["http_status"] = *e.http_status;
  if (e.attempts_min == e.attempts_max) j["attempts"] = e.attempts_min;
  else j["attempts"] = {e.attempts_min, e.attempts_max};
  if (e.reasons) j["reasons"] = *e.reasons;
  if (e.source) j["source"] = *e.source == "null" ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(*e.source);
  return j;
}

}  // namespace quote_lab
