#pragma once
// The words of the lesson, typed: the two modes, the steps of a quote flow and the reasons
// a step gives (SPEC.md, "Routes": `mode`, `events[].event`, `events[].reason`). Each enum
// has one name table (vocabulary.cpp); the names are the JSON strings of the public
// contract, so they must never change. A `switch` over these enums is checked by -Wswitch
// when a value is added. Standard library only.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace quote_lab {

/// Which policy a quote flow runs under (the routes /quote-legacy and /quote-resilient).
enum class Mode { legacy, resilient };

/// Every mode, in the order the lab lists them (metrics labels, /diagnostics/summary).
inline constexpr Mode kModes[] = {Mode::legacy, Mode::resilient};

/// "legacy" or "resilient".
std::string_view to_string(Mode m);
/// The mode named `text`; nullopt for anything else (never a silent default).
std::optional<Mode> parse_mode(std::string_view text);
/// {"legacy", "resilient"}: the `allowed` list of a 400.
std::vector<std::string> mode_names();

/// One step of a quote flow, in the order it happened (`events[].event`).
enum class Step {
  attempt_success,  ///< a call reached the carrier and brought a quote
  attempt_failed,   ///< a call reached the carrier and failed (with a failure reason)
  backoff,          ///< the flow waited before the next attempt (with wait_ms)
  circuit_opened,   ///< this flow's failure opened the breaker
  short_circuit,    ///< the breaker refused the first attempt: the carrier was not called
  half_open_probe,  ///< this attempt was the half-open breaker's one probe
  fallback_used,    ///< the answer is the cached (or seed) quote
  retry_skipped,    ///< a retry was not made (with the reason)
  retry_after,      ///< the carrier's Retry-After lengthened the wait (wait_ms: the wait kept)
  rejected,         ///< an overload strategy refused the call before the carrier (with the reason)
  hedge,            ///< a second call went to the carrier (wait_ms: how long the first had not answered)
  hedge_won,        ///< the hedge answered first; the first call was abandoned
  hedge_skipped,    ///< a hedge was due but not sent (with the reason)
  token_wait,       ///< the attempt waited for adaptive retry's token before it went (wait_ms)
  cancelled,        ///< the client left: the flow stopped here (an attempt it cut: elapsed_ms)
};

std::string_view to_string(Step s);
/// The step named `text`; nullopt if unknown.
std::optional<Step> parse_step(std::string_view text);
/// Every step name, in declaration order.
std::vector<std::string> step_names();

/// Why a step happened (`events[].reason`).
enum class Reason {
  // Why an attempt failed (attempt_failed).
  timeout,          ///< no complete answer within the attempt's timeout
  connect_error,    ///< refused or reset before the deadline
  http_5xx,         ///< the carrier answered 5xx
  http_429,         ///< the carrier answered 429 (too many requests)
  bad_response,     ///< an answer the lab cannot use (a 4xx other than 429, a malformed body)
  // Why a call or a retry was not made (short_circuit, retry_skipped).
  circuit_open,     ///< the breaker is open
  probe_in_flight,  ///< the breaker is half-open and another caller holds its one probe
  not_retryable,    ///< the failure was the request's own fault: a retry fails the same way
  shutting_down,    ///< the lab is stopping: a retry would only delay the stop
  retry_budget,     ///< the policy's retry budget is spent (retries / requests over 10 s)
  retry_quota,      ///< the policy's retry quota holds less than the retry costs (AWS SDKs)
  deadline,         ///< the flow's total deadline (deadline_ms) leaves no time for it
  // Which overload strategy refused the call (rejected), or kept a hedge back (hedge_skipped).
  throttled,            ///< adaptive throttling dropped it locally (SRE book)
  concurrency_limit,    ///< calls in flight reached the adaptive concurrency limit (Envoy's gradient)
  bulkhead_full,        ///< the policy's bulkhead had no place and no queue place left
  client_rate_limited,  ///< adaptive retry's token would come later than its max wait (AWS SDKs)
  hedge_budget,         ///< hedges would exceed their budget (a share of requests)
  half_open_probe,      ///< the attempt is the half-open breaker's one probe: no copy of it
  // Which fallback quote was served (fallback_used).
  seed_quote,       ///< no live quote was ever cached for this key: the seed quote
  cached_quote,     ///< the last live quote for this key
};

std::string_view to_string(Reason r);
/// The reason named `text`; nullopt if unknown.
std::optional<Reason> parse_reason(std::string_view text);
/// Every reason name, in declaration order.
std::vector<std::string> reason_names();

/// How much a quote matters to its caller, sent to the carrier on every attempt as
/// X-Priority: a carrier that sheds load sheds `sheddable` calls first and keeps a share of
/// its capacity for `critical` ones (Netflix's prioritised load shedding, Stripe's load
/// shedder). A request that names none is critical.
enum class Priority { critical, sheddable };

/// "critical" or "sheddable".
std::string_view to_string(Priority p);
/// The priority named `text`; nullopt for anything else (never a silent default).
std::optional<Priority> parse_priority(std::string_view text);
/// {"critical", "sheddable"}: the `allowed` list of a 400.
std::vector<std::string> priority_names();

}  // namespace quote_lab
