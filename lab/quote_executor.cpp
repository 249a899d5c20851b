#include "lab/quote_executor.hpp"

#include "lab/backoff.hpp"

namespace quote_lab {

std::string_view to_string(QuoteStatus s) {
  switch (s) {
    case QuoteStatus::completed: return "completed";
    case QuoteStatus::degraded: return "degraded";
    case QuoteStatus::failed: return "failed";
  }
  return "failed";
}

std::string_view to_string(AttemptOutcome o) {
  switch (o) {
    case AttemptOutcome::success: return "success";
    case AttemptOutcome::timeout: return "timeout";
    case AttemptOutcome::error: return "error";
    case AttemptOutcome::short_circuit: return "short_circuit";
  }
  return "error";
}

QuoteExecutor::QuoteExecutor(CarrierCaller& carrier, CircuitBreaker& breaker, FallbackCache& cache,
                             Clock& clock, RandomSource& random, std::stop_token shutdown)
    : carrier_(carrier), breaker_(breaker), cache_(cache), clock_(clock), random_(random),
      shutdown_(std::move(shutdown)) {}

QuoteTrace QuoteExecutor::run(const QuoteRequest& request, const RetryPolicy& policy) {
  const SteadyTime started = clock_.now();
  QuoteTrace trace;
  trace.request = request;
  Millis previous_wait{0};

  for (int attempt = 1; attempt <= policy.max_attempts; ++attempt) {
    std::optional<BreakerPermit> permit;
    if (policy.circuit_breaker) {
      permit = breaker_.try_acquire();
      if (!permit) {
        trace.outcomes.push_back(AttemptOutcome::short_circuit);
        // Refused because the breaker is open, or because it is half-open and another
        // caller holds the one probe.
        const std::string why = breaker_.snapshot().state == BreakerState::half_open ? "probe_in_flight" : "circuit_open";
        trace.events.push_back({attempt == 1 ? "short_circuit" : "retry_skipped", attempt, {}, why, {}});
        break;
      }
      if (permit->probe) trace.events.push_back({"half_open_probe", attempt, {}, {}, {}});
    }

    CarrierRequest call{request.request_id, request.trace_id, request.scenario, request.customer_id,
                        request.items, attempt, Millis(policy.timeout_ms)};
    const CallOutcome outcome = carrier_.call(call);
    ++trace.attempts;

    BreakerState after = BreakerState::closed;
    bool opened_now = false;
    if (permit) {
      const BreakerRecord recorded = breaker_.record(*permit, outcome.carrier_failure(),
                                                     to_string(outcome.error), outcome.elapsed_ms);
      after = recorded.state;
      opened_now = recorded.opened_now;
      trace.circuit_opened = trace.circuit_opened || opened_now;
    }

    if (outcome.ok()) {
      trace.outcomes.push_back(AttemptOutcome::success);
      trace.events.push_back({"attempt_success", attempt, outcome.elapsed_ms, {}, {}});
      // Only a policy that falls back keeps a cache; legacy has none to fill.
      if (policy.fallback) cache_.remember(request.customer_id, request.items, *outcome.quote);
      trace.answer = QuoteAnswer{*outcome.quote, false, false, {}, 0};
      trace.status = QuoteStatus::completed;
      break;
    }
    const bool timed_out = outcome.error == CallError::timeout;
    trace.timeout_count += timed_out ? 1 : 0;
    trace.outcomes.push_back(timed_out ? AttemptOutcome::timeout : AttemptOutcome::error);
    trace.events.push_back(
        {"attempt_failed", attempt, outcome.elapsed_ms, std::string(to_string(outcome.error)), {}});
    if (opened_now) trace.events.push_back({"circuit_opened", attempt, {}, {}, {}});

    if (attempt == policy.max_attempts) break;
    if (!outcome.carrier_failure()) {
      // A 4xx is our request's fault: the same request will fail the same way.
      trace.events.push_back({"retry_skipped", attempt + 1, {}, "not_retryable", {}});
      break;
    }
    if (permit && after == BreakerState::open) {
      trace.events.push_back({"retry_skipped", attempt + 1, {}, "circuit_open", {}});
      break;
    }
    // Once the lab is stopping, a retry would only delay the stop (and could open the breaker).
    const auto skip_for_shutdown = [&] { trace.events.push_back({"retry_skipped", attempt + 1, {}, "shutting_down", {}}); };
    if (shutdown_.stop_requested()) {
      skip_for_shutdown();
      break;
    }
    const Millis wait = backoff_delay(policy, attempt, random_.uniform(), previous_wait);
    previous_wait = wait;
    if (wait > Millis::zero()) {
      trace.events.push_back({"backoff", attempt, {}, {}, wait.count()});
      if (!clock_.sleep_unless_stopped(wait, shutdown_)) {
        skip_for_shutdown();
        break;
      }
    }
  }

  trace.retries = std::max(0, trace.attempts - 1);
  if (trace.status != QuoteStatus::completed && policy.fallback) {
    const CachedQuote cached = cache_.lookup(request.customer_id, request.items);
    trace.answer = QuoteAnswer{cached.quote, true, cached.seed, cached.cached_at,
                               cached.age_s(clock_.wall_now())};
    trace.status = QuoteStatus::degraded;
    trace.fallback_used = true;
    // The fallback belongs to the last attempt slot, refused ones included.
    trace.events.push_back({"fallback_used", static_cast<int>(trace.outcomes.size()), {},
                            cached.seed ? "seed_quote" : "cached_quote", {}});
  }
  trace.elapsed_ms = elapsed_ms(started, clock_.now());
  trace.timestamp = clock_.wall_now();
  trace.dependency = breaker_.snapshot();
  return trace;
}

}  // namespace quote_lab
