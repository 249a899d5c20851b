#pragma once
// Retry and breaker policies as plain data: defaults are the numbers the course teaches
// (SPEC.md, "Default policies"); a JSON file (formats/policy_json.hpp) and flags may
// change them, validated once at start-up with every problem reported together.

#include <stdexcept>
#include <string>
#include <span>
#include <string_view>
#include <vector>

namespace quote_lab {

/// How the wait between attempts is randomised. Formulas in backoff.hpp.
enum class Jitter { none, additive, full, equal, decorrelated };

std::string_view to_string(Jitter j);
/// Parses a jitter name; false if unknown.
bool parse_jitter(std::string_view text, Jitter& out);
/// Every accepted jitter name, for error messages.
std::vector<std::string> jitter_names();

/// How one mode calls the carrier. Immutable once loaded; per-request state lives in the
/// executor. Units are in the field names.
struct RetryPolicy {
  std::string mode;                   ///< "legacy" or "resilient"
  int timeout_ms = 220;               ///< per attempt: connect + whole answer
  int max_attempts = 2;               ///< first call included
  int backoff_base_ms = 80;           ///< base × 2^(n−1) before attempt n+1
  int backoff_max_ms = 2000;          ///< cap on every wait, jitter included
  Jitter jitter = Jitter::additive;
  int jitter_min_ms = 15;             ///< additive jitter range, inclusive
  int jitter_max_ms = 45;
  bool circuit_breaker = true;        ///< ask the upstream's breaker before each attempt
  bool fallback = true;               ///< answer with the cached quote when all attempts fail
};

/// The breaker of one upstream (SPEC: opens after 2 consecutive failed attempts, stays
/// open 30 s, then lets exactly one probe through).
struct BreakerPolicy {
  int failure_threshold = 2;     ///< consecutive failed attempts that open it
  double open_duration_s = 30;   ///< cooldown before half-open
};

/// Both modes and the breaker.
struct Policies {
  RetryPolicy legacy;
  RetryPolicy resilient;
  BreakerPolicy breaker;
};

/// The course's numbers: legacy 360 ms × 4, no backoff, no breaker, no fallback;
/// resilient 220 ms × 2, 80 ms × 2^(n−1) + 15–45 ms, breaker 2 failures / 30 s, fallback.
Policies default_policies();

/// Thrown at start-up when a policy file or flag is invalid; `what()` lists every problem.
class PolicyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One integer field of a retry policy and its allowed range, inclusive. One table, so
/// reading a file and validating flags or overrides can never disagree about a range.
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

/// Range problems of `p` (empty when valid), e.g. "resilient.max_attempts must be 1–10".
std::vector<std::string> validate(const Policies& p);

}  // namespace quote_lab
