#pragma once
// Retry and breaker policies as plain data: defaults are the numbers the course teaches
// (SPEC.md, "Default policies"); a JSON file (formats/policy_json.hpp) and flags may
// change them, validated once at start-up with every problem reported together.

#include <optional>
#include <stdexcept>
#include <string>
#include <span>
#include <string_view>
#include <vector>

#include "lab/resilience/pipeline.hpp"

namespace quote_lab {

/// How the wait between attempts is randomised. Formulas in backoff.hpp.
enum class Jitter { none, additive, full, equal, decorrelated };

std::string_view to_string(Jitter j);
/// Parses a jitter name; false if unknown.
bool parse_jitter(std::string_view text, Jitter& out);
/// Every accepted jitter name, for error messages.
std::vector<std::string> jitter_names();

/// Which Idempotency-Key an attempt carries (CarrierRequest::idempotency_key):
/// per_flow = the flow's request_id on every retry (the carrier replays its booking),
/// per_attempt = request_id + "-" + attempt (every retry books anew), none = no header.
enum class IdempotencyKey { per_flow, per_attempt, none };
std::string_view to_string(IdempotencyKey k);
/// Parses an idempotency_key value; false if unknown.
bool parse_idempotency_key(std::string_view text, IdempotencyKey& out);
/// {"per_flow", "per_attempt", "none"}: the `allowed` list of errors.
std::vector<std::string> idempotency_key_names();

/// The failures a policy retries (key `retry_on`, Envoy's name for the same list), as bits.
/// ADR-0005's set is the default of every policy: 5xx, 429, timeouts and connection
/// errors; a 4xx (the request's fault) and an unreadable answer are not retried unless a
/// policy lists them (a naive client that retries everything).
enum RetryOn : unsigned {
  kRetryOn5xx = 1u << 0,           ///< "5xx"
  kRetryOn429 = 1u << 1,           ///< "429"
  kRetryOnTimeout = 1u << 2,       ///< "timeout"
  kRetryOnConnectError = 1u << 3,  ///< "connect_error" (refused or reset)
  kRetryOn4xx = 1u << 4,           ///< "4xx" (other than 429)
  kRetryOnBadResponse = 1u << 5,   ///< "bad_response" (malformed or unusable answer)
};
inline constexpr unsigned kRetryOnAdr0005 = kRetryOn5xx | kRetryOn429 | kRetryOnTimeout | kRetryOnConnectError;
/// The names of the bits set in `mask`, in the order above.
std::vector<std::string> retry_on_names(unsigned mask);
/// Every accepted retry_on name, for error messages.
std::vector<std::string> retry_on_all_names();
/// The bit named `text`; 0 if unknown.
unsigned parse_retry_on(std::string_view text);

/// How one policy calls the carrier. Immutable once loaded; per-request state lives in the
/// executor. Units are in the field names. The fields after `jitter_max_ms` are optional keys;
/// default_policies() leaves them at these defaults (ADR-0005's retry_on, no budget, no deadline).
struct RetryPolicy {
  std::string mode;                   ///< the policy's name: "legacy", "resilient" or a named one
  int timeout_ms = 220;               ///< per attempt: connect + whole answer
  int max_attempts = 2;               ///< first call included
  int backoff_base_ms = 80;           ///< base × 2^(n−1) before attempt n+1
  int backoff_max_ms = 2000;          ///< cap on every wait, jitter included
  Jitter jitter = Jitter::additive;
  int jitter_min_ms = 15;             ///< additive jitter range, inclusive
  int jitter_max_ms = 45;
  unsigned retry_on = kRetryOnAdr0005;  ///< RetryOn bits: which failures are retried
  /// Retry budget (Finagle's RetryBudget): retries within the last 10 s may be at most
  /// ratio × requests in that window + min_per_s × 10. nullopt = no budget.
  std::optional<double> retry_budget_ratio{};
  int retry_budget_min_per_s = 10;    ///< the budget's floor, retries per second
  int deadline_ms = 0;                ///< total deadline across attempts and waits; 0 = none
  IdempotencyKey idempotency_key = IdempotencyKey::per_flow;
  /// The policy itself: its strategies, outermost first (pipeline.hpp), run in this order.
  /// A strategy is on exactly when it is listed; the fields above and `overload` are their
  /// settings. Resilient's list by default.
  std::vector<Strategy> pipeline{Strategy::fallback, Strategy::retry, Strategy::circuit_breaker, Strategy::timeout};
  /// The overload strategies' settings, read only for those the pipeline lists.
  OverloadStrategies overload{};

  /// Whether the pipeline lists `s`.
  bool uses(Strategy s) const;
};

/// Lists `s` in `p`'s pipeline at its place in the shipped order (a gate after the gates
/// already listed), or takes it out: the flat keys `circuit_breaker` and `fallback`, and a
/// request's `?circuit_breaker=`, switch their strategy so.
void switch_strategy(RetryPolicy& p, Strategy s, bool on);

/// The breaker of one upstream (SPEC: opens after 2 consecutive failed attempts, stays
/// open 30 s, then lets exactly one probe through).
struct BreakerPolicy {
  int failure_threshold = 2;     ///< consecutive failed attempts that open it
  double open_duration_s = 30;   ///< cooldown before half-open
};

/// A policy of the policies file besides the course's two (GET /quote/{name}). One that
/// declares its own `breaker` gets a breaker of its own in every lab (not persisted, not
/// the one /dependency/state shows); one without shares the course breaker.
struct NamedPolicy {
  RetryPolicy retry;                     ///< retry.mode is the name
  std::optional<BreakerPolicy> breaker;  ///< its own breaker's numbers, if it has one
};

/// Both course modes, the course breaker and the named policies (file order).
struct Policies {
  RetryPolicy legacy;
  RetryPolicy resilient;
  BreakerPolicy breaker;
  std::vector<NamedPolicy> named;

