#include "lab/formats/policy_json.hpp"

#include <nlohmann/json.hpp>

#include "lab/base/did_you_mean.hpp"
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

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

void read_retry(const nlohmann::ordered_json& j, const std::string& name, RetryPolicy& p,
                std::vector<std::string>& errors) {
  if (!j.is_object()) return errors.push_back(name + " must be an object");
  const std::string prefix = name + ".";
  check_keys(j, name,
             {"timeout_ms", "max_attempts", "backoff_base_ms", "backoff_max_ms", "jitter", "jitter_min_ms",
              "jitter_max_ms", "circuit_breaker", "fallback", "retry_on", "retry_budget_ratio",
              "retry_budget_min_per_s", "deadline_ms", "idempotency_key", "breaker"},
             errors);
  for (const auto& f : retry_int_fields()) read_int_field(j, prefix, f.key, f.lo, f.hi, p.*f.member, errors);
  read_field(j, prefix, "circuit_breaker", p.circuit_breaker, errors);
  read_field(j, prefix, "fallback", p.fallback, errors);
  if (j.contains("jitter")) {
    const auto& v = j.at("jitter");
    if (!v.is_string() || !parse_jitter(v.get<std::string>(), p.jitter))
      errors.push_back(prefix + "jitter must be one of: " + joined(jitter_names()));
  }
  if (j.contains("idempotency_key")) {
    const auto& v = j.at("idempotency_key");
    if (!v.is_string() || !parse_idempotency_key(v.get<std::string>(), p.idempotency_key))
      errors.push_back(prefix + "idempotency_key must be one of: " + joined(idempotency_key_names()));
  }
  if (j.contains("retry_on")) {
    const auto& v = j.at("retry_on");
    unsigned mask = 0;
    bool ok = v.is_array();
    for (const auto& item : ok ? v : nlohmann::ordered_json::array()) {
      const unsigned bit = item.is_string() ? parse_retry_on(item.get<std::string>()) : 0;
      ok = ok && bit != 0;
      mask |= bit;
    }
    if (ok) p.retry_on = mask;
    else errors.push_back(prefix + "retry_on must be a list of: " + joined(retry_on_all_names()));
  }
  if (j.contains("retry_budget_ratio")) {
    // null switches a budget off; the range is checked by validate().
    if (j.at("retry_budget_ratio").is_null()) p.retry_budget_ratio.reset();
    else {
      double ratio = 0;
      read_field(j, prefix, "retry_budget_ratio", ratio, errors);
      p.retry_budget_ratio = ratio;
    }
  }
}

void read_breaker(const nlohmann::ordered_json& b, const std::string& name, BreakerPolicy& out,
                  std::vector<std::string>& errors) {
  if (!b.is_object()) return errors.push_back(name + " must be an object");
  check_keys(b, name, {"failure_threshold", "open_duration_s"}, errors);
  read_int_field(b, name + ".", "failure_threshold", kFailureThresholdMin, kFailureThresholdMax,
                 out.failure_threshold, errors);
  read_field(b, name + ".", "open_duration_s", out.open_duration_s, errors);
}

}  // namespace

Policies policies_from_json(const nlohmann::ordered_json& j, const Policies& base) {
  Policies p = base;
  std::vector<std::string> errors;
  if (!j.is_object()) throw PolicyError("the policy file must hold a JSON object");
  // Every key but "breaker" is a policy: legacy and resilient (the course routes) or a
  // named one (GET /quote/{name}); a named policy absent from `base` starts from the
  // resilient defaults. Only a named policy may declare its own breaker.
  for (const auto& [key, value] : j.items()) {
    if (key == "breaker") {
      read_breaker(value, "breaker", p.breaker, errors);
      continue;
    }
    if (!valid_policy_name(key)) {
      errors.push_back("policies: '" + key + "' is not a valid policy name (1-32 of a-z, 0-9, _ and -)");
      continue;
    }
    const bool course = key == "legacy" || key == "resilient";
    if (course && value.is_object() && value.contains("breaker"))
      errors.push_back(key + ".breaker: only a named policy has a breaker of its own; the course breaker is the "
                             "top-level \"breaker\"");
    if (key == "legacy") read_retry(value, key, p.legacy, errors);
    else if (key == "resilient") read_retry(value, key, p.resilient, errors);
    else {
      NamedPolicy* named = nullptr;
      for (auto& n : p.named)
        if (n.retry.mode == key) named = &n;
      if (!named) {
        // A new name one typo away from a course key is that key misspelt, not a policy.
        if (const auto meant = did_you_mean(key, {"legacy", "resilient", "breaker"})) {
          errors.push_back("policies: unknown key '" + key + "'; did you mean '" + *meant +
                           "'? (a new named policy needs a name of its own)");
          continue;
        }
        RetryPolicy fresh;  // the resilient numbers
        fresh.mode = key;
        p.named.push_back(NamedPolicy{fresh, std::nullopt});
        named = &p.named.back();
      }
      read_retry(value, key, named->retry, errors);
      if (value.is_object() && value.contains("breaker")) {
        if (value.at("breaker").is_null()) named->breaker.reset();
        else {
          BreakerPolicy b = named->breaker.value_or(p.breaker);
          read_breaker(value.at("breaker"), key + ".breaker", b, errors);
          named->breaker = b;
        }
      }
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

nlohmann::ordered_json to_json(const RetryPolicy& p, bool every_key) {
  nlohmann::ordered_json j = {{"timeout_ms", p.timeout_ms},
          {"max_attempts", p.max_attempts},
          {"backoff_base_ms", p.backoff_base_ms},
          {"backoff_max_ms", p.backoff_max_ms},
          {"jitter", std::string(to_string(p.jitter))},
          {"jitter_min_ms", p.jitter_min_ms},
          {"jitter_max_ms", p.jitter_max_ms},
          {"circuit_breaker", p.circuit_breaker},
          {"fallback", p.fallback}};
  // The optional keys: always for a named policy; for the course's two only when they
  // differ from the defaults, so their answers show only the keys the course teaches.
  const RetryPolicy defaults;
  if (every_key || p.retry_on != defaults.retry_on) j["retry_on"] = retry_on_names(p.retry_on);
  if (every_key || p.retry_budget_ratio) {
    j["retry_budget_ratio"] = p.retry_budget_ratio ? nlohmann::ordered_json(*p.retry_budget_ratio) : nullptr;
    j["retry_budget_min_per_s"] = p.retry_budget_min_per_s;
  }
  if (every_key || p.deadline_ms != 0) j["deadline_ms"] = p.deadline_ms;
  if (every_key || p.idempotency_key != defaults.idempotency_key)
    j["idempotency_key"] = std::string(to_string(p.idempotency_key));
  return j;
}

nlohmann::ordered_json to_json(const NamedPolicy& n) {
  nlohmann::ordered_json j = to_json(n.retry, true);
  if (n.breaker) j["breaker"] = to_json(*n.breaker);
  return j;
}

nlohmann::ordered_json to_json(const BreakerPolicy& b) {
  return {{"failure_threshold", b.failure_threshold}, {"open_duration_s", b.open_duration_s}};
}

nlohmann::ordered_json to_json(const Policies& p) {
  nlohmann::ordered_json j = {{"legacy", to_json(p.legacy)},
          {"resilient", to_json(p.resilient)},
          {"breaker", to_json(p.breaker)}};
  for (const auto& n : p.named) j[n.retry.mode] = to_json(n);
  return j;
}

}  // namespace quote_lab
