#pragma once
// A student lab's name, as `?lab=NAME` gives it (SPEC.md, last section). Names become map
// keys, state-file keys and URL parts, so they are kept to a small, safe alphabet.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace quote_lab {

/// Longest lab name, in characters.
inline constexpr std::size_t kMaxLabNameLength = 32;

/// Why a name was refused. The sentences a student reads (in English and Spanish) are in
/// the lab's one message table (lab/http/api_error), not here.
enum class LabNameProblem {
  none,
  length,      ///< empty, or longer than kMaxLabNameLength
  characters,  ///< a character outside a-z, A-Z, 0-9 and '-'
};

/// The canonical form of `raw`: 1 to kMaxLabNameLength characters of a-z, 0-9 and '-',
/// upper-case ASCII letters folded to lower case ("Ana" → "ana", so a student who types
/// a capital letter reaches the same lab). nullopt when anything else is in it; `problem`
/// then says which rule it broke (none when the name is fine).
std::optional<std::string> normalize_lab_name(std::string_view raw, LabNameProblem& problem);

/// The first character of `raw` a name cannot hold, whole (a UTF-8 sequence such as "ñ");
/// empty when there is none.
std::string first_refused_character(std::string_view raw);

/// A name the lab accepts, made from `raw` as a student would write it by hand: Spanish and
/// other Latin accents folded ("Begoña" → "begona", "José Luis" → "jose-luis"), spaces,
/// '_' and '.' as '-', anything else left out, cut to kMaxLabNameLength; empty when nothing
/// is left.
std::string suggested_lab_name(std::string_view raw);

}  // namespace quote_lab
