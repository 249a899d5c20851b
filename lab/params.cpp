#include "lab/params.hpp"

#include <charconv>

namespace quote_lab {

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

}  // namespace quote_lab
