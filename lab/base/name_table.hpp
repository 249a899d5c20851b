#pragma once
// One table of names per enum: the value <-> string mapping of a vocabulary lives in exactly
// one place, so rendering and parsing can never disagree. Standard library only.

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace quote_lab {

/// The names of the N values of enum `E`, listed in declaration order (the vocabulary
/// tests check that every value is listed exactly once). Lookups are linear: N is tiny.
template <class E, std::size_t N>
struct NameTable {
  std::array<std::pair<E, std::string_view>, N> entries;

  /// The name of `value`; empty if the table lacks it.
  constexpr std::string_view name(E value) const {
    for (const auto& [v, n] : entries)
      if (v == value) return n;
    return {};
  }
  /// The value named `text` (exact, case-sensitive); nullopt for an unknown name.
  constexpr std::optional<E> parse(std::string_view text) const {
    for (const auto& [v, n] : entries)
      if (n == text) return v;
    return std::nullopt;
  }
  /// Sets `out` to the value named `text` and says true; false (`out` untouched) for an
  /// unknown name.
  constexpr bool parse_into(std::string_view text, E& out) const {
    const std::optional<E> v = parse(text);
    if (v) out = *v;
    return v.has_value();
  }
  /// Every name, in order: the `allowed` list of an error message.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [_, n] : entries) out.emplace_back(n);
    return out;
  }
};

}  // namespace quote_lab
