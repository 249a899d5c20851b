#pragma once
// The record of one quote flow: what was asked, the ordered steps that happened and the
// answer. It is the lab's one bookkeeping: the JSON answer, the incidents, the
// diagnostics and the metrics all read it, and every count they show (attempts,
// retries, timeouts, short circuits, attempt outcomes) is a function of the steps, never a
// second tally that could disagree. Standard library, clock and vocabulary only.

#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "lab/base/clock.hpp"
#include "lab/resilience/breaker.hpp"
#include "lab/resilience/domain.hpp"
#include "lab/resilience/quote.hpp"
#include "lab/resilience/vocabulary.hpp"

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
  Step step = Step::attempt_success;
  int attempt = 0;                     ///< the attempt it belongs to (0: before any)
  std::optional<double> elapsed_ms{};  ///< duration of the attempt
  std::optional<Reason> reason{};      ///< why it failed or was skipped, which fallback
  std::optional<long long> wait_ms{};  ///< a wait: backoff, retry_after, token_wait; hedge: the first call's
  /// The breaker refused this attempt slot, so no call was made: a short circuit for the
  /// counts, whether it shows as short_circuit (first slot) or retry_skipped (later ones).
  /// A retry skipped because this flow's own failure opened the breaker is not one.
  bool refused = false;
  /// The carrier rejected the request as wrong (a 4xx other than 429): the request's fault,
  /// not the carrier's. Its `reason` still shows bad_response (SPEC's reasons have no 4xx);
  /// this lets the explanation say which it was.
  bool request_rejected = false;
};

/// What a client asked for, validated, with the ids the lab assigned.
struct QuoteRequest {
  /// The policy's name: "legacy" or "resilient" (the course routes, to_string(Mode)) or a
  /// named policy's (GET /quote/{policy}); the `mode` of answers, incidents and metrics.
  std::string mode{"resilient"};
  std::string scenario;  ///< canonical scenario name
  int customer_id = kCustomerId.fallback;
  int items = kItems.fallback;
  std::string request_id;
  std::string trace_id;
  std::string lab;  ///< the student lab asking (`?lab=NAME`); empty for the teacher's
  Priority priority = Priority::critical;  ///< X-Priority or `?priority=`, sent on every carrier attempt
  /// Stopped when the client has gone (http/client_watch.hpp): the flow stops where it is,
  /// ends with a `cancelled` step and falls back to nothing. Never stopped by default.
  std::stop_token cancel{};
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
  std::vector<TraceEvent> events;     ///< the one ordered list every count is read from
  double elapsed_ms = 0;
  WallTime timestamp{};               ///< when the flow finished
  BreakerSnapshot dependency;         ///< the breaker after the flow

  /// Calls that reached the carrier (attempt_success and attempt_failed steps).
  int attempts() const;
  /// Calls after the first.
  int retries() const;
  /// Attempts that failed with a timeout.
  int timeouts() const;
  /// One per attempt slot, in order: the calls made and the slot the breaker refused.
  std::vector<AttemptOutcome> outcomes() const;
  /// Attempt slots used, refused and rejected ones included (the attempt a fallback belongs to).
  int slots() const;
  /// Slots the breaker refused (0 or 1: a refusal ends the flow).
  int short_circuits() const;
  /// The breaker refused the first attempt: the carrier was not called at all.
  bool short_circuited() const;
  /// This flow's failure opened the breaker.
  bool circuit_opened() const;
  /// The answer is the fallback quote.
  bool fallback_used() const;
  /// The client left before the flow ended (a `cancelled` step): nobody read its answer.
  bool cancelled() const;
  /// This flow's call was the half-open breaker's probe.
  bool probed() const;
  /// Hedged calls sent (hedge steps): carrier calls besides the attempts.
  int hedges() const;
  /// Why an overload strategy refused the flow's call before the carrier (the answer's
  /// `rejected`: throttled, concurrency_limit, bulkhead_full, client_rate_limited); null if none did.
  std::optional<Reason> rejected() const;
};

}  // namespace quote_lab
