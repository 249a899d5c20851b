#pragma once
// The per-request policy overrides of a quote (for teaching: `?timeout_ms=80&max_attempts=2`),
// as ONE table: the parser (params.cpp), the `GET /` index (its `parameters` and
// `policy_overrides`) and the dashboard's storm form (which builds its fields from the
// index) all read it, so a new override or a changed range is written once.

#include <string>
#include <string_view>
#include <vector>

#include "lab/http/api_error.hpp"
#include "lab/resilience/policy.hpp"

namespace quote_lab {

/// How an override's value is written in a query.
enum class OverrideKind {
  integer,  ///< decimal digits within [min, max]
  number,   ///< a decimal number within [min, max]
  choice,   ///< one of `choices`
};

/// One override: its name, what it accepts, what it changes (es/en), and how it changes a
/// policy. An absent override keeps the policy's own value: the policy is the default.
struct PolicyOverride {
  std::string_view name;
  OverrideKind kind;
  double min = 0;                    ///< integer, number: the inclusive range
  double max = 0;
  std::vector<std::string> choices;  ///< choice: the accepted values, in the order shown
  MessageId choice_error = MessageId::unknown_choice;  ///< choice: the 400's message
  std::string_view es;               ///< what it changes, for the index and the storm form
  std::string_view en;
  /// Writes an accepted value (`number` for integer and number, `choice` for a choice)
  /// into `policy`.
  void (*apply)(RetryPolicy& policy, double number, const std::string& choice);

  /// "integer 10-5000", "number 0-1" or "one of: `none`, `additive`, ...", in `language`.
  std::string accepted(Language language) const;
};

/// A range's bound as messages write it: "10", "0.5".
std::string bound_text(double v);

/// The table, in the order the index lists it.
const std::vector<PolicyOverride>& policy_overrides();

/// The overrides' names (for a route's known parameters).
std::vector<std::string> policy_override_names();

}  // namespace quote_lab
