#include "lab/base/lab_name.hpp"

namespace quote_lab {

std::optional<std::string> normalize_lab_name(std::string_view raw, std::string& problem) {
  if (raw.empty() || raw.size() > kMaxLabNameLength) {
    problem = "a lab name has 1 to " + std::to_string(kMaxLabNameLength) + " characters (got " +
              std::to_string(raw.size()) + ")";
    return std::nullopt;
  }
  std::string name;
  name.reserve(raw.size());
  for (const char c : raw) {
    const char lower = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    if (!((lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9') || lower == '-')) {
      problem = "a lab name uses only letters a-z, digits and '-' (e.g. ?lab=ana or ?lab=team-3)";
      return std::nullopt;
    }
    name += lower;
  }
  return name;
}

}  // namespace quote_lab
