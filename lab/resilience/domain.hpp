#pragma once
// The quote domain's numbers, in one place (SPEC.md, "Routes": quote parameters and
// /incidents): the ranges a request may ask for and the defaults when it asks nothing.
// Validation, the `GET /` index, the carrier, the fallback cache and the state file all
// read them from here. Standard library only.

#include <string>
#include <string_view>

namespace quote_lab {

/// An integer query parameter: its name, the inclusive range accepted and the value used
/// when the parameter is absent.
struct IntParam {
  std::string_view name;
  int min;
  int max;
  int fallback;

  constexpr bool contains(int v) const { return v >= min && v <= max; }
  /// "integer 1-5000", the range alone.
  std::string describe_range() const { return "integer " + std::to_string(min) + "-" + std::to_string(max); }
  /// "integer 1-5000, default 42", as the `GET /` index describes it.
  std::string describe() const { return describe_range() + ", default " + std::to_string(fallback); }
};

/// The customer a quote is for.
inline constexpr IntParam kCustomerId{"customer_id", 1, 5000, 42};
/// How many items the quote prices.
inline constexpr IntParam kItems{"items", 1, 50, 3};
/// How many incidents /incidents lists (also how many the lab keeps).
inline constexpr IntParam kIncidentsLimit{"limit", 1, 200, 10};

/// The carrier's mode at start and after a reset: every request that names no scenario
/// runs this one.
inline constexpr std::string_view kDefaultScenario = "ok";

}  // namespace quote_lab
