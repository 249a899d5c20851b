#pragma once
// "Did you mean ...?" for a mistyped name (e.g. `provder_down` → `provider_down`).
// Standard library only.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace quote_lab {

/// `s` with A-Z turned into a-z (names here are ASCII; other bytes are kept).
std::string ascii_lower(std::string_view s);

/// Levenshtein distance between `a` and `b`, byte-wise and case-sensitive: the fewest
/// single-character insertions, deletions and substitutions that turn one into the other.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `typed` (compared in lower case, so "Scenario" suggests
/// "scenario"), when it is close enough to be a typo: at most 1 edit for names of up to 4
/// characters, at most 2 for longer ones. Ties go to the first candidate listed. nullopt:
/// nothing is that close.
std::optional<std::string> did_you_mean(std::string_view typed, const std::vector<std::string>& candidates);

}  // namespace quote_lab
