#include "lab/http/params.hpp"

#include <algorithm>
#include <charconv>

#include "lab/base/did_you_mean.hpp"
#include "lab/http/policy_overrides.hpp"
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

// Checks one override's raw value against its row of the table; an integer or a number
// is returned in `number`, a choice stays the raw text.
std::optional<ApiError> parse_override(const PolicyOverride& o, const std::string& raw, double& number) {
  const std::string name(o.name);
  switch (o.kind) {
    case OverrideKind::integer: {
      int value = 0;
      auto e = parse_int_param(name, &raw, static_cast<int>(o.min), static_cast<int>(o.max), 0, value);
      number = value;
      return e;
    }
    case OverrideKind::number:
      return parse_number_param(name, raw, o.min, o.max, number);
    case OverrideKind::choice:
      if (std::find(o.choices.begin(), o.choices.end(), raw) != o.choices.end()) return std::nullopt;
      return api_error(400, "invalid_parameter", o.choice_error, {{"name", name}, {"got", printable(raw)}}, o.choices);
  }
  return std::nullopt;
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

std::optional<ApiError> parse_priority_value(const std::string& raw, Priority& out) {
  if (const auto p = parse_priority(raw)) {
    out = *p;
    return std::nullopt;
  }
  return api_error(400, "invalid_priority", MessageId::invalid_priority, {{"got", printable(raw)}}, priority_names());
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

std::optional<ApiError> parse_number_param(std::string_view name, const std::string& raw, double lo, double hi,
                                           double& out) {
  double number = 0;
  const auto [ptr, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), number);
  if (raw.empty() || ec != std::errc() || ptr != raw.data() + raw.size() || !(number >= lo && number <= hi))
    return api_error(400, "invalid_parameter", MessageId::number_out_of_range,
                     {{"name", std::string(name)}, {"min", bound_text(lo)}, {"max", bound_text(hi)}, {"got", printable(raw)}});
  out = number;
  return std::nullopt;
}

std::optional<ApiError> apply_policy_overrides(const std::function<const std::string*(const char*)>& lookup,
                                               RetryPolicy& policy, std::vector<std::string>& changed) {
  std::vector<std::pair<const PolicyOverride*, const std::string*>> given;
  for (const auto& o : policy_overrides())
    if (const std::string* raw = lookup(std::string(o.name).c_str())) given.emplace_back(&o, raw);
  // Most requests name no override: the policy stands as it is, already within bounds.
  if (given.empty()) return std::nullopt;
  RetryPolicy p = policy;
  for (const auto& [o, raw] : given) {
    double number = 0;
    if (auto e = parse_override(*o, *raw, number)) return e;
    o->apply(p, number, *raw);
  }
  if (const Millis worst = worst_case_duration(p); worst.count() > kMaxQuoteMs)
    return api_error(400, "quote_too_long", MessageId::quote_too_long,
                     {{"worst_ms", std::to_string(worst.count())}, {"bound_ms", std::to_string(kMaxQuoteMs)}});
  for (const auto& [o, raw] : given) changed.emplace_back(o->name);
  policy = p;
  return std::nullopt;
}

}  // namespace quote_lab
