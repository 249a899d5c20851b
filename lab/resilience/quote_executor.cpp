#include "lab/resilience/quote_executor.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "lab/resilience/quote_budget.hpp"

namespace quote_lab {

QuoteExecutor::QuoteExecutor(CarrierCaller& carrier, Breaker& breaker, FallbackCache& cache,
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

// Whether an attempt that ended at `now` ended at the flow's deadline. Once the deadline has
// passed the attempt failed by it, whatever the carrier answered as it did (gRPC A6: the
// call fails as DEADLINE_EXCEEDED): the carrier drops work at the same instant and answers
// 504 deadline_exceeded, racing our own cut. Its clock is the wall clock in whole ms, ours
// the steady one: an answer up to kDeadlineSkew early is the same cut.
bool ended_at_deadline(SteadyTime deadline, SteadyTime now) {
  constexpr Millis kDeadlineSkew{2};
  return now >= deadline - kDeadlineSkew;
}

// Whether attempt slot `attempt` sent a call: it ended in an answer or a failure, or was cut
// while in flight (a `cancelled` step with the time it ran).
bool reached_carrier(const QuoteTrace& trace, int attempt) {
  return std::any_of(trace.events.begin(), trace.events.end(), [attempt](const TraceEvent& e) {
    return e.attempt == attempt && (e.step == Step::attempt_success || e.step == Step::attempt_failed ||
                                    (e.step == Step::cancelled && e.elapsed_ms));
  });
}

// The flow's account with the retry quota (retry_quota.hpp): what its latest retry paid, and
// what it gives back. A live answer gives back that payment, or no_retry_increment when no
// retry was paid (botocore). A paid retry whose call never left — refused by a gate or the
// breaker, skipped after its wait, its client gone first — cost the carrier nothing, so its
// payment comes back too (botocore has no such retry: its token bucket blocks, never refuses).
class QuotaPayment {
 public:
  explicit QuotaPayment(RetryQuota* quota) : quota_(quota) {}  // null: the policy has none
  // Pays for the retry that will be attempt slot `attempt`, after `failure`; false when the
  // quota holds less than it costs.
  bool pay(CallError failure, int attempt) {
    if (!quota_) return true;
    const int cost = quota_->retry_cost(failure);
    if (!quota_->acquire(cost)) return false;
    paid_ = cost;
    paid_for_ = attempt;
    return true;
  }
  // Attempt slot `attempt` is over, as `trace` shows it.
  void settle(const QuoteTrace& trace, int attempt) {
    if (!quota_) return;
    if (trace.status == QuoteStatus::completed) return quota_->on_success(paid_);
    if (!paid_ || paid_for_ != attempt || reached_carrier(trace, attempt)) return;
    quota_->release(*paid_);
    paid_.reset();
  }

 private:
  RetryQuota* const quota_;
  std::optional<int> paid_;
  int paid_for_ = 0;
};

// The retry's own gates once the decision says retry, each spending when it lets it through:
// the retry budget (asked only with a retry_budget_ratio), then the retry quota. Why one
// refused, or nullopt.
std::optional<Reason> admit_retry(const RetryPolicy& policy, RetryBudget* budget, QuotaPayment& quota,
                                  CallError failure, int attempt) {
  if (budget && policy.retry_budget_ratio && !budget->try_withdraw(*policy.retry_budget_ratio, policy.retry_budget_min_per_s))
    return Reason::retry_budget;
  if (!quota.pay(failure, attempt)) return Reason::retry_quota;
  return std::nullopt;
}

// What the gates learn from a call: an accept unless the carrier failed, a 429 as the
// carrier's "slow down", and the call's round trip (none for a refused connection, which says
// nothing of the carrier's queue).
void teach_gates(const CallOutcome& outcome, const RetryPolicy& policy, const FlowGuards& guards,
                 std::optional<ConcurrencyPermit>& in_flight) {
  if (guards.throttle && policy.overload.adaptive_throttle) guards.throttle->record(!outcome.carrier_failure());
  if (guards.rate && policy.overload.adaptive_retry) guards.rate->on_response(outcome.error == CallError::http_429);
  if (!in_flight) return;
  if (outcome.error == CallError::connect_error) in_flight->cancel();
  else in_flight->release();
}

// The flow's stop: the lab's shutdown or its client leaving, whichever comes first. The
// waits (the bulkhead's queue, a backoff, adaptive retry's token) end at either.
class FlowStop {
 public:
  FlowStop(const std::stop_token& shutdown, const std::stop_token& cancel)
      : on_shutdown_(shutdown, Request{source_}), on_cancel_(cancel, Request{source_}) {}
  std::stop_token token() const { return source_.get_token(); }

 private:
  struct Request {
    std::stop_source& source;
    void operator()() const noexcept { source.request_stop(); }
  };
  std::stop_source source_;
  std::stop_callback<Request> on_shutdown_;
  std::stop_callback<Request> on_cancel_;
};

}  // namespace

std::optional<Millis> QuoteExecutor::Flow::Deadline::left(const Clock& clock) const {
  if (!steady) return std::nullopt;
  return std::chrono::duration_cast<Millis>(*steady - clock.now());
}

QuoteTrace QuoteExecutor::run(const QuoteRequest& request, const RetryPolicy& policy, const FlowGuards& guards) {
  const SteadyTime started = clock_.now();
  QuoteTrace trace;
  trace.request = request;
  // The total deadline across attempts and waits (deadline_ms; 0 = none): steady for the
  // lab's own decisions, wall for the carrier, which drops work past it.
  Flow::Deadline deadline;
  if (policy.deadline_ms > 0) {
    deadline.steady = started + Millis(policy.deadline_ms);
    deadline.wall = clock_.wall_now() + Millis(policy.deadline_ms);
  }
  if (guards.retry_budget) guards.retry_budget->deposit();
  if (guards.hedge_budget && policy.overload.hedging) guards.hedge_budget->on_request();
  std::optional<BreakerSnapshot> recorded;  // the breaker as the last attempt's record left it
  const FlowStop stop(shutdown_, request.cancel);
  {
    // The bulkhead, around the attempts (not the fallback): no place, no attempt.
    std::optional<BulkheadPermit> place;
    if (guards.bulkhead && policy.overload.bulkhead)
      place = guards.bulkhead->enter(Millis(policy.overload.bulkhead->queue_timeout_ms), stop.token()).permit;
    const Flow flow{deadline, stop.token(), request.cancel};
    if (guards.bulkhead && policy.overload.bulkhead && !place) {
      if (flow.cancelled()) trace.events.push_back({.step = Step::cancelled, .attempt = 1});
      else trace.events.push_back({.step = Step::rejected, .attempt = 1, .reason = Reason::bulkhead_full});
    } else {
      run_attempts(trace, request, policy, guards, flow,
                   started + std::max(Millis(kMaxQuoteMs), worst_case_duration(policy)), recorded);
    }
  }
  // Nobody waits for the answer of a cancelled flow: no fallback either.
  if (trace.status != QuoteStatus::completed && policy.fallback && !trace.cancelled()) fall_back(trace, request);
  trace.elapsed_ms = elapsed_ms(started, clock_.now());
  trace.timestamp = clock_.wall_now();
  // A shared breaker's record answered with its state: no further round trip for it.
  trace.dependency = recorded ? std::move(*recorded) : breaker_.snapshot();
  return trace;
}

void QuoteExecutor::run_attempts(QuoteTrace& trace, const QuoteRequest& request, const RetryPolicy& policy,
                                 const FlowGuards& guards, const Flow& flow, SteadyTime envelope_end,
                                 std::optional<BreakerSnapshot>& recorded) {
  auto& steps = trace.events;
  Millis previous_wait{0};
  QuotaPayment quota(policy.overload.retry_quota ? guards.retry_quota : nullptr);
  for (int attempt = 1;; ++attempt) {
    if (flow.cancelled()) {  // in the queue, during the wait: no attempt for a client that left
      steps.push_back({.step = Step::cancelled, .attempt = attempt});
      return quota.settle(trace, attempt);
    }
    if (attempt > 1) {
      if (const auto stop = before_attempt(attempt, flow.deadline.left(clock_), shutdown_.stop_requested())) {
        steps.push_back({.step = *stop->skipped, .attempt = attempt, .reason = stop->reason});
        return quota.settle(trace, attempt);
      }
    }
    AttemptFacts facts = call_once(trace, request, policy, attempt, flow, recorded, guards);
    quota.settle(trace, attempt);
    // Overloaded (the carrier is not asked again), or the client left.
    if (!steps.empty() && (steps.back().step == Step::rejected || steps.back().step == Step::cancelled)) return;
    if (trace.status != QuoteStatus::completed && flow.cancelled()) {  // after a probe it let finish
      steps.push_back({.step = Step::cancelled, .attempt = attempt + 1});
      return;
    }
    facts.shutting_down = shutdown_.stop_requested();
    facts.time_left = flow.deadline.left(clock_);
    facts.retry_after_room = std::chrono::duration_cast<Millis>(envelope_end - clock_.now()) -
                             worst_case_from(policy, attempt + 1);
    const RetryDecision next = next_step(policy, facts, random_.uniform(), previous_wait);
    if (const auto* stop = std::get_if<Stop>(&next)) {
      if (stop->skipped)
        steps.push_back({.step = *stop->skipped, .attempt = stop->attempt, .reason = stop->reason,
                         .refused = facts.refused.has_value()});
      return;
    }
    const Retry retry = std::get<Retry>(next);
    if (const auto refused = admit_retry(policy, guards.retry_budget, quota, facts.error, attempt + 1)) {
      steps.push_back({.step = Step::retry_skipped, .attempt = attempt + 1, .reason = *refused});
      return;
    }
    previous_wait = retry.delay;
    if (retry.delay > Millis::zero()) {
      steps.push_back({.step = retry.wait_step, .attempt = attempt, .wait_ms = retry.delay.count()});
      // A stop during the wait ends it at once; before_attempt then skips the retry (or, the
      // client gone, the loop's top ends the flow).
      clock_.sleep_unless_stopped(retry.delay, flow.stop);
      recorded.reset();  // the breaker may have moved during the wait
    }
  }
}

std::optional<Reason> QuoteExecutor::pass_gates(QuoteTrace& trace, int attempt, const RetryPolicy& policy,
                                                const FlowGuards& guards, const Flow& flow,
                                                std::optional<ConcurrencyPermit>& permit) {
  if (!policy.overload.adaptive_throttle && !policy.overload.adaptive_retry && !policy.overload.concurrency_limit)
    return std::nullopt;
  for (const Strategy s : pipeline_of(policy)) {
    if (s == Strategy::adaptive_throttle && guards.throttle && policy.overload.adaptive_throttle &&
        !guards.throttle->admit())
      return Reason::throttled;
    if (s == Strategy::adaptive_retry && guards.rate && policy.overload.adaptive_retry) {
      const std::optional<Millis> waited = guards.rate->acquire(policy.overload.adaptive_retry->max_wait_ms, flow.stop);
      if (!waited) return Reason::client_rate_limited;
      if (*waited > Millis::zero())
        trace.events.push_back({.step = Step::token_wait, .attempt = attempt, .wait_ms = waited->count()});
    }
    if (s == Strategy::concurrency_limit && guards.concurrency && policy.overload.concurrency_limit) {
      permit = guards.concurrency->try_acquire();
      if (!permit) return Reason::concurrency_limit;
    }
  }
  return std::nullopt;
}

CallOutcome QuoteExecutor::send(QuoteTrace& trace, const CarrierRequest& call, const RetryPolicy& policy,
                                const FlowGuards& guards, bool probe) {
  if (!policy.overload.hedging || !guards.hedger) return carrier_.call(call);
  HedgingDelay* const learnt = guards.hedging_delay;
  const Millis delay(static_cast<long long>(learnt ? learnt->delay_ms() : policy.overload.hedging->delay.fixed_delay_ms));
  HedgeBudget* const budget = guards.hedge_budget;
  // A half-open breaker admits one call, not one call and its copy (resilience4j counts
  // permitted calls in half-open; Polly v8 puts the breaker inside each hedged attempt): the
  // probe's hedge is refused, and the budget is not asked.
  const HedgedCaller::Result r = guards.hedger->call(
      call, delay, [budget, probe] { return !probe && (!budget || budget->try_hedge()); },
      learnt ? std::function<void(double)>([learnt](double ms) { learnt->record_latency_ms(ms); }) : nullptr);
  if (r.hedged)
    trace.events.push_back({.step = Step::hedge, .attempt = call.attempt, .wait_ms = std::llround(r.delay_ms)});
  if (r.hedge_refused)
    trace.events.push_back({.step = Step::hedge_skipped, .attempt = call.attempt,
                            .reason = probe ? Reason::half_open_probe : Reason::hedge_budget});
  if (r.hedge_won) trace.events.push_back({.step = Step::hedge_won, .attempt = call.attempt});
  return r.outcome;
}

AttemptFacts QuoteExecutor::call_once(QuoteTrace& trace, const QuoteRequest& request, const RetryPolicy& policy,
                                      int attempt, const Flow& flow,
                                      std::optional<BreakerSnapshot>& recorded, const FlowGuards& guards) {
  auto& steps = trace.events;
  AttemptFacts facts{.attempt = attempt};
  recorded.reset();
  std::optional<ConcurrencyPermit> in_flight;
  if (const auto refused = pass_gates(trace, attempt, policy, guards, flow, in_flight)) {
    if (flow.cancelled()) steps.push_back({.step = Step::cancelled, .attempt = attempt});  // during the token's wait
    else steps.push_back({.step = Step::rejected, .attempt = attempt, .reason = *refused});
    return facts;
  }
  const Admission admission = policy.circuit_breaker ? breaker_.try_acquire() : Admission::unguarded();
  if (!admission.admitted()) {
    facts.refused = admission.refusal;
    if (in_flight) in_flight->cancel();  // no call: no round trip to learn from
    return facts;
  }
  const bool probe = admission.permit && admission.permit->probe;
  if (probe) steps.push_back({.step = Step::half_open_probe, .attempt = attempt});
  // No attempt outlives the deadline: its timeout is what is left of it when shorter.
  const std::optional<Millis> left = flow.deadline.left(clock_);
  const bool cut_by_deadline = left && *left < Millis(policy.timeout_ms);
  const Millis timeout = cut_by_deadline ? *left : Millis(policy.timeout_ms);
  CallOutcome outcome = send(trace,
                             {request.request_id, request.trace_id, request.scenario, request.customer_id,
                              request.items, attempt, timeout, idempotency_key(policy, request, attempt),
                              flow.deadline.wall, request.lab, request.priority,
                              // The half-open probe runs to its end: the breaker waits for its outcome.
                              probe ? std::stop_token{} : flow.cancel},
                             policy, guards, probe);
  if (!outcome.ok() && !probe && flow.cancelled()) {
    // Cut because the client left: it says nothing of the carrier, so neither the breaker
    // nor a gate learns from it (a closed breaker's permit holds nothing: it lapses).
    if (in_flight) in_flight->cancel();
    steps.push_back({.step = Step::cancelled, .attempt = attempt, .elapsed_ms = outcome.elapsed_ms});
    return facts;
  }
  if (cut_by_deadline && !outcome.ok() && ended_at_deadline(*flow.deadline.steady, clock_.now()))
    outcome.error = CallError::timeout;
  teach_gates(outcome, policy, guards, in_flight);
  record_attempt(trace, request, policy, outcome, admission, facts, recorded);
  return facts;
}

void QuoteExecutor::record_attempt(QuoteTrace& trace, const QuoteRequest& request, const RetryPolicy& policy,
                                   const CallOutcome& outcome, const Admission& admission, AttemptFacts& facts,
                                   std::optional<BreakerSnapshot>& recorded) {
  auto& steps = trace.events;
  const int attempt = facts.attempt;
  facts.error = outcome.error;
  facts.retry_after = outcome.retry_after;
  bool opened_now = false;
  if (admission.permit) {
    // carrier_failure() excludes a 4xx: the carrier answered, so it counts as healthy.
    BreakerRecord record = breaker_.record(*admission.permit, outcome.carrier_failure(),
                                                   to_string(outcome.error), outcome.elapsed_ms);
    facts.breaker_after = record.state;
    opened_now = record.opened_now;
    recorded = std::move(record.snapshot);
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

void QuoteExecutor::fall_back(QuoteTrace& trace, const QuoteRequest& request) {
  const CachedQuote cached = cache_.lookup(request.customer_id, request.items);
  trace.answer = QuoteAnswer{cached.quote, true, cached.seed, cached.cached_at, cached.age_s(clock_.wall_now())};
  trace.status = QuoteStatus::degraded;
  // The fallback belongs to the last attempt slot, refused ones included.
  trace.events.push_back({.step = Step::fallback_used, .attempt = trace.slots(),
                          .reason = cached.seed ? Reason::seed_quote : Reason::cached_quote});
}

}  // namespace quote_lab