  /// The policy called `name` (legacy, resilient or a named one); null if none.
  const RetryPolicy* find(std::string_view name) const;
  /// The named policy called `name`; null if none (also for legacy and resilient).
  const NamedPolicy* find_named(std::string_view name) const;
  /// Every policy name: legacy, resilient, then the named ones in file order.
  std::vector<std::string> names() const;
};

/// ADR-0005 (seed 000_5149fd1a411c7150): 3 attempts, exponential backoff 0.2–2 s with full
/// jitter, retry 5xx/429/timeouts/connection errors and never a 4xx, its own breaker
/// opening after 5 consecutive failures for 30 s, fail soft (fallback). Timeout 220 ms,
/// the course's per-attempt timeout (the ADR's 3 s is its services', not this carrier's).
NamedPolicy adr0005_policy();

/// The course's legacy numbers (SPEC): 360 ms × 4, no backoff, no breaker, no fallback.
RetryPolicy legacy_numbers();

/// The overload policies that ship (pipeline.hpp), each the course's numbers plus one
/// strategy; `docs/policies.md` gives each its source and its lesson:
///   throttled       resilient's retries with the SRE book's adaptive throttling instead of
///                   a breaker (go-zero's K 1.5, 10 s in 40 buckets, 5 protected requests)
///   adaptive_limit  resilient's retries with Envoy's gradient concurrency limit (no buffer:
///                   the limit settles near capacity + √limit), no breaker
///   bulkhead        legacy's retries (360 ms × 4, no backoff, no breaker, no fallback)
///                   behind a bulkhead of 4 quotes at once per lab, no queue
///   hedged          one 1500 ms attempt, a hedge after the observed p90 (300 ms until 50
///                   latencies are in), hedges ≤ 15 % of requests + 1/s (so every hedge due
///                   at the p90 goes); fallback
///   aws_adaptive    the AWS SDKs' adaptive mode: 3 attempts, full-jitter backoff 0.2–2 s
///                   (botocore: base 1 s scaled to this carrier), a CUBIC-paced token per
///                   attempt (wait ≤ 1 s), fallback
NamedPolicy throttled_policy();
NamedPolicy adaptive_limit_policy();
NamedPolicy bulkhead_policy();
NamedPolicy hedged_policy();
NamedPolicy aws_adaptive_policy();

/// Whether `name` may name a policy: 1–32 of a-z, 0-9, '_' and '-'; "breaker" is the
/// course breaker's key, so it is not one.
bool valid_policy_name(std::string_view name);

/// The course's numbers: legacy 360 ms × 4, no backoff, no breaker, no fallback;
/// resilient 220 ms × 2, 80 ms × 2^(n−1) + 15–45 ms, breaker 2 failures / 30 s, fallback.
Policies default_policies();

/// Thrown at start-up when a policy file or flag is invalid; `what()` lists every problem.
/// `problems()` holds them one by one, as the parser wrote them ("NAME.pipeline[1] (retry):
/// max_attempts must be between 1 and 10 (got 0)"), for a caller that shows them apart (a
/// design posted over HTTP); empty when the error is not a list of problems.
class PolicyError : public std::runtime_error {
 public:
  explicit PolicyError(const std::string& what, std::vector<std::string> problems = {})
      : std::runtime_error(what), problems_(std::move(problems)) {}
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::vector<std::string> problems_;
};

/// One integer field of a retry policy and its allowed range, inclusive: one table for reading
/// a policies file and validate(); per-request overrides (domain.hpp) and herd's flags have their own.
struct RetryIntField {
  const char* key;
  int RetryPolicy::*member;
  int lo;
  int hi;
};
/// Every integer field of RetryPolicy, in JSON order.
std::span<const RetryIntField> retry_int_fields();
/// Allowed range of BreakerPolicy::failure_threshold.
inline constexpr int kFailureThresholdMin = 1;
inline constexpr int kFailureThresholdMax = 100;
/// Allowed range of BreakerPolicy::open_duration_s, seconds.
inline constexpr double kOpenDurationSMin = 0.1;
inline constexpr double kOpenDurationSMax = 3600;

/// Upper bounds of retry_budget_min_per_s and deadline_ms in a policy (a request's overrides: http/policy_overrides.hpp).
inline constexpr int kRetryBudgetMinPerSMax = 1000;
inline constexpr int kDeadlineMsMax = 60000;

/// Range problems of `p` (empty when valid), e.g. "resilient.max_attempts must be 1–10".
std::vector<std::string> validate(const Policies& p);
/// Range problems of one policy, each prefixed with its name: its keys, its overload
/// strategies' settings (strategy_settings.hpp: "bulkhead.max_concurrent must be between 1
/// and 1000 (got 0)"), and a pipeline that would not run as written (pipeline_problem),
/// lacks `timeout`, or leaves out or lists a strategy its settings do not match
/// ("hedged.pipeline leaves out 'bulkhead', which the policy uses").
void validate(const RetryPolicy& p, std::vector<std::string>& errors);
/// Range problems of one breaker, each prefixed with `name` ("breaker", "adr0005.breaker").
void validate(const BreakerPolicy& b, const std::string& name, std::vector<std::string>& errors);

}  // namespace quote_lab
