#include "lab/http/params.hpp"

#include <algorithm>
#include <charconv>

#include "lab/base/did_you_mean.hpp"
#include "lab/resilience/quote_budget.hpp"

namespace quote_lab {
namespace {

// At most a short, printable prefix of what was sent, to echo in an error.
std::string printable(const std::string& text) {
  std::string shown = text.substr(0, 40);
  for (char& c : shown)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  return shown;
}

// The course's resilient policy: where a backoff override on a policy without one (legacy)
// takes its cap and jitter range from.
const RetryPolicy& course_backoff() {
  static const RetryPolicy resilient = default_policies().resilient;
  return resilient;
}

}  // namespace

const std::string* find_param(const QueryParams& params, std::string_view name) {
  const auto it = params.find(std::string(name));
  return it == params.end() ? nullptr : &it->second;
}

std::optional<ApiError> check_query(std::string_view target, const QueryParams& params,
                                    const std::set<std::string>& known) {
  const auto q = target.find('?');
  std::string_view query = q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view piece = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (piece.empty()) continue;
    const auto eq = piece.find('=');
    if (eq == 0 || piece.find('=', eq == std::string_view::npos ? 0 : eq + 1) != std::string_view::npos ||
        piece.find(';') != std::string_view::npos)
      return api_error(400, "malformed_query", MessageId::malformed_query, {{"piece", std::string(piece.substr(0, 40))}});
  }
  for (const auto& [name, _] : params) {
    if (!known.count(name)) {
      std::vector<std::string> allowed(known.begin(), known.end());
      if (const auto meant = did_you_mean(name, allowed))
        return api_error(400, "unknown_parameter", MessageId::unknown_parameter_did_you_mean,
                         {{"name", name.substr(0, 40)}, {"suggestion", *meant}}, std::move(allowed));
      return api_error(400, "unknown_parameter", MessageId::unknown_parameter, {{"name", name.substr(0, 40)}},
                       std::move(allowed));
    }
    if (params.count(name) > 1)
      return api_error(400, "invalid_parameter", MessageId::repeated_parameter, {{"name", name.substr(0, 40)}});
  }
  return std::nullopt;
}

std::optional<ApiError> parse_int_param(const IntParam& p, const std::string* raw, int& out) {
  return parse_int_param(p.name, raw, p.min, p.max, p.fallback, out);
}

std::optional<ApiError> parse_int_param(std::string_view name, const std::string* raw, int lo,
                                        int hi, int fallback, int& out) {
  if (raw == nullptr) {
    out = fallback;
    return std::nullopt;
  }
  const std::string& text = *raw;
  long long value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(first, last, value);
  const bool is_int = !text.empty() && text.size() <= 18 && ec == std::errc() && ptr == last;
  if (is_int && value >= lo && value <= hi) {
    out = static_cast<int>(value);
    return std::nullopt;
  }
  return api_error(400, "invalid_parameter", MessageId::integer_out_of_range,
                   {{"name", std::string(name)}, {"min", std::to_string(lo)}, {"max", std::to_string(hi)},
                    {"got", printable(text)}});
}

std::optional<ApiError> apply_policy_overrides(const std::function<const std::string*(const char*)>& lookup,
                                               RetryPolicy& policy, std::vector<std::string>& changed) {
  // Most requests name no override: the policy stands as it is, already within bounds.
  const auto named = [&lookup](const char* name) { return lookup(name) != nullptr; };
  if (std::none_of(std::begin(kPolicyOverrideParams), std::end(kPolicyOverrideParams), named)) return std::nullopt;
  RetryPolicy p = policy;
  // An absent override keeps the policy's value: the policy is the fallback.
  const auto read = [&lookup](const IntParam& range, int& value) {
    return parse_int_param(range.name, lookup(std::string(range.name).c_str()), range.min, range.max, value, value);
  };
  if (auto e = read(kTimeoutMsOverride, p.timeout_ms)) return e;
  if (auto e = read(kMaxAttemptsOverride, p.max_attempts)) return e;
  if (auto e = read(kBackoffBaseMsOverride, p.backoff_base_ms)) return e;
  if (const std::string* raw = lookup("jitter")) {
    if (!parse_jitter(*raw, p.jitter))
      return api_error(400, "invalid_parameter", MessageId::unknown_jitter, {}, jitter_names());
    // Legacy's policy has no backoff room at all; a jitter choice should be visible, so it
    // borrows the course's resilient cap and additive range.
    if (p.backoff_max_ms == 0) p.backoff_max_ms = course_backoff().backoff_max_ms;
    if (p.jitter == Jitter::additive && p.jitter_max_ms == 0) {
      p.jitter_min_ms = course_backoff().jitter_min_ms;
      p.jitter_max_ms = course_backoff().jitter_max_ms;
    }
  }
  if (lookup("backoff_base_ms") && p.backoff_max_ms == 0) p.backoff_max_ms = course_backoff().backoff_max_ms;
  if (auto e = read(kRetryBudgetMinPerSOverride, p.retry_budget_min_per_s)) return e;
  if (auto e = read(kDeadlineMsOverride, p.deadline_ms)) return e;
  if (const std::string* raw = lookup("retry_budget_ratio")) {
    double ratio = -1;
    const auto [ptr, ec] = std::from_chars(raw->data(), raw->data() + raw->size(), ratio);
    if (raw->empty() || ec != std::errc() || ptr != raw->data() + raw->size() || !(ratio >= 0 && ratio <= 1))
      return api_error(400, "invalid_parameter", MessageId::number_out_of_range,
                       {{"name", "retry_budget_ratio"}, {"min", "0"}, {"max", "1"}, {"got", printable(*raw)}});
    p.retry_budget_ratio = ratio;
  }
  if (const std::string* raw = lookup("idempotency_key"); raw && !parse_idempotency_key(*raw, p.idempotency_key))
    return api_error(400, "invalid_parameter", MessageId::unknown_choice,
                     {{"name", "idempotency_key"}, {"got", printable(*raw)}}, idempotency_key_names());
  if (const std::string* raw = lookup("circuit_breaker")) {
    if (*raw != "true" && *raw != "false")
      return api_error(400, "invalid_parameter", MessageId::unknown_choice,
                       {{"name", "circuit_breaker"}, {"got", printable(*raw)}}, {"true", "false"});
    p.circuit_breaker = *raw == "true";
  }
  if (const Millis worst = worst_case_duration(p); worst.count() > kMaxQuoteMs)
    return api_error(400, "quote_too_long", MessageId::quote_too_long,
                     {{"worst_ms", std::to_string(worst.count())}, {"bound_ms", std::to_string(kMaxQuoteMs)}});
  for (const char* name : kPolicyOverrideParams)
    if (lookup(name)) changed.emplace_back(name);
  policy = p;
  return std::nullopt;
}

}  // namespace quote_lab
