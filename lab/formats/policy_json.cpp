#include "lab/formats/policy_json.hpp"

#include <nlohmann/json.hpp>

#include "lab/formats/json_int.hpp"

namespace quote_lab {
namespace {

std::string range_text(const std::string& name, long long lo, long long hi) {
  return name + " must be between " + std::to_string(lo) + " and " + std::to_string(hi);
}

// Reads an integer field if present. The value is compared with [lo, hi] at full width
// before it becomes an int, so 4294967298 is refused rather than read as 2.
void read_int_field(const nlohmann::ordered_json& obj, const std::string& prefix, const char* key, int lo, int hi,
                    int& out, std::vector<std::string>& errors) {
  if (!obj.contains(key)) return;
  const auto& v = obj.at(key);
  if (!v.is_number_integer()) return errors.push_back(prefix + key + " must be an integer");
  const auto value = json_int_in_range(v, lo, hi);
  if (!value) return errors.push_back(range_text(prefix + key, lo, hi) + " (got " + v.dump() + ")");
  out = static_cast<int>(*value);
}

// Reads one number or bool field if present, recording a type error otherwise.
template <class T>
void read_field(const nlohmann::ordered_json& obj, const std::string& prefix, const char* key, T& out,
                std::vector<std::string>& errors) {
  if (!obj.contains(key)) return;
  const auto& v = obj.at(key);
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) return errors.push_back(prefix + key + " must be true or false");
    out = v.get<bool>();
  } else {
    static_assert(std::is_floating_point_v<T>, "integers go through read_int_field");
    if (!v.is_number()) return errors.push_back(prefix + key + " must be a number");
    out = v.get<T>();
  }
}

void check_keys(const nlohmann::ordered_json& obj, const std::string& where,
                std::initializer_list<std::string_view> known, std::vector<std::string>& errors) {
  for (const auto& [key, _] : obj.items()) {
    bool ok = false;
    for (auto k : known) ok = ok || key == k;
    if (!ok) errors.push_back(where + ": unknown key '" + key + "'");
  }
}

void read_retry(const nlohmann::ordered_json& j, const std::string& name, RetryPolicy& p,
                std::vector<std::string>& errors) {
  if (!j.is_object()) return errors.push_back(name + " must be an object");
  const std::string prefix = name + ".";
  check_keys(j, name,
             {"timeout_ms", "max_attempts", "backoff_base_ms", "backoff_max_ms", "jitter",
              "jitter_min_ms", "jitter_max_ms", "circuit_breaker", "fallback"},
             errors);
  for (const auto& f : retry_int_fields()) read_int_field(j, prefix, f.key, f.lo, f.hi, p.*f.member, errors);
  read_field(j, prefix, "circuit_breaker", p.circuit_breaker, errors);
  read_field(j, prefix, "fallback", p.fallback, errors);
  if (j.contains("jitter")) {
    const auto& v = j.at("jitter");
    if (!v.is_string() || !parse_jitter(v.get<std::string>(), p.jitter)) {
      std::string names;
      for (const auto& n : jitter_names()) names += (names.empty() ? "" : ", ") + n;
      errors.push_back(prefix + "jitter must be one of: " + names);
    }
  }
}

}  // namespace

Policies policies_from_json(const nlohmann::ordered_json& j, const Policies& base) {
  Policies p = base;
  std::vector<std::string> errors;
  if (!j.is_object()) throw PolicyError("the policy file must hold a JSON object");
  check_keys(j, "policies", {"legacy", "resilient", "breaker"}, errors);
  if (j.contains("legacy")) read_retry(j.at("legacy"), "legacy", p.legacy, errors);
  if (j.contains("resilient")) read_retry(j.at("resilient"), "resilient", p.resilient, errors);
  if (j.contains("breaker")) {
    const auto& b = j.at("breaker");
    if (!b.is_object()) {
      errors.push_back("breaker must be an object");
    } else {
      check_keys(b, "breaker", {"failure_threshold", "open_duration_s"}, errors);
      read_int_field(b, "breaker.", "failure_threshold", kFailureThresholdMin, kFailureThresholdMax,
                     p.breaker.failure_threshold, errors);
      read_field(b, "breaker.", "open_duration_s", p.breaker.open_duration_s, errors);
    }
  }
  for (auto& e : validate(p)) errors.push_back(std::move(e));
  if (!errors.empty()) {
    std::string msg = "invalid policies:";
    for (const auto& e : errors) msg += "\n  - " + e;
    throw PolicyError(msg);
  }
  return p;
}

nlohmann::ordered_json to_json(const RetryPolicy& p) {
  return {{"timeout_ms", p.timeout_ms},
          {"max_attempts", p.max_attempts},
          {"backoff_base_ms", p.backoff_base_ms},
          {"backoff_max_ms", p.backoff_max_ms},
          {"jitter", std::string(to_string(p.jitter))},
          {"jitter_min_ms", p.jitter_min_ms},
          {"jitter_max_ms", p.jitter_max_ms},
          {"circuit_breaker", p.circuit_breaker},
          {"fallback", p.fallback}};
}

nlohmann::ordered_json to_json(const Policies& p) {
  return {{"legacy", to_json(p.legacy)},
          {"resilient", to_json(p.resilient)},
          {"breaker",
           {{"failure_threshold", p.breaker.failure_threshold},
            {"open_duration_s", p.breaker.open_duration_s}}}};
}

}  // namespace quote_lab
