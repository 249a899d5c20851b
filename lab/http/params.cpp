#include "lab/http/params.hpp"

#include <charconv>

#include "lab/resilience/quote_budget.hpp"

namespace quote_lab {

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
      return ApiError{400, "malformed_query",
                      "'" + std::string(piece.substr(0, 40)) + "' is not a name=value pair (use & between parameters)",
                      {}};
  }
  for (const auto& [name, _] : params) {
    if (!known.count(name))
      return ApiError{400, "unknown_parameter",
                      "unknown query parameter '" + name.substr(0, 40) + "'",
                      std::vector<std::string>(known.begin(), known.end())};
    if (params.count(name) > 1)
      return ApiError{400, "invalid_parameter", name.substr(0, 40) + " is given more than once", {}};
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
  // Echo at most a short, printable prefix of what was sent.
  std::string shown = text.substr(0, 40);
  for (char& c : shown)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  return ApiError{400, "invalid_parameter",
                  std::string(name) + " must be an integer between " + std::to_string(lo) +
                      " and " + std::to_string(hi) + " (got '" + shown + "')",
                  {}};
}

std::optional<ApiError> apply_policy_overrides(const std::function<const std::string*(const char*)>& lookup,
                                               RetryPolicy& policy, std::vector<std::string>& changed) {
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
      return ApiError{400, "invalid_parameter", "jitter must be one of the allowed strategies", jitter_names()};
    // Legacy's policy has no backoff room at all; a jitter choice should be visible.
    if (p.backoff_max_ms == 0) p.backoff_max_ms = 2000;
    if (p.jitter == Jitter::additive && p.jitter_max_ms == 0) {
      p.jitter_min_ms = 15;
      p.jitter_max_ms = 45;
    }
  }
  if (lookup("backoff_base_ms") && p.backoff_max_ms == 0) p.backoff_max_ms = 2000;
  if (const Millis worst = worst_case_duration(p); worst.count() > kMaxQuoteMs)
    return ApiError{400, "quote_too_long",
                    "with these overrides one quote could take " + std::to_string(worst.count()) +
                        " ms (timeout_ms x max_attempts + waits); the bound is " + std::to_string(kMaxQuoteMs) +
                        " ms: lower timeout_ms or max_attempts",
                    {}};
  for (const char* name : kPolicyOverrideParams)
    if (lookup(name)) changed.emplace_back(name);
  policy = p;
  return std::nullopt;
}

}  // namespace quote_lab
