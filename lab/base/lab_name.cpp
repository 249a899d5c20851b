#include "lab/base/lab_name.hpp"

namespace quote_lab {

std::optional<std::string> normalize_lab_name(std::string_view raw, LabNameProblem& problem) {
  problem = LabNameProblem::none;
  if (raw.empty() || raw.size() > kMaxLabNameLength) {
    problem = LabNameProblem::length;
    return std::nullopt;
  }
  std::string name;
  name.reserve(raw.size());
  for (const char c : raw) {
    const char lower = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    if (!((lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9') || lower == '-')) {
      problem = LabNameProblem::characters;
      return std::nullopt;
    }
    name += lower;
  }
  return name;
}

}  // namespace quote_lab
