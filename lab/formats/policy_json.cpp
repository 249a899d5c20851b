#include "lab/formats/policy_json.hpp"

#include <nlohmann/json.hpp>

#include "lab/base/did_you_mean.hpp"
#include "lab/formats/json_fields.hpp"
#include "lab/formats/pipeline_json.hpp"

namespace quote_lab {
namespace {

using namespace json_fields;
using json = nlohmann::ordered_json;

void read_retry(const json& j, const std::string& name, RetryPolicy& p, std::vector<std::string>& errors) {
  if (!j.is_object()) return errors.push_back(name + " must be an object");
  check_keys(j, name,
             {"timeout_ms", "max_attempts", "backoff_base_ms", "backoff_max_ms", "jitter", "jitter_min_ms",
              "jitter_max_ms", "circuit_breaker", "fallback", "retry_on", "retry_budget_ratio",
              "retry_budget_min_per_s", "deadline_ms", "idempotency_key", "breaker", "pipeline"},
             errors);
  read_retry_keys(j, name + ".", p, errors);
}

void read_breaker(const nlohmann::ordered_json& b, const std::string& name, BreakerPolicy& out,
                  std::vector<std::string>& errors) {
  if (!b.is_object()) return errors.push_back(name + " must be an object");
  check_keys(b, name, {"failure_threshold", "open_duration_s"}, errors);
  read_int(b, name + ".", "failure_threshold", kFailureThresholdMin, kFailureThresholdMax,
                 out.failure_threshold, errors);
  read_field(b, name + ".", "open_duration_s", out.open_duration_s, errors);
}

// GET / shows each policy's keys beside its pipeline: read back, the keys must say what the
// pipeline says, or the object would mean two things.
void check_shown_keys(const json& value, const std::string& name, const PipelinePolicy& read, bool named,
                      std::vector<std::string>& errors) {
  RetryPolicy flat = read.retry;
  read_retry(value, name, flat, errors);
  const json said = to_json(read.retry, true);
  const json shown = to_json(flat, true);
  for (const auto& [key, _] : value.items())
    if (said.contains(key) && said.at(key) != shown.at(key))
      errors.push_back(name + "." + key + " is " + shown.at(key).dump() + " beside a pipeline that says " +
                       said.at(key).dump() + ": write each setting once, in its strategy");
  if (!named || !value.contains("breaker")) return;
  const json said_breaker = read.breaker ? to_json(*read.breaker) : json(nullptr);
  json shown_breaker = nullptr;
  if (!value.at("breaker").is_null()) {
    BreakerPolicy b = read.breaker.value_or(BreakerPolicy{});
    read_breaker(value.at("breaker"), name + ".breaker", b, errors);
    shown_breaker = to_json(b);
  }
  if (shown_breaker != said_breaker)
    errors.push_back(name + ".breaker is " + shown_breaker.dump() + " beside a pipeline whose circuit_breaker says " +
                     said_breaker.dump() + ": write each setting once, in its strategy");
}

// One policy object, flat (keys overlaid on `policy`) or a pipeline (the whole policy), onto
// `policy` and, for a named policy, its own breaker (`own`; null for legacy and resilient).
void read_policy(const json& value, const std::string& name, RetryPolicy& policy, std::optional<BreakerPolicy>* own,
                 const BreakerPolicy& course_breaker, std::vector<std::string>& errors) {
  if (!value.is_object()) return errors.push_back(name + " must be an object");
  if (!own && value.contains("breaker"))
    errors.push_back(name + ".breaker: only a named policy has a breaker of its own; the course breaker is the "
                            "top-level \"breaker\"");
  if (value.contains("pipeline")) {
    PipelinePolicy read = pipeline_from_json(value.at("pipeline"), name, own != nullptr, errors);
    if (value.size() > 1) check_shown_keys(value, name, read, own != nullptr, errors);
    policy = std::move(read.retry);
    if (own) *own = read.breaker;
    return;
  }
  read_retry(value, name, policy, errors);
  // A flat key that needs a strategy lists it, where the shipped order puts it.
  if (value.contains("deadline_ms")) switch_strategy(policy, Strategy::deadline, policy.deadline_ms > 0);
  if (policy.max_attempts > 1) switch_strategy(policy, Strategy::retry, true);
  if (!own || !value.contains("breaker")) return;
  if (value.at("breaker").is_null()) return own->reset();
  BreakerPolicy b = own->value_or(course_breaker);
  read_breaker(value.at("breaker"), name + ".breaker", b, errors);
  *own = b;
}

}  // namespace

void read_retry_keys(const json& j, const std::string& prefix, RetryPolicy& p, std::vector<std::string>& errors) {
  for (const auto& f : retry_int_fields()) read_int(j, prefix, f.key, f.lo, f.hi, p.*f.member, errors);
  for (const Strategy s : {Strategy::circuit_breaker, Strategy::fallback}) {
    bool on = p.uses(s);
    read_field(j, prefix, std::string(to_string(s)).c_str(), on, errors);
    switch_strategy(p, s, on);
  }
  if (j.contains("jitter")) {
    const auto& v = j.at("jitter");
    if (!v.is_string() || !parse_jitter(v.get<std::string>(), p.jitter))
      errors.push_back(choice_problem(prefix + "jitter", v, jitter_names()));
  }
  if (j.contains("idempotency_key")) {
    const auto& v = j.at("idempotency_key");
    if (!v.is_string() || !parse_idempotency_key(v.get<std::string>(), p.idempotency_key))
      errors.push_back(choice_problem(prefix + "idempotency_key", v, idempotency_key_names()));
  }
  if (j.contains("retry_on")) {
    const auto& v = j.at("retry_on");
    unsigned mask = 0;
    bool ok = v.is_array();
    for (const auto& item : ok ? v : json::array()) {
      const unsigned bit = item.is_string() ? parse_retry_on(item.get<std::string>()) : 0;
      ok = ok && bit != 0;
      mask |= bit;
    }
    if (ok) p.retry_on = mask;
    else errors.push_back(prefix + "retry_on must be a list of: " + joined(retry_on_all_names()) + " (got " + shown_value(v) + ")");
  }
  if (j.contains("retry_budget_ratio")) {
    // null switches a budget off
    if (j.at("retry_budget_ratio").is_null()) p.retry_budget_ratio.reset();
    else {
      double ratio = p.retry_budget_ratio.value_or(0);
      const std::size_t before = errors.size();
      read_number(j, prefix, "retry_budget_ratio", 0, 1, ratio, errors);
      if (errors.size() == before) p.retry_budget_ratio = ratio;
    }
  }
}

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
    if (key == "legacy") read_policy(value, key, p.legacy, nullptr, p.breaker, errors);
    else if (key == "resilient") read_policy(value, key, p.resilient, nullptr, p.breaker, errors);
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
      read_policy(value, key, named->retry, &named->breaker, p.breaker, errors);
    }
  }
  for (auto& e : validate(p)) errors.push_back(std::move(e));
  if (!errors.empty()) {
    std::string msg = "invalid policies:";
    for (const auto& e : errors) msg += "\n  - " + e;
    throw PolicyError(msg, std::move(errors));
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
          {"circuit_breaker", p.uses(Strategy::circuit_breaker)},
          {"fallback", p.uses(Strategy::fallback)}};
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
  const auto pipeline_form = [](const RetryPolicy& r, const std::optional<BreakerPolicy>& own) {
    json j = json::object();
    j["pipeline"] = pipeline_to_json(r, own);
    return j;
  };
  json j = json::object();
  j["legacy"] = pipeline_form(p.legacy, std::nullopt);
  j["resilient"] = pipeline_form(p.resilient, std::nullopt);
  j["breaker"] = to_json(p.breaker);
  for (const auto& n : p.named) j[n.retry.mode] = pipeline_form(n.retry, n.breaker);
  return j;
}

nlohmann::ordered_json policies_shown_json(const Policies& p, bool with_pipelines) {
  json j = {{"legacy", to_json(p.legacy)}, {"resilient", to_json(p.resilient)}, {"breaker", to_json(p.breaker)}};
  for (const auto& n : p.named) j[n.retry.mode] = to_json(n);
  if (!with_pipelines) return j;
  j["legacy"]["pipeline"] = pipeline_to_json(p.legacy, std::nullopt);
  j["resilient"]["pipeline"] = pipeline_to_json(p.resilient, std::nullopt);
  for (const auto& n : p.named) j[n.retry.mode]["pipeline"] = pipeline_to_json(n.retry, n.breaker);
  return j;
}

}  // namespace quote_lab
