#include "lab/resilience/quote_executor.hpp"

#include "lab/resilience/retry_decision.hpp"

namespace quote_lab {

QuoteExecutor::QuoteExecutor(CarrierCaller& carrier, CircuitBreaker& breaker, FallbackCache& cache,
                             Clock& clock, RandomSource& random, std::stop_token shutdown)
    : carrier_(carrier), breaker_(breaker), cache_(cache), clock_(clock), random_(random),
      shutdown_(std::move(shutdown)) {}

QuoteTrace QuoteExecutor::run(const QuoteRequest& request, const RetryPolicy& policy) {
  const SteadyTime started = clock_.now();
  QuoteTrace trace;
  trace.request = request;
  auto& steps = trace.events;
  Millis previous_wait{0};

  for (int attempt = 1;; ++attempt) {
    const Admission admission = policy.circuit_breaker ? breaker_.try_acquire() : Admission::unguarded();
    AttemptFacts facts{attempt, std::nullopt, CallError::none, BreakerState::closed, false};
    if (!admission.admitted()) {
      facts.refused = admission.refusal;
    } else {
      if (admission.permit && admission.permit->probe) steps.push_back({.step = Step::half_open_probe, .attempt = attempt});
      const CallOutcome outcome = carrier_.call({request.request_id, request.trace_id, request.scenario,
                                                 request.customer_id, request.items, attempt,
                                                 Millis(policy.timeout_ms), request.request_id, std::nullopt});
      facts.error = outcome.error;
      bool opened_now = false;
      if (admission.permit) {
        const BreakerRecord recorded = breaker_.record(*admission.permit, outcome.carrier_failure(),
                                                       to_string(outcome.error), outcome.elapsed_ms);
        facts.breaker_after = recorded.state;
        opened_now = recorded.opened_now;
      }
      if (outcome.ok()) {
        steps.push_back({.step = Step::attempt_success, .attempt = attempt, .elapsed_ms = outcome.elapsed_ms});
        // Only a policy that falls back keeps a cache; legacy has none to fill.
        if (policy.fallback) cache_.remember(request.customer_id, request.items, *outcome.quote);
        trace.answer = QuoteAnswer{*outcome.quote, false, false, {}, 0};
        trace.status = QuoteStatus::completed;
      } else {
        steps.push_back({.step = Step::attempt_failed, .attempt = attempt, .elapsed_ms = outcome.elapsed_ms,
                         .reason = failure_reason(outcome.error)});
        if (opened_now) steps.push_back({.step = Step::circuit_opened, .attempt = attempt});
      }
    }

    facts.shutting_down = shutdown_.stop_requested();
    const RetryDecision next = decide_retry(policy, facts, random_.uniform(), previous_wait);
    if (const auto* stop = std::get_if<Stop>(&next)) {
      if (stop->skipped)
        steps.push_back({.step = *stop->skipped, .attempt = stop->attempt, .reason = stop->reason,
                         .refused = facts.refused.has_value()});
      break;
    }
    const Millis wait = std::get<RetryAfter>(next).delay;
    previous_wait = wait;
    if (wait > Millis::zero()) {
      steps.push_back({.step = Step::backoff, .attempt = attempt, .wait_ms = wait.count()});
      if (!clock_.sleep_unless_stopped(wait, shutdown_)) {
        // The stop arrived during the wait: the retry it was waiting for is skipped.
        steps.push_back({.step = Step::retry_skipped, .attempt = attempt + 1, .reason = Reason::shutting_down});
        break;
      }
    }
  }

  if (trace.status != QuoteStatus::completed && policy.fallback) {
    const CachedQuote cached = cache_.lookup(request.customer_id, request.items);
    trace.answer = QuoteAnswer{cached.quote, true, cached.seed, cached.cached_at,
                               cached.age_s(clock_.wall_now())};
    trace.status = QuoteStatus::degraded;
    // The fallback belongs to the last attempt slot, refused ones included.
    steps.push_back({.step = Step::fallback_used, .attempt = trace.slots(),
                     .reason = cached.seed ? Reason::seed_quote : Reason::cached_quote});
  }
  trace.elapsed_ms = elapsed_ms(started, clock_.now());
  trace.timestamp = clock_.wall_now();
  trace.dependency = breaker_.snapshot();
  return trace;
}

}  // namespace quote_lab
