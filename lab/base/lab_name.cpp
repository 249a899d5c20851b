#include "lab/base/lab_name.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace quote_lab {

namespace {

bool allowed(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }
char lower_ascii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// The length of the UTF-8 sequence that starts with `lead` (1 for a stray byte).
std::size_t sequence_length(unsigned char lead) {
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC2 && lead < 0xE0) return 2;
  return 1;
}

// Latin-1 letters as a Spanish, Catalan, Basque, Portuguese or French keyboard types them.
constexpr std::array<std::pair<std::string_view, char>, 44> kFolded{{
    {"á", 'a'}, {"à", 'a'}, {"ä", 'a'}, {"â", 'a'}, {"ã", 'a'}, {"Á", 'a'}, {"À", 'a'}, {"Ä", 'a'}, {"Â", 'a'},
    {"é", 'e'}, {"è", 'e'}, {"ë", 'e'}, {"ê", 'e'}, {"É", 'e'}, {"È", 'e'}, {"Ë", 'e'}, {"Ê", 'e'},
    {"í", 'i'}, {"ì", 'i'}, {"ï", 'i'}, {"î", 'i'}, {"Í", 'i'}, {"Ï", 'i'},
    {"ó", 'o'}, {"ò", 'o'}, {"ö", 'o'}, {"ô", 'o'}, {"õ", 'o'}, {"Ó", 'o'}, {"Ò", 'o'}, {"Ö", 'o'},
    {"ú", 'u'}, {"ù", 'u'}, {"ü", 'u'}, {"û", 'u'}, {"Ú", 'u'}, {"Ü", 'u'},
    {"ñ", 'n'}, {"Ñ", 'n'}, {"ç", 'c'}, {"Ç", 'c'}, {"ý", 'y'}, {"ÿ", 'y'}, {"Ý", 'y'},
}};

}  // namespace

std::string first_refused_character(std::string_view raw) {
  for (std::size_t i = 0; i < raw.size();) {
    const std::size_t n = std::min(sequence_length(static_cast<unsigned char>(raw[i])), raw.size() - i);
    if (n > 1 || !allowed(lower_ascii(raw[i]))) return std::string(raw.substr(i, n));
    i += n;
  }
  return {};
}

std::string suggested_lab_name(std::string_view raw) {
  std::string name;
  for (std::size_t i = 0; i < raw.size();) {
    const std::size_t n = std::min(sequence_length(static_cast<unsigned char>(raw[i])), raw.size() - i);
    const std::string_view piece = raw.substr(i, n);
    i += n;
    char c = 0;
    if (n == 1) {
      c = lower_ascii(piece[0]);
      if (c == ' ' || c == '_' || c == '.') c = '-';
    } else {
      for (const auto& [accented, plain] : kFolded)
        if (accented == piece) c = plain;
    }
    if (c == 0 || !allowed(c) || (c == '-' && (name.empty() || name.back() == '-'))) continue;
    name += c;
  }
  if (name.size() > kMaxLabNameLength) name.resize(kMaxLabNameLength);
  while (!name.empty() && name.back() == '-') name.pop_back();
  return name;
}

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
