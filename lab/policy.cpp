#include "lab/policy.hpp"

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>

namespace quote_lab {
namespace {

constexpr std::array<std::pair<Jitter, std::string_view>, 5> kJitterNames{{
    {Jitter::none, "none"},
    {Jitter::additive, "additive"},
    {Jitter::full, "full"},
    {Jitter::equal, "equal"},
    {Jitter::decorrelated, "decorrelated"},
}};

// Reads one integer/number/bool field if present, recording a type error otherwise.
template <class T>
void read_field(const nlohmann::ordered_json& obj, const std::string& prefix, const char* key, T& out,
                std::vector<std::string>& errors) {
  if (!obj.contains(key)) return;
  const auto& v = obj.at(key);
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) return errors.push_back(prefix + key + " must be true or false");
    out = v.get<bool>();
  } else if constexpr (std::is_same_v<T, int>) {
    if (!v.is_number_integer()) return errors.push_back(prefix + key + " must be an integer");
    out = v.get<int>();
  } else {
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
  read_field(j, prefix, "timeout_ms", p.timeout_ms, errors);
  read_field(j, prefix, "max_attempts", p.max_attempts, errors);
  read_field(j, prefix, "backoff_base_ms", p.backoff_base_ms, errors);
  read_field(j, prefix, "backoff_max_ms", p.backoff_max_ms, errors);
  read_field(j, prefix, "jitter_min_ms", p.jitter_min_ms, errors);
  read_field(j, prefix, "jitter_max_ms", p.jitter_max_ms, errors);
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

void check_range(std::vector<std::string>& errors, const std::string& name, double v, double lo,
                 double hi) {
  // whole numbers print as "1", not "1.0"
  auto show = [](double x) {
    return x == std::floor(x) && std::abs(x) < 1e15 ? std::to_string(static_cast<long long>(x))
                                                     : nlohmann::ordered_json(x).dump();
  };
  if (!(v >= lo && v <= hi))  // also refuses NaN
    errors.push_back(name + " must be between " + show(lo) + " and " + show(hi) + " (got " + show(v) + ")");
}

void validate_retry(const RetryPolicy& p, std::vector<std::string>& errors) {
  const std::string n = p.mode + ".";
  check_range(errors, n + "timeout_ms", p.timeout_ms, 10, 10000);
  check_range(errors, n + "max_attempts", p.max_attempts, 1, 10);
  check_range(errors, n + "backoff_base_ms", p.backoff_base_ms, 0, 10000);
  check_range(errors, n + "backoff_max_ms", p.backoff_max_ms, 0, 60000);
  check_range(errors, n + "jitter_min_ms", p.jitter_min_ms, 0, 10000);
  check_range(errors, n + "jitter_max_ms", p.jitter_max_ms, 0, 10000);
  if (p.jitter_min_ms > p.jitter_max_ms)
    errors.push_back(n + "jitter_min_ms must not exceed jitter_max_ms");
}

}  // namespace

std::string_view to_string(Jitter j) {
  for (const auto& [value, name] : kJitterNames)
    if (value == j) return name;
  return "none";
}

bool parse_jitter(std::string_view text, Jitter& out) {
  for (const auto& [value, name] : kJitterNames)
    if (name == text) {
      out = value;
      return true;
    }
  return false;
}

std::vector<std::string> jitter_names() {
  std::vector<std::string> names;
  for (const auto& [_, name] : kJitterNames) names.emplace_back(name);
  return names;
}

Policies default_policies() {
  Policies p;
  p.legacy = RetryPolicy{.mode = "legacy",
                         .timeout_ms = 360,
                         .max_attempts = 4,
                         .backoff_base_ms = 0,
                         .backoff_max_ms = 0,
                         .jitter = Jitter::none,
                         .jitter_min_ms = 0,
                         .jitter_max_ms = 0,
                         .circuit_breaker = false,
                         .fallback = false};
  p.resilient = RetryPolicy{.mode = "resilient"};
  return p;
}

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
      read_field(b, "breaker.", "failure_threshold", p.breaker.failure_threshold, errors);
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

std::vector<std::string> validate(const Policies& p) {
  std::vector<std::string> errors;
  validate_retry(p.legacy, errors);
  validate_retry(p.resilient, errors);
  check_range(errors, "breaker.failure_threshold", p.breaker.failure_threshold, 1, 100);
  check_range(errors, "breaker.open_duration_s", p.breaker.open_duration_s, 0.1, 3600);
  return errors;
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
