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

/// Per-request policy overrides of one quote (for teaching): the range each accepts.
/// `fallback` is unused: an absent override keeps the mode's policy value.
inline constexpr IntParam kTimeoutMsOverride{"timeout_ms", 10, 5000, 0};
inline constexpr IntParam kMaxAttemptsOverride{"max_attempts", 1, 10, 0};
inline constexpr IntParam kBackoffBaseMsOverride{"backoff_base_ms", 0, 5000, 0};
inline constexpr IntParam kRetryBudgetMinPerSOverride{"retry_budget_min_per_s", 0, 1000, 0};
inline constexpr IntParam kDeadlineMsOverride{"deadline_ms", 10, 5000, 0};

/// The carrier's mode at start and after a reset: every request that names no scenario
/// runs this one.
inline constexpr std::string_view kDefaultScenario = "ok";

}  // namespace quote_lab
