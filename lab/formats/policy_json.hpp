#pragma once
// The JSON form of the policies: the `--policies` file read at start-up, and the policy
// objects shown by `/`, `/diagnostics/summary` and every quote answer (SPEC.md).

#include <nlohmann/json_fwd.hpp>

#include "lab/resilience/policy.hpp"

namespace quote_lab {

/// Overlays `j` (shape of `to_json`, any subset of keys) on `base`. Every top-level key
/// but "breaker" is a policy; one not in `base` is a new named policy, starting from
/// RetryPolicy's defaults (the resilient numbers), with an optional `breaker` of its own. Throws PolicyError
/// naming every unknown key, wrong type and out-of-range value at once; integers are
/// range-checked at full width before narrowing (4294967298 is refused, not read as 2).
Policies policies_from_json(const nlohmann::ordered_json& j, const Policies& base);

/// The policies as served by `/` and `/diagnostics/summary` and read by `--policies`.
/// {"legacy", "resilient", "breaker", then each named policy in file order}.
nlohmann::ordered_json to_json(const Policies& p);
/// One policy. The optional keys (retry_on, retry_budget_ratio,
/// retry_budget_min_per_s, deadline_ms, idempotency_key) are written when `every_key` or
/// when they differ from RetryPolicy's defaults (the course's two policies show none).
nlohmann::ordered_json to_json(const RetryPolicy& p, bool every_key = false);
/// A named policy: every key, and its own `breaker` when it has one.
nlohmann::ordered_json to_json(const NamedPolicy& n);
nlohmann::ordered_json to_json(const BreakerPolicy& b);

}  // namespace quote_lab
