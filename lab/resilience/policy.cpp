#include "lab/resilience/policy.hpp"

#include <array>
#include <cmath>
#include <sstream>

namespace quote_lab {
namespace {

constexpr std::array<std::pair<Jitter, std::string_view>, 5> kJitterNames{{
    {Jitter::none, "none"},
    {Jitter::additive, "additive"},
    {Jitter::full, "full"},
    {Jitter::equal, "equal"},
    {Jitter::decorrelated, "decorrelated"},
}};

constexpr RetryIntField kRetryIntFields[] = {
    {"timeout_ms", &RetryPolicy::timeout_ms, 10, 10000},
    {"max_attempts", &RetryPolicy::max_attempts, 1, 10},
    {"backoff_base_ms", &RetryPolicy::backoff_base_ms, 0, 10000},
    {"backoff_max_ms", &RetryPolicy::backoff_max_ms, 0, 60000},
    {"jitter_min_ms", &RetryPolicy::jitter_min_ms, 0, 10000},
    {"jitter_max_ms", &RetryPolicy::jitter_max_ms, 0, 10000},
};

void check_range(std::vector<std::string>& errors, const std::string& name, double v, double lo,
                 double hi) {
  // whole numbers print as "1", not "1.0"
  auto show = [](double x) {
    if (x == std::floor(x) && std::abs(x) < 1e15) return std::to_string(static_cast<long long>(x));
    std::ostringstream out;
    out << x;
    return out.str();
  };
  if (!(v >= lo && v <= hi))  // also refuses NaN
    errors.push_back(name + " must be between " + show(lo) + " and " + show(hi) + " (got " + show(v) + ")");
}

void validate_retry(const RetryPolicy& p, std::vector<std::string>& errors) {
  const std::string n = p.mode + ".";
  for (const auto& f : kRetryIntFields) check_range(errors, n + f.key, p.*f.member, f.lo, f.hi);
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

std::span<const RetryIntField> retry_int_fields() { return kRetryIntFields; }

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

std::vector<std::string> validate(const Policies& p) {
  std::vector<std::string> errors;
  validate_retry(p.legacy, errors);
  validate_retry(p.resilient, errors);
  check_range(errors, "breaker.failure_threshold", p.breaker.failure_threshold, kFailureThresholdMin,
              kFailureThresholdMax);
  check_range(errors, "breaker.open_duration_s", p.breaker.open_duration_s, 0.1, 3600);
  return errors;
}

}  // namespace quote_lab
