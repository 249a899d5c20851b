#pragma once
// The JSON form of the policies: the `--policies` file read at start-up (each policy flat or
// as a pipeline, pipeline_json.hpp), and the policy objects shown by `/`,
// `/diagnostics/summary` and every quote answer (SPEC.md).

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "lab/resilience/policy.hpp"

namespace quote_lab {

/// Reads a policies file `j` over `base`. Every top-level key but "breaker" (the course
/// breaker) is a policy; one not in `base` is a new named policy, with an optional breaker of
/// its own. A policy is written either
///   - as a pipeline, {"pipeline": [...]} (pipeline_json.hpp): the whole policy, strategies
///     outermost first, each with its settings; or
///   - flat, today's keys (timeout_ms, max_attempts, ..., "breaker" for a named policy's own),
///     overlaid on the policy of `base` (a new named one starts from RetryPolicy's defaults,
///     the resilient numbers); its pipeline follows the keys: `circuit_breaker` and `fallback`
///     switch their strategy, `deadline_ms` lists `deadline` (0 takes it out) and
///     `max_attempts` over 1 lists `retry`, each at its place (switch_strategy).
/// GET /'s form, a policy's flat keys beside its pipeline, reads back too: each key must say
/// what the pipeline says. Throws PolicyError naming every unknown key, strategy or setting,
/// wrong type, out-of-range value and misordered pipeline at once; integers are range-checked
/// at full width before narrowing (4294967298 is refused, not read as 2).
Policies policies_from_json(const nlohmann::ordered_json& j, const Policies& base);

/// The RetryPolicy keys present in `obj` onto `p` (the flat form's, or the share of them one
/// strategy of a pipeline takes), each problem as PREFIX + "max_attempts must be between 1
/// and 10 (got 0)"; a value of the wrong type or out of range leaves the field as it was.
void read_retry_keys(const nlohmann::ordered_json& obj, const std::string& prefix, RetryPolicy& p,
                     std::vector<std::string>& errors);

/// The policies file, as docs/policies.json holds it and `--policies` reads it: {"legacy",
/// "resilient", "breaker", then each named policy in file order}, each policy in the
/// pipeline form with every setting written.
nlohmann::ordered_json to_json(const Policies& p);
/// The policies as `/` (with_pipelines: each policy's `pipeline` beside its keys) and
/// `/diagnostics/summary` (without) show them: each policy's keys as its quote answers show
/// them (to_json below), a named policy's own `breaker`, and the course breaker.
nlohmann::ordered_json policies_shown_json(const Policies& p, bool with_pipelines);
/// One policy, flat. The optional keys (retry_on, retry_budget_ratio,
/// retry_budget_min_per_s, deadline_ms, idempotency_key) are written when `every_key` or
/// when they differ from RetryPolicy's defaults (the course's two policies show none).
nlohmann::ordered_json to_json(const RetryPolicy& p, bool every_key = false);
/// A named policy, flat: every key, and its own `breaker` when it has one.
nlohmann::ordered_json to_json(const NamedPolicy& n);
nlohmann::ordered_json to_json(const BreakerPolicy& b);

}  // namespace quote_lab
