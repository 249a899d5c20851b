#pragma once
// ISO 8601 UTC timestamps, the only form in which wall time leaves the lab.

#include <optional>
#include <string>
#include <string_view>

#include "lab/base/clock.hpp"

namespace quote_lab {

/// "2026-11-29T14:55:25.123Z" (millisecond precision, always UTC).
std::string format_iso8601(WallTime t);
/// Parses the form above (fraction optional, "Z" required); nullopt otherwise.
std::optional<WallTime> parse_iso8601(std::string_view text);

}  // namespace quote_lab
