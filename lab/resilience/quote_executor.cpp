#include "lab/resilience/quote_executor.hpp"

#include <algorithm>
#include <string>

#include "lab/resilience/quote_budget.hpp"
#include "lab/resilience/retry_decision.hpp"

namespace quote_lab {

QuoteExecutor::QuoteExecutor(CarrierCaller& carrier, CircuitBreaker& breaker, FallbackCache& cache,
                             Clock& clock, RandomSource& random, std::stop_token shutdown)
    : carrier_(carrier), breaker_(breaker), cache_(cache), clock_(clock), random_(random),
      shutdown_(std::move(shutdown)) {}

namespace {

// The key the policy sends with attempt `attempt` (carrier_call.hpp, idempotency_key).
std::string idempotency_key(const RetryPolicy& policy, const QuoteRequest& request, int attempt) {
  switch (policy.idempotency_key) {
    case IdempotencyKey::per_flow: return request.request_id;
    case IdempotencyKey::per_attempt: return request.request_id + "-" + std::to_string(attempt);
    case IdempotencyKey::none: return {};
  }
  return request.request_id;
}

}  // namespace

QuoteTrace QuoteExecutor::run(const QuoteRequest& request, const RetryPolicy& policy, RetryBudget* budget) {
  const SteadyTime started = clock_.now();
  QuoteTrace trace;
  trace.request = request;
  auto& steps = trace.events;
  Millis previous_wait{0};
  // The total deadline across attempts and waits (deadline_ms; 0 = none): steady for the
  // lab's own decisions, wall for the carrier, which drops work past it.
  const std::optional<SteadyTime> deadline =
      policy.deadline_ms > 0 ? std::optional(started + Millis(policy.deadline_ms)) : std::nullopt;
  const std::optional<WallTime> wall_deadline =
      deadline ? std::optional(clock_.wall_now() + Millis(policy.deadline_ms)) : std::nullopt;
  const auto time_left = [&] {
    return std::chrono::duration_cast<Millis>(*deadline - clock_.now());
  };
  if (budget) budget->deposit();
  const SteadyTime envelope_end = started + std::max(Millis(kMaxQuoteMs), worst_case_duration(policy));

  for (int attempt = 1;; ++attempt) {
    // A real sleep may overshoot: a retry that finds the deadline passed is not made.
    if (attempt > 1 && deadline && time_left() <= Millis::zero()) {
      steps.push_back({.step = Step::retry_skipped, .attempt = attempt, .reason = Reason::deadline});
      break;
    }
    const Admission admission = policy.circuit_breaker ? breaker_.try_acquire() : Admission::unguarded();
    AttemptFacts facts{attempt, std::nullopt, CallError::none, BreakerState::closed, false};
    std::optional<Millis> retry_after;
    bool honoured = false;
    if (!admission.admitted()) {
      facts.refused = admission.refusal;
    } else {
      if (admission.permit && admission.permit->probe) steps.push_back({.step = Step::half_open_probe, .attempt = attempt});
      // No attempt outlives the deadline: its timeout is what is left of it when shorter.
      const Millis timeout = deadline ? std::min(Millis(policy.timeout_ms), time_left()) : Millis(policy.timeout_ms);
      const CallOutcome outcome = carrier_.call({request.request_id, request.trace_id, request.scenario,
                                                 request.customer_id, request.items, attempt, timeout,
                                                 idempotency_key(policy, request, attempt), wall_deadline,
                                                 request.lab});
      facts.error = outcome.error;
      retry_after = outcome.retry_after;
      bool opened_now = false;
      if (admission.permit) {
        // carrier_failure() excludes a 4xx: the carrier answered, so it counts as healthy.
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
                         .reason = failure_reason(outcome.error),
                         .request_rejected = outcome.error == CallError::http_4xx});
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
    Millis wait = std::get<RetryAfter>(next).delay;
    // The carrier's Retry-After lengthens the wait, never beyond the backoff cap (legacy's
    // cap is 0: it ignores Retry-After) nor beyond what keeps the flow within its envelope
    // (a worker is held at most max(kMaxQuoteMs, the policy's worst case), quote_budget.hpp).
    if (retry_after && *retry_after > wait) {
      const Millis room = std::chrono::duration_cast<Millis>(envelope_end - clock_.now()) -
                          worst_case_from(policy, attempt + 1);
      const Millis asked = std::min({*retry_after, Millis(policy.backoff_max_ms), room});
      if (asked > wait) {
        wait = asked;
        honoured = true;
      }
    }
    // No wait and no attempt start past the deadline: a wait that uses up what is left
    // would leave the next attempt no time at all.
    if (deadline && wait >= time_left()) {
      steps.push_back({.step = Step::retry_skipped, .attempt = attempt + 1, .reason = Reason::deadline});
      break;
    }
    // Asked last, so that a retry the deadline refuses spends no budget.
    if (budget && policy.retry_budget_ratio &&
        !budget->try_withdraw(*policy.retry_budget_ratio, policy.retry_budget_min_per_s)) {
      steps.push_back({.step = Step::retry_skipped, .attempt = attempt + 1, .reason = Reason::retry_budget});
      break;
    }
    previous_wait = wait;
    if (wait > Millis::zero()) {
      steps.push_back({.step = honoured ? Step::retry_after : Step::backoff, .attempt = attempt, .wait_ms = wait.count()});
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
