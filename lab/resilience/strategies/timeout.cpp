// The call itself: one request to the carrier with this attempt's timeout, its steps, and
// the answer when it brought one.
#include <string>

#include "lab/resilience/strategies/strategies.hpp"

namespace quote_lab {
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

// Whether an attempt that ended at `now` ended at the flow's deadline. Once the deadline has
// passed the attempt failed by it, whatever the carrier answered as it did (gRPC A6: the
// call fails as DEADLINE_EXCEEDED): the carrier drops work at the same instant and answers
// 504 deadline_exceeded, racing our own cut. Its clock is the wall clock in whole ms, ours
// the steady one: an answer up to kDeadlineSkew early is the same cut.
bool ended_at_deadline(SteadyTime deadline, SteadyTime now) {
  constexpr Millis kDeadlineSkew{2};
  return now >= deadline - kDeadlineSkew;
}

class Timeout final : public ResilienceStrategy {
 public:
  Outcome execute(QuoteContext& c, const Next&) override {
    const QuoteRequest& r = c.request;
    // No attempt outlives the deadline: its timeout is what is left of it when shorter.
    const std::optional<Millis> left = c.deadline.left(c.clock);
    const bool cut_by_deadline = left && *left < Millis(c.policy.timeout_ms);
    const Millis timeout = cut_by_deadline ? *left : Millis(c.policy.timeout_ms);
    CallOutcome outcome = c.send({r.request_id, r.trace_id, r.scenario, r.customer_id, r.items, c.attempt, timeout,
                                  idempotency_key(c.policy, r, c.attempt), c.deadline.wall, r.lab, r.priority,
                                  // The half-open probe runs to its end: the breaker waits for its outcome.
                                  c.probe ? std::stop_token{} : c.cancel});
    auto& steps = c.trace.events;
    if (!outcome.ok() && !c.probe && c.cancelled()) {
      // Cut because the client left: it says nothing of the carrier, so nothing outside learns from it.
      steps.push_back({.step = Step::cancelled, .attempt = c.attempt, .elapsed_ms = outcome.elapsed_ms});
      return Outcome::over();
    }
    if (cut_by_deadline && !outcome.ok() && ended_at_deadline(*c.deadline.steady, c.clock.now()))
      outcome.error = CallError::timeout;
    if (outcome.ok()) {
      steps.push_back({.step = Step::attempt_success, .attempt = c.attempt, .elapsed_ms = outcome.elapsed_ms});
      c.trace.answer = QuoteAnswer{*outcome.quote, false, false, {}, 0};
      c.trace.status = QuoteStatus::completed;
    } else {
      steps.push_back({.step = Step::attempt_failed, .attempt = c.attempt, .elapsed_ms = outcome.elapsed_ms,
                       .reason = failure_reason(outcome.error),
                       .request_rejected = outcome.error == CallError::http_4xx});
    }
    return Outcome::of_call(std::move(outcome));
  }
};

std::unique_ptr<ResilienceStrategy> make_timeout() { return std::make_unique<Timeout>(); }

}  // namespace

/// The call itself, with its timeout (timeout_ms, or what is left of the deadline).
const StrategyRow& timeout_row() {
  static const StrategyRow kRow{
      .strategy = Strategy::timeout,
      .name = "timeout",
      .rank = 8,
      .steps = {},
      .about = {{"tiempo límite", "timeout"},
                {"la llamada misma, cortada a timeout_ms o a lo que quede del plazo total",
                 "the call itself, cut at timeout_ms or at what is left of the total deadline"},
                "SPEC; gRPC A6"},
      .make = [](const StrategyDeps&) { return make_timeout(); },
  };
  return kRow;
}

}  // namespace quote_lab
