// The retry around each attempt: run it, ask the decision (retry_decision.hpp) what comes
// next, and wait or stop. The decision decides; this gathers its facts (the clock, the
// outcome, the shutdown) and asks the retry's gates — its own budget, then the strategies
// inside it (the retry quota) — once the decision says wait.
#include "lab/resilience/quote_budget.hpp"
#include "lab/resilience/retry_decision.hpp"
#include "lab/resilience/strategies/strategies.hpp"

namespace quote_lab {
namespace {

class RetryStrategy final : public ResilienceStrategy {
 public:
  Outcome execute(QuoteContext& c, const Next& next) override {
    if (c.guards.retry_budget) c.guards.retry_budget->deposit();
    // The flow's waits stay within max(kMaxQuoteMs, worst_case_duration) (quote_budget.hpp).
    const SteadyTime envelope_end = c.started + std::max(Millis(kMaxQuoteMs), worst_case_duration(c.policy));
    const int outer_attempt = c.attempt;
    Outcome out = attempts(c, next, envelope_end);
    c.attempt = outer_attempt;
    return out;
  }

 private:
  Outcome attempts(QuoteContext& c, const Next& next, SteadyTime envelope_end) {
    auto& steps = c.trace.events;
    Millis previous_wait{0};
    for (c.attempt = 1;; ++c.attempt) {
      // The answer shows the breaker as this attempt's record left it; after a wait, or with
      // no record, the executor reads it anew (it may have moved meanwhile).
      c.recorded.reset();
      if (const auto stop = before(c)) {
        steps.push_back(*stop);
        for (const auto& inner : next.rest()) inner->retry_dropped(c);
        return Outcome::over();
      }
      Outcome out = next(c);
      if (out.end == Outcome::End::ended) return out;  // rejected, cancelled or answered inside
      if (c.trace.status != QuoteStatus::completed && c.cancelled()) {  // after a probe it let finish
        steps.push_back({.step = Step::cancelled, .attempt = c.attempt + 1});
        return out;
      }
      const AttemptFacts facts = facts_of(c, out, envelope_end);
      const RetryDecision decision = next_step(c.policy, facts, c.random.uniform(), previous_wait);
      if (const auto* stop = std::get_if<Stop>(&decision)) {
        if (stop->skipped)
          steps.push_back({.step = *stop->skipped, .attempt = stop->attempt, .reason = stop->reason,
                           .refused = facts.refused.has_value()});
        return out.end == Outcome::End::refused ? Outcome::over() : out;
      }
      if (const auto refused = admit(c, next, facts.error)) {
        steps.push_back({.step = Step::retry_skipped, .attempt = c.attempt + 1, .reason = *refused});
        return out;
      }
      const auto& retry = std::get<Retry>(decision);
      previous_wait = retry.delay;
      if (retry.delay > Millis::zero()) {
        steps.push_back({.step = retry.wait_step, .attempt = c.attempt, .wait_ms = retry.delay.count()});
        // A stop during the wait ends it at once; before() then skips the retry (or ends the
        // flow, its client gone).
        c.clock.sleep_unless_stopped(retry.delay, c.stop);
      }
    }
  }

  // Why attempt c.attempt may not start: its client left (in the queue, during the wait), or
  // before_attempt's stop (the lab stopping, the deadline gone during the wait).
  static std::optional<TraceEvent> before(const QuoteContext& c) {
    if (c.cancelled()) return TraceEvent{.step = Step::cancelled, .attempt = c.attempt};
    if (c.attempt == 1) return std::nullopt;
    if (const auto stop = before_attempt(c.attempt, c.deadline.left(c.clock), c.shutdown.stop_requested()))
      return TraceEvent{.step = *stop->skipped, .attempt = c.attempt, .reason = stop->reason};
    return std::nullopt;
  }

  static AttemptFacts facts_of(const QuoteContext& c, const Outcome& out, SteadyTime envelope_end) {
    AttemptFacts f{.attempt = c.attempt};
    if (out.end == Outcome::End::refused) f.refused = out.refusal;
    else {
      f.error = out.call.error;
      f.retry_after = out.call.retry_after;
      f.breaker_after = out.breaker_after;
    }
    f.shutting_down = c.shutdown.stop_requested();
    f.time_left = c.deadline.left(c.clock);
    f.retry_after_room = std::chrono::duration_cast<Millis>(envelope_end - c.clock.now()) -
                         worst_case_from(c.policy, c.attempt + 1);
    return f;
  }

  // The retry's own gates once the decision says retry, each spending when it lets it
  // through: the retry budget (asked only with a retry_budget_ratio), then the strategies
  // inside (the retry quota). Why one refused, or nullopt.
  static std::optional<Reason> admit(QuoteContext& c, const Next& next, CallError failure) {
    const RetryPolicy& p = c.policy;
    if (c.guards.retry_budget && p.retry_budget_ratio &&
        !c.guards.retry_budget->try_withdraw(*p.retry_budget_ratio, p.retry_budget_min_per_s))
      return Reason::retry_budget;
    for (const auto& inner : next.rest())
      if (const auto refused = inner->admit_retry(c, failure)) return refused;
    return std::nullopt;
  }
};

std::unique_ptr<ResilienceStrategy> make_retry() { return std::make_unique<RetryStrategy>(); }

}  // namespace

/// Attempts, backoff with jitter, Retry-After, retry_on and the retry budget (retry_decision.hpp).
/// After a failed attempt next_step would retry: the wait is max(backoff, the carrier's
/// Retry-After capped at backoff_max_ms and at what keeps the flow within
/// max(kMaxQuoteMs, worst_case_duration), quote_budget.hpp), a `retry_after` step when
/// Retry-After made it longer, else `backoff` (legacy, cap 0, ignores it); with a
/// retry_budget_ratio, a retry the budget refuses is retry_skipped, reason `retry_budget`.
/// Before each retry it asks the strategies inside it (admit_retry), and tells them of a
/// retry it will not make (retry_dropped).
const StrategyRow& retry_row() {
  static const StrategyRow kRow{
      .strategy = Strategy::retry,
      .name = "retry",
      .rank = 3,
      .steps = {},
      .about =
          {{"reintentos", "retry"},
           {"repite un intento fallido tras una espera con variación aleatoria, dentro de max_attempts, retry_on y el "
            "presupuesto de reintentos",
            "repeats a failed attempt after a jittered backoff, within max_attempts, retry_on and the retry budget"},
           "AWS Architecture Blog, 'Exponential Backoff And Jitter'; Finagle RetryBudget"},
      .make = [](const StrategyDeps&) { return make_retry(); },
  };
  return kRow;
}

}  // namespace quote_lab
