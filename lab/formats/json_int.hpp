#pragma once
// Integers read from data files (policies, scenarios, the state file), range-checked
// before any narrowing. nlohmann keeps a JSON integer as int64 or uint64, and `get<int>()`
// on 4294967298 silently gives 2: every caller that stores an int goes through here so a
// too-large value is refused with its range instead of wrapping into a plausible one.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace quote_lab {

/// `v` as an integer in [lo, hi] (lo <= hi), compared at full width before anything is
/// converted. nullopt when `v` is not a JSON integer (a float such as 1e3 or 3.0, a
/// string, null) or lies outside the range. The result fits any type that holds [lo, hi].
inline std::optional<std::int64_t> json_int_in_range(const nlohmann::ordered_json& v, std::int64_t lo,
                                                     std::int64_t hi) {
  if (v.is_number_unsigned()) {
    const std::uint64_t u = v.get<std::uint64_t>();
    if (hi < 0 || u > static_cast<std::uint64_t>(hi)) return std::nullopt;
    const auto s = static_cast<std::int64_t>(u);  // u <= hi <= INT64_MAX
    if (s < lo) return std::nullopt;
    return s;
  }
  if (v.is_number_integer()) {
    const std::int64_t s = v.get<std::int64_t>();
    if (s < lo || s > hi) return std::nullopt;
    return s;
  }
  return std::nullopt;
}

/// A value as the file wrote it (JSON), shortened past 40 characters: what a "(got …)" shows.
inline std::string shown_value(const nlohmann::ordered_json& got) {
  std::string shown = got.dump();
  if (shown.size() > 40) shown = shown.substr(0, 40) + "...";
  return shown;
}

/// "FIELD must be an integer between LO and HI (got VALUE)", VALUE as written in the file
/// (shortened), for the messages that stop start-up or set a state file aside.
inline std::string int_range_problem(std::string_view field, const nlohmann::ordered_json& got, std::int64_t lo,
                                     std::int64_t hi) {
  return std::string(field) + " must be an integer between " + std::to_string(lo) + " and " + std::to_string(hi) +
         " (got " + shown_value(got) + ")";
}

}  // namespace quote_lab
