#pragma once
// The JSON form of the policies: the `--policies` file read at start-up, and the policy
// objects shown by `/`, `/diagnostics/summary` and every quote answer (SPEC.md).

#include <nlohmann/json_fwd.hpp>

#include "lab/resilience/policy.hpp"

namespace quote_lab {

/// Overlays `j` (shape of `to_json`, any subset of keys) on `base`. Throws PolicyError
/// naming every unknown key, wrong type and out-of-range value at once; integers are
/// range-checked at full width before narrowing (4294967298 is refused, not read as 2).
Policies policies_from_json(const nlohmann::ordered_json& j, const Policies& base);

/// The policies as served by `/` and `/diagnostics/summary` and read by `--policies`.
nlohmann::ordered_json to_json(const Policies& p);
nlohmann::ordered_json to_json(const RetryPolicy& p);

}  // namespace quote_lab
