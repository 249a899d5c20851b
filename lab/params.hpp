#pragma once
// Validation of query parameters into clear 400 errors that name the parameter and the
// accepted range or values, never a silent default for a bad value.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace quote_lab {

/// A client error, rendered as {"error", "message", "allowed"?} with `status`.
struct ApiError {
  int status = 400;
  std::string error;    ///< machine-readable code, e.g. "invalid_parameter"
  std::string message;  ///< one plain sentence for a student
  std::vector<std::string> allowed;
};

/// Reads integer parameter `name` from its raw text (`raw` null when absent → `fallback`).
/// Accepts only optional '-' and decimal digits, within [lo, hi]. On error returns an
/// ApiError such as "items must be an integer between 1 and 50 (got '0')".
std::optional<ApiError> parse_int_param(std::string_view name, const std::string* raw, int lo,
                                        int hi, int fallback, int& out);

}  // namespace quote_lab
