#pragma once
// One quote flow under one policy: ask the breaker, call the carrier, back off, retry,
// fall back. The executor returns a trace of everything that happened; the JSON answer,
// the incidents, the diagnostics and the metrics are all read from that one trace.
//
// Legacy and resilient are the same executor with different RetryPolicy data (legacy:
// no breaker, no backoff, no fallback).

#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "lab/carrier_client.hpp"
#include "lab/circuit_breaker.hpp"
#include "lab/clock.hpp"
#include "lab/fallback_cache.hpp"
#include "lab/policy.hpp"
#include "lab/random.hpp"

namespace quote_lab {

enum class QuoteStatus { completed, degraded, failed };
/// "completed", "degraded", "failed".
std::string_view to_string(QuoteStatus s);

/// How one attempt slot ended, for metrics: a call that reached the carrier and
/// succeeded, timed out or failed otherwise, or one the breaker refused.
enum class AttemptOutcome { success, timeout, error, short_circuit };
std::string_view to_string(AttemptOutcome o);

/// One step of the flow, in order (SPEC: `events[]`).
struct TraceEvent {
  std::string event;                 ///< attempt_success, attempt_failed, backoff, ...
  int attempt = 0;                   ///< the attempt it belongs to (0: before any)
  std::optional<double> elapsed_ms;  ///< duration of the attempt
  std::optional<std::string> reason; ///< why it failed or was skipped
  std::optional<long long> wait_ms;  ///< backoff wait
};

/// What a client asked for, validated, with the ids the lab assigned.
struct QuoteRequest {
  std::string mode;      ///< "legacy" or "resilient"
  std::string scenario;  ///< canonical scenario name
  int customer_id = 42;
  int items = 3;
  std::string request_id;
  std::string trace_id;
};

/// The quote given to the client.
struct QuoteAnswer {
  Quote quote;
  bool fallback = false;      ///< source "fallback" (else "live")
  bool seed = false;          ///< the fallback is the seed quote, no live quote was cached
  WallTime cached_at{};       ///< fallback only
  double age_s = 0;           ///< fallback only
};

/// Everything that happened in one flow.
struct QuoteTrace {
  QuoteRequest request;
  QuoteStatus status = QuoteStatus::failed;
  std::optional<QuoteAnswer> answer;  ///< null when failed
  int attempts = 0;                   ///< calls that reached the carrier
  int retries = 0;                    ///< attempts after the first
  int timeout_count = 0;
  std::vector<TraceEvent> events;
  std::vector<AttemptOutcome> outcomes;  ///< one per attempt slot, short circuits included
  bool circuit_opened = false;           ///< this flow's failure opened the breaker
  bool fallback_used = false;
  double elapsed_ms = 0;
  WallTime timestamp{};                  ///< when the flow finished
  BreakerSnapshot dependency;            ///< the breaker after the flow
};

/// Runs quote flows. Thread-safe: it holds no per-request state; the breaker and the
/// cache guard their own.
class QuoteExecutor {
 public:
  /// `shutdown`: once requested, flows in progress make no further attempt (the attempt
  /// running ends at its own deadline) and a backoff wait ends at once; the skipped retry
  /// is a `retry_skipped` event with reason `shutting_down`, then the usual fallback.
  QuoteExecutor(CarrierCaller& carrier, CircuitBreaker& breaker, FallbackCache& cache,
                Clock& clock, RandomSource& random, std::stop_token shutdown = {});

  /// Runs `request` under `policy` and reports what happened. Never throws for carrier
  /// problems: they are outcomes in the trace.
  QuoteTrace run(const QuoteRequest& request, const RetryPolicy& policy);

 private:
  CarrierCaller& carrier_;
  CircuitBreaker& breaker_;
  FallbackCache& cache_;
  Clock& clock_;
  RandomSource& random_;
  std::stop_token shutdown_;
};

}  // namespace quote_lab
