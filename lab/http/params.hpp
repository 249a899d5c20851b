#pragma once
// Validation of query parameters into clear 400 errors that name the parameter and the
// accepted range or values, never a silent default for a bad value.

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lab/http/api_error.hpp"
#include "lab/resilience/domain.hpp"
#include "lab/resilience/policy.hpp"
#include "lab/resilience/quote_budget.hpp"  // kMaxQuoteMs
#include "lab/resilience/vocabulary.hpp"

namespace quote_lab {

/// A query's parameters, name → value, as cpp-httplib parses them (httplib::Params).
using QueryParams = std::multimap<std::string, std::string>;

/// The first value of `name` in `params`, or null when absent.
const std::string* find_param(const QueryParams& params, std::string_view name);

/// Checks a query string before its values are used: every piece of `target`'s query is a
/// name=value pair (else 400 "malformed_query"), every name is in `known` (else 400
/// "unknown_parameter" listing them, with a "did you mean" for a near miss) and given once (else 400 "invalid_parameter"). A typo
/// such as "scenaro=down" must not quietly run the default scenario, and cpp-httplib reads
/// "scenario=nope=ok" as "ok" and keeps the first of two values, so those are refused.
std::optional<ApiError> check_query(std::string_view target, const QueryParams& params,
                                    const std::set<std::string>& known);

/// Reads integer parameter `name` from its raw text (`raw` null when absent → `fallback`).
/// Accepts only optional '-' and decimal digits, within [lo, hi]. On error returns an
/// ApiError such as "items must be an integer between 1 and 50 (got '0')".
std::optional<ApiError> parse_int_param(std::string_view name, const std::string* raw, int lo,
                                        int hi, int fallback, int& out);
/// The same for a parameter of the domain (domain.hpp): its name, range and default.
std::optional<ApiError> parse_int_param(const IntParam& p, const std::string* raw, int& out);
/// Reads a decimal number ("0.5", "200") within [lo, hi] from `raw` (not null) into `out`;
/// anything else is a 400 such as "rate must be a number between 0.1 and 500 (got 'x')".
std::optional<ApiError> parse_number_param(std::string_view name, const std::string& raw, double lo, double hi,
                                           double& out);

/// Reads a quote's priority (`?priority=` or the X-Priority header, vocabulary.hpp) from
/// its raw text: `critical` or `sheddable` into `out`; anything else is a 400
/// "invalid_priority" naming both (`allowed`).
std::optional<ApiError> parse_priority_value(const std::string& raw, Priority& out);

/// Applies the per-request overrides found by `lookup` (name → raw value or null) to
/// `policy`, as the table of policy_overrides.hpp says: each bad value is a 400 naming the
/// parameter and its range (`allowed` for a choice). Returns the first error; `policy` is only
/// changed when every value is valid. `changed` lists the names that were given.
/// Overrides whose worst case (timeout × attempts + waits) is above kMaxQuoteMs are a
/// 400 "quote_too_long" that names the bound and the worst case.
std::optional<ApiError> apply_policy_overrides(const std::function<const std::string*(const char*)>& lookup,
                                               RetryPolicy& policy, std::vector<std::string>& changed);

}  // namespace quote_lab
