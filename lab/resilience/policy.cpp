#include "lab/resilience/policy.hpp"

#include <algorithm>
#include <array>

#include "lab/base/name_table.hpp"
#include "lab/resilience/strategy_settings.hpp"

namespace quote_lab {
namespace {

constexpr NameTable<Jitter, 5> kJitterNames{{{
    {Jitter::none, "none"},
    {Jitter::additive, "additive"},
    {Jitter::full, "full"},
    {Jitter::equal, "equal"},
    {Jitter::decorrelated, "decorrelated"},
}}};

constexpr RetryIntField kRetryIntFields[] = {
    {"timeout_ms", &RetryPolicy::timeout_ms, 10, 10000},
    {"max_attempts", &RetryPolicy::max_attempts, 1, 10},
    {"backoff_base_ms", &RetryPolicy::backoff_base_ms, 0, 10000},
    {"backoff_max_ms", &RetryPolicy::backoff_max_ms, 0, 60000},
    {"jitter_min_ms", &RetryPolicy::jitter_min_ms, 0, 10000},
    {"jitter_max_ms", &RetryPolicy::jitter_max_ms, 0, 10000},
    {"retry_budget_min_per_s", &RetryPolicy::retry_budget_min_per_s, 0, kRetryBudgetMinPerSMax},
    {"deadline_ms", &RetryPolicy::deadline_ms, 0, kDeadlineMsMax},
};

constexpr NameTable<IdempotencyKey, 3> kIdempotencyKeyNames{{{
    {IdempotencyKey::per_flow, "per_flow"},
    {IdempotencyKey::per_attempt, "per_attempt"},
    {IdempotencyKey::none, "none"},
}}};

constexpr std::array<std::pair<unsigned, std::string_view>, 6> kRetryOnNames{{
    {kRetryOn5xx, "5xx"},
    {kRetryOn429, "429"},
    {kRetryOnTimeout, "timeout"},
    {kRetryOnConnectError, "connect_error"},
    {kRetryOn4xx, "4xx"},
    {kRetryOnBadResponse, "bad_response"},
}};

bool listed(const std::vector<Strategy>& pipeline, Strategy s) {
  return std::find(pipeline.begin(), pipeline.end(), s) != pipeline.end();
}

// A pipeline must run as written, end with the call, and list what the course settings
// need: deadline exactly when deadline_ms is set, retry when max_attempts exceeds 1. The
// other strategies run when listed: the list is their one switch.
void validate_pipeline(const RetryPolicy& p, const std::string& n, std::vector<std::string>& errors) {
  if (const std::string problem = pipeline_problem(p.pipeline); !problem.empty())
    errors.push_back(n + "pipeline: " + problem);
  if (!p.uses(Strategy::timeout))
    errors.push_back(n + "pipeline leaves out 'timeout': every pipeline ends with the call");
  if (p.deadline_ms > 0 && !p.uses(Strategy::deadline))
    errors.push_back(n + "pipeline leaves out 'deadline', which the policy uses");
  if (p.deadline_ms <= 0 && p.uses(Strategy::deadline))
    errors.push_back(n + "pipeline lists 'deadline', which the policy does not use");
  if (p.max_attempts > 1 && !p.uses(Strategy::retry))
    errors.push_back(n + "pipeline leaves out 'retry', which the policy uses");
}

// The settings of the strategies the pipeline lists; the others are not read.
void validate_overload(const RetryPolicy& p, const std::string& n, std::vector<std::string>& errors) {
  for (const std::string& name : strategy_names()) {  // each once, even when listed twice
    const Strategy s = *parse_strategy(name);
    if (!p.uses(s)) continue;
    visit_settings(s, p.overload, [&](const std::string& prefix, const auto& group, auto) {
      validate(group, n + name + "." + prefix, errors);
    });
  }
}

}  // namespace

void validate(const RetryPolicy& p, std::vector<std::string>& errors) {
  const std::string n = p.mode + ".";
  for (const auto& f : kRetryIntFields) check_range(errors, n + f.key, p.*f.member, f.lo, f.hi);
  if (p.jitter_min_ms > p.jitter_max_ms)
    errors.push_back(n + "jitter_min_ms must not exceed jitter_max_ms");
  if (p.retry_budget_ratio) check_range(errors, n + "retry_budget_ratio", *p.retry_budget_ratio, 0, 1);
  validate_overload(p, n, errors);
  validate_pipeline(p, n, errors);
}

bool RetryPolicy::uses(Strategy s) const { return listed(pipeline, s); }

void switch_strategy(RetryPolicy& p, Strategy s, bool on) {
  const bool in = p.uses(s);
  if (in && !on) {
    std::erase(p.pipeline, s);
  } else if (!in && on) {
    // After every strategy the shipped order runs outside it or beside it (a gate joins the gates).
    auto at = std::find_if(p.pipeline.begin(), p.pipeline.end(),
                           [&](Strategy t) { return strategy_rank(t) > strategy_rank(s); });
    p.pipeline.insert(at, s);
  }
}

void validate(const BreakerPolicy& b, const std::string& name, std::vector<std::string>& errors) {
  check_range(errors, name + ".failure_threshold", b.failure_threshold, kFailureThresholdMin, kFailureThresholdMax);
  check_range(errors, name + ".open_duration_s", b.open_duration_s, kOpenDurationSMin, kOpenDurationSMax);
}

std::string_view to_string(IdempotencyKey k) { return kIdempotencyKeyNames.name(k); }

bool parse_idempotency_key(std::string_view text, IdempotencyKey& out) {
  return kIdempotencyKeyNames.parse_into(text, out);
}

std::vector<std::string> idempotency_key_names() { return kIdempotencyKeyNames.names(); }

std::vector<std::string> retry_on_names(unsigned mask) {
  std::vector<std::string> names;
  for (const auto& [bit, name] : kRetryOnNames)
    if (mask & bit) names.emplace_back(name);
  return names;
}

std::vector<std::string> retry_on_all_names() { return retry_on_names(~0u); }

unsigned parse_retry_on(std::string_view text) {
  for (const auto& [bit, name] : kRetryOnNames)
    if (name == text) return bit;
  return 0;
}

const RetryPolicy* Policies::find(std::string_view name) const {
  if (name == legacy.mode) return &legacy;
  if (name == resilient.mode) return &resilient;
  const NamedPolicy* n = find_named(name);
  return n ? &n->retry : nullptr;
}

const NamedPolicy* Policies::find_named(std::string_view name) const {
  for (const auto& n : named)
    if (n.retry.mode == name) return &n;
  return nullptr;
}

std::vector<std::string> Policies::names() const {
  std::vector<std::string> out{legacy.mode, resilient.mode};
  for (const auto& n : named) out.push_back(n.retry.mode);
  return out;
}

bool valid_policy_name(std::string_view name) {
  if (name.empty() || name.size() > 32 || name == "breaker") return false;
  for (const char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  return true;
}

NamedPolicy adr0005_policy() {
  NamedPolicy n;
  n.retry = RetryPolicy{.mode = "adr0005",
                        .timeout_ms = 220,
                        .max_attempts = 3,
                        .backoff_base_ms = 200,
                        .backoff_max_ms = 2000,
                        .jitter = Jitter::decorrelated,
                        .jitter_min_ms = 0,
                        .jitter_max_ms = 0};
  n.breaker = BreakerPolicy{.failure_threshold = 5, .open_duration_s = 30};
  return n;
}

std::string_view to_string(Jitter j) { return kJitterNames.name(j); }

bool parse_jitter(std::string_view text, Jitter& out) { return kJitterNames.parse_into(text, out); }

std::span<const RetryIntField> retry_int_fields() { return kRetryIntFields; }

std::vector<std::string> jitter_names() { return kJitterNames.names(); }

RetryPolicy legacy_numbers() {
  return RetryPolicy{.mode = "legacy",
                     .timeout_ms = 360,
                     .max_attempts = 4,
                     .backoff_base_ms = 0,
                     .backoff_max_ms = 0,
                     .jitter = Jitter::none,
                     .jitter_min_ms = 0,
                     .jitter_max_ms = 0,
                     .pipeline = {Strategy::retry, Strategy::timeout}};
}

Policies default_policies() {
  Policies p;
  p.legacy = legacy_numbers();
  p.resilient = RetryPolicy{.mode = "resilient"};
  p.named.push_back(adr0005_policy());
  for (auto make : {throttled_policy, adaptive_limit_policy, bulkhead_policy, hedged_policy, aws_adaptive_policy})
    p.named.push_back(make());
  return p;
}

std::vector<std::string> validate(const Policies& p) {
  std::vector<std::string> errors;
  validate(p.legacy, errors);
  validate(p.resilient, errors);
  validate(p.breaker, "breaker", errors);
  for (const auto& n : p.named) {
    if (!valid_policy_name(n.retry.mode))
      errors.push_back("'" + n.retry.mode + "' is not a valid policy name (1-32 of a-z, 0-9, _ and -; not 'breaker')");
    validate(n.retry, errors);
    if (n.breaker) validate(*n.breaker, n.retry.mode + ".breaker", errors);
  }
  return errors;
}

}  // namespace quote_lab
