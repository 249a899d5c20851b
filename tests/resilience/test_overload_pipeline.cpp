// The overload strategies inside the quote executor (quote_executor.hpp, pipeline.hpp), with
// the shipped policies' numbers: what a student's answer shows when a strategy refuses, and
// the figures the issue asks of each, exact on a fake clock (the bulkhead and the adaptive
// limit hold calls on a carrier that blocks until released: threads, no sleeps).
#include <doctest/doctest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "lab/carrier/threaded_hedged_caller.hpp"
#include "lab/resilience/overload/adaptive_throttle.hpp"
#include "lab/resilience/overload/bulkhead.hpp"
#include "lab/resilience/overload/cubic_rate_limiter.hpp"
#include "lab/resilience/overload/gradient_concurrency_limit.hpp"
#include "lab/resilience/overload/hedge_budget.hpp"
#include "lab/resilience/quote_budget.hpp"
#include "support/executor_rig.hpp"
#include "support/poll.hpp"

namespace test_overload_pipeline {

using namespace quote_lab;
using namespace quote_lab::testing;

namespace {

QuoteRequest request(const std::string& mode) { return QuoteRequest{mode, "carrier_offline", 42, 3, "r", "t", "", Priority::critical}; }

// carrier_offline: every call refused at once.
class RefusingCarrier final : public CarrierCaller {
 public:
  CallOutcome call(const CarrierRequest&) override {
    std::lock_guard lock(mutex_);
    ++calls_;
    return CallOutcome{.error = CallError::connect_error};
  }
  int calls() {
    std::lock_guard lock(mutex_);
    return calls_;
  }

 private:
  std::mutex mutex_;
  int calls_ = 0;
};

// Holds every call until release(): the calls in flight are exactly the ones it holds.
class HoldingCarrier final : public CarrierCaller {
 public:
  CallOutcome call(const CarrierRequest&) override {
    std::unique_lock lock(mutex_);
    ++held_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return released_; });
    return CallOutcome{.error = CallError::none, .http_status = 200, .elapsed_ms = 5,
                       .quote = Quote{"Q-held", 10, "USD", {}}};
  }
  void wait_for_held(int n) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return held_ >= n; });
  }
  void release() {
    std::lock_guard lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }
  int held() {
    std::lock_guard lock(mutex_);
    return held_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int held_ = 0;
  bool released_ = false;
};

// Carrier calls made per quote over the last `n` of `quotes` quotes, each 50 ms after the last.
template <class Run>
double calls_per_quote_at_the_end(FakeClock& clock, RefusingCarrier& carrier, int quotes, int n, Run run) {
  int before = 0;
  for (int i = 0; i < quotes; ++i) {
    if (i == quotes - n) before = carrier.calls();
    run();
    clock.advance(Millis(50));
  }
  return static_cast<double>(carrier.calls() - before) / n;
}

}  // namespace

TEST_CASE("throttled against carrier_offline: once its window fills, under 0.15 carrier calls per quote, against resilient without a breaker's 2") {
  ExecutorRigWith<RefusingCarrier> rig;  // random 0.5: a drop whenever the drop probability is over one half
  const RetryPolicy throttled = throttled_policy().retry;
  AdaptiveThrottle throttle(rig.clock, rig.random, throttled.overload.adaptive_throttle);
  // 400 quotes, 50 ms apart: 20 s, two windows of 10 s.
  const double with_throttle = calls_per_quote_at_the_end(rig.clock, rig.carrier, 400, 200, [&] {
    const QuoteTrace t = rig.executor.run(request("throttled"), throttled, FlowGuards{}.lend(Strategy::adaptive_throttle, &throttle));
    CHECK(t.status == QuoteStatus::degraded);  // every quote still answers, from the fallback
  });
  CHECK(with_throttle <= 0.15);
  // What a student sees of a dropped quote: rejected, throttled, no call, the fallback.
  const QuoteTrace dropped = rig.executor.run(request("throttled"), throttled, FlowGuards{}.lend(Strategy::adaptive_throttle, &throttle));
  CHECK(dropped.rejected() == Reason::throttled);
  CHECK(dropped.attempts() == 0);
  CHECK(event_names(dropped) == std::vector<std::string>{"rejected", "fallback_used"});
  RetryPolicy no_breaker = default_policies().resilient;
  switch_strategy(no_breaker, Strategy::circuit_breaker, false);
  const double without = calls_per_quote_at_the_end(rig.clock, rig.carrier, 400, 200, [&] {
    rig.executor.run(request("resilient"), no_breaker, FlowGuards{});
  });
  CHECK(without == 2.0);
}

TEST_CASE("bulkhead: legacy's retries behind 4 places, the 5th quote is refused at once with bulkhead_full, no call made") {
  ExecutorRigWith<HoldingCarrier> rig;
  const RetryPolicy policy = bulkhead_policy().retry;
  REQUIRE(policy.overload.bulkhead.max_concurrent == 4);
  Bulkhead bulkhead(BulkheadSettings{4, 0}, rig.clock);
  std::vector<std::thread> inside;
  for (int i = 0; i < 4; ++i)
    inside.emplace_back([&] { rig.executor.run(request("bulkhead"), policy, FlowGuards{}.lend(Strategy::bulkhead, &bulkhead)); });
  rig.carrier.wait_for_held(4);
  const QuoteTrace refused = rig.executor.run(request("bulkhead"), policy, FlowGuards{}.lend(Strategy::bulkhead, &bulkhead));
  CHECK(refused.rejected() == Reason::bulkhead_full);
  CHECK(refused.status == QuoteStatus::failed);  // legacy has no fallback: a 503 at once
  CHECK(refused.attempts() == 0);
  CHECK(event_names(refused) == std::vector<std::string>{"rejected"});
  CHECK(rig.carrier.held() == 4);
  rig.carrier.release();
  for (auto& t : inside) t.join();
  CHECK(bulkhead.stats().refused_full == 1);
  CHECK(bulkhead.stats().active == 0);
}

TEST_CASE("adaptive_limit: while it measures the carrier's minimum RTT the limit is 3, and a 4th call is refused with concurrency_limit and served from the fallback") {
  ExecutorRigWith<HoldingCarrier> rig;
  const RetryPolicy policy = adaptive_limit_policy().retry;
  GradientConcurrencyLimit limit(rig.clock, rig.random, policy.overload.concurrency_limit);
  std::vector<std::thread> inside;
  for (int i = 0; i < 3; ++i)
    inside.emplace_back(
        [&] { rig.executor.run(request("adaptive_limit"), policy, FlowGuards{}.lend(Strategy::concurrency_limit, &limit)); });
  rig.carrier.wait_for_held(3);
  const QuoteTrace refused = rig.executor.run(request("adaptive_limit"), policy, FlowGuards{}.lend(Strategy::concurrency_limit, &limit));
  CHECK(refused.rejected() == Reason::concurrency_limit);
  CHECK(refused.status == QuoteStatus::degraded);
  CHECK(refused.attempts() == 0);
  CHECK(event_names(refused) == std::vector<std::string>{"rejected", "fallback_used"});
  CHECK(limit.stats().in_flight == 3);
  rig.carrier.release();
  for (auto& t : inside) t.join();
  CHECK(limit.stats().in_flight == 0);
}

TEST_CASE("aws_adaptive: a 429 turns its rate limiter on at botocore's floor of 0.5 a second, so the retry would wait 2 s for its token and is refused with client_rate_limited") {
  ExecutorRig rig;
  const RetryPolicy policy = aws_adaptive_policy().retry;
  CubicRateLimiter rate(rig.clock);
  rig.carrier.fail(CallError::http_429, 5);
  const QuoteTrace t = rig.executor.run(request("aws_adaptive"), policy, FlowGuards{}.lend(Strategy::adaptive_retry, &rate));
  CHECK(event_names(t) == std::vector<std::string>{"attempt_failed", "backoff", "rejected", "fallback_used"});
  CHECK(t.rejected() == Reason::client_rate_limited);
  CHECK(t.attempts() == 1);  // one call: the retry never left
  CHECK(t.status == QuoteStatus::degraded);
  CHECK(rate.stats().enabled);
  CHECK(rate.stats().throttles == 1);
  // A second later its token is less than a second away: the next quote waits for it and goes.
  // 0.005 tokens at the 429, + 0.5 per s over the 100 ms backoff and this second: 0.555, so
  // (1 - 0.555) / 0.5 s = 890 ms, a step of its own before the attempt.
  rig.clock.advance(Millis(1000));
  rig.carrier.succeed(5);
  const QuoteTrace later = rig.executor.run(request("aws_adaptive"), policy, FlowGuards{}.lend(Strategy::adaptive_retry, &rate));
  CHECK(later.status == QuoteStatus::completed);
  CHECK(event_names(later) == std::vector<std::string>{"token_wait", "attempt_success"});
  CHECK(later.events.front().attempt == 1);
  CHECK(later.events.front().wait_ms == 890);
  CHECK(later.elapsed_ms == 890 + 5);
}

namespace {
// A hedger for the executor's side: every call is "slow", so every quote asks for a hedge;
// the budget answers.
class AlwaysSlow final : public HedgedCaller {
 public:
  Result call(const CarrierRequest&, Millis delay, const std::function<bool()>& may_hedge,
              std::function<void(double)>) override {
    Result r;
    r.delay_ms = static_cast<double>(delay.count());
    r.outcome = CallOutcome{.error = CallError::none, .http_status = 200, .elapsed_ms = 400,
                            .quote = Quote{"Q-h", 10, "USD", {}}};
    if (may_hedge()) {
      r.hedged = true;
      r.hedge_won = true;
    } else {
      r.hedge_refused = true;
    }
    return r;
  }
};
}  // namespace

TEST_CASE("hedged in a partial outage where every call is slow: hedges stay within 15 % of requests plus 1 a second, the rest are hedge_skipped") {
  ExecutorRig rig;
  const RetryPolicy policy = hedged_policy().retry;
  HedgeBudget budget(rig.clock, policy.overload.hedging.budget);
  AlwaysSlow hedger;
  HedgingTools tools{&hedger, &budget};
  int hedges = 0, skipped = 0;
  for (int i = 0; i < 500; ++i) {  // 500 quotes in 5 s
    const QuoteTrace t = rig.executor.run(request("hedged"), policy,
                                          FlowGuards{}.lend(Strategy::hedging, &tools));
    hedges += t.hedges();
    skipped += static_cast<int>(std::count_if(t.events.begin(), t.events.end(),
                                              [](const TraceEvent& e) { return e.step == Step::hedge_skipped; }));
    rig.clock.advance(Millis(10));
  }
  CHECK(hedges + skipped == 500);
  CHECK(hedges <= static_cast<int>(0.15 * 500 + 1 * 10));
  CHECK(hedges >= 75);  // the budget is spent, not left idle
  const QuoteTrace last = rig.executor.run(request("hedged"), policy, FlowGuards{}.lend(Strategy::hedging, &tools));
  CHECK(event_names(last) == std::vector<std::string>{"hedge_skipped", "attempt_success"});
}

namespace {
// The carrier still down: every attempt's first call fails after the attempt's whole timeout
// (the fake clock advances by it), and so does its hedge when may_hedge() lets one go. Counts
// the carrier calls made.
class DownHedger final : public HedgedCaller {
 public:
  explicit DownHedger(FakeClock& clock, CallError error = CallError::timeout) : clock_(clock), error_(error) {}
  Result call(const CarrierRequest& request, Millis delay, const std::function<bool()>& may_hedge,
              std::function<void(double)>) override {
    ++calls;
    Result r;
    r.delay_ms = static_cast<double>(delay.count());
    if (may_hedge()) {
      ++calls;
      r.hedged = true;
    } else {
      r.hedge_refused = true;
    }
    clock_.advance(request.timeout);
    r.outcome = CallOutcome{.error = error_, .http_status = error_ == CallError::http_5xx ? 504 : 0,
                            .elapsed_ms = static_cast<double>(request.timeout.count())};
    return r;
  }
  int calls = 0;

 private:
  FakeClock& clock_;
  CallError error_;
};

// hedged, with the course's breaker before the hedging: a user's policy.
RetryPolicy hedged_behind_breaker() {
  RetryPolicy p = hedged_policy().retry;
  switch_strategy(p, Strategy::circuit_breaker, true);
  p.pipeline = {Strategy::fallback, Strategy::retry, Strategy::circuit_breaker, Strategy::hedging, Strategy::timeout};
  return p;
}
}  // namespace

TEST_CASE("a half-open breaker before hedging lets one carrier call through: the probe's hedge is hedge_skipped, reason half_open_probe") {
  ExecutorRig rig;
  const RetryPolicy policy = hedged_behind_breaker();
  REQUIRE(pipeline_problem(policy.pipeline).empty());
  HedgeBudget budget(rig.clock, policy.overload.hedging.budget);
  DownHedger hedger(rig.clock);
  HedgingTools tools{&hedger, &budget};
  const FlowGuards guards = FlowGuards{}.lend(Strategy::hedging, &tools);
  for (int i = 0; i < 2; ++i) rig.executor.run(request("hedged"), policy, guards);  // 2 failures open it
  REQUIRE(rig.breaker.snapshot().state == BreakerState::open);
  rig.clock.advance(Millis(30'000));  // the cooldown: the next call is the probe
  hedger.calls = 0;
  const QuoteTrace t = rig.executor.run(request("hedged"), policy, guards);
  CHECK(hedger.calls == 1);
  CHECK(event_names(t) ==
        std::vector<std::string>{"half_open_probe", "hedge_skipped", "attempt_failed", "circuit_opened", "fallback_used"});
  CHECK(t.events[1].reason == Reason::half_open_probe);
  // Closed again, a slow call is hedged as before: the refusal was the probe's only.
  rig.breaker.reset();
  hedger.calls = 0;
  rig.executor.run(request("hedged"), policy, guards);
  CHECK(hedger.calls == 2);
}

TEST_CASE("an attempt the deadline cuts fails as timeout, whatever the hedged call answered at the deadline") {
  ExecutorRig rig;
  RetryPolicy policy = hedged_policy().retry;  // 1500 ms attempts: a 400 ms deadline cuts the first
  policy.deadline_ms = 400;
  switch_strategy(policy, Strategy::deadline, true);  // as a request's ?deadline_ms= does
  HedgeBudget budget(rig.clock, policy.overload.hedging.budget);
  DownHedger hedger(rig.clock, CallError::http_5xx);  // the carrier's 504 deadline_exceeded, at the deadline
  HedgingTools tools{&hedger, &budget};
  for (int i = 0; i < 100; ++i) {
    const QuoteTrace t = rig.executor.run(request("hedged"), policy, FlowGuards{}.lend(Strategy::hedging, &tools));
    const auto failed = std::find_if(t.events.begin(), t.events.end(),
                                     [](const TraceEvent& e) { return e.step == Step::attempt_failed; });
    REQUIRE(failed != t.events.end());
    CHECK(failed->reason == Reason::timeout);
  }
}

namespace {
// Answers each call after a real delay from a script (the first call's, then the hedge's).
class TimedCarrier final : public CarrierCaller {
 public:
  explicit TimedCarrier(std::vector<int> ms) : ms_(std::move(ms)) {}
  CallOutcome call(const CarrierRequest&) override {
    int ms = 0;
    {
      std::lock_guard lock(mutex_);
      ms = ms_.at(next_++);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return CallOutcome{.error = CallError::none, .http_status = 200, .elapsed_ms = static_cast<double>(ms),
                       .quote = Quote{"Q-" + std::to_string(ms), 10, "USD", {}}};
  }

 private:
  std::mutex mutex_;
  std::vector<int> ms_;
  std::size_t next_ = 0;
};
}  // namespace

TEST_CASE("threaded hedged caller: a first call of 400 ms and a hedge of 10 ms after 50 ms: the hedge wins well before the first call ends") {
  TimedCarrier carrier({400, 10});
  double first_took = 0;
  std::mutex m;
  const auto started = std::chrono::steady_clock::now();
  HedgedCaller::Result r;
  {
    ThreadedHedgedCaller hedger(carrier);
    r = hedger.call(CarrierRequest{.timeout = Millis(1500)}, Millis(50), [] { return true; }, [&](double ms) {
      std::lock_guard lock(m);
      first_took = ms;
    });
    const double answered_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    CHECK(answered_ms < 300);  // 60 ms expected; a loaded machine has 240 ms to spare
    CHECK(r.hedged);
    CHECK(r.hedge_won);
    CHECK(r.outcome.quote->quote_id == "Q-10");
    CHECK(r.delay_ms >= 50);
  }  // the abandoned first call is waited for here
  std::lock_guard lock(m);
  CHECK(first_took == 400);  // what the hedging delay learns is the carrier's own latency
}

}  // namespace test_overload_pipeline

namespace test_overload_pipeline {

TEST_CASE("the worst case of a flow counts the overload strategies' waits: adaptive retry's token before each attempt, the bulkhead's queue once") {
  RetryPolicy aws = aws_adaptive_policy().retry;
  RetryPolicy without = aws;
  switch_strategy(without, Strategy::adaptive_retry, false);
  CHECK(worst_case_duration(aws) - worst_case_duration(without) == Millis(3 * 1000));
  CHECK(worst_case_duration(aws).count() <= kMaxQuoteMs);  // the shipped policy keeps the 5 s rule
  RetryPolicy queued = bulkhead_policy().retry;
  const Millis unqueued = worst_case_duration(queued);
  queued.overload.bulkhead.queue_timeout_ms = 500;
  CHECK(worst_case_duration(queued) - unqueued == Millis(500));
  CHECK(worst_case_from(queued, 2) == worst_case_from(bulkhead_policy().retry, 2));  // only before the first
}

TEST_CASE("a strategy's wait counts where the pipeline puts it: per attempt inside the retry, once outside it") {
  RetryPolicy p = default_policies().resilient;
  p.max_attempts = 3;
  const RetryPolicy three = p;
  p.overload.bulkhead.queue_timeout_ms = 500;
  p.overload.adaptive_retry.max_wait_ms = 200;
  const Millis plain = worst_case_from(p, 1);
  // A bulkhead place per attempt (inside the retry): every attempt may wait out the queue.
  p.pipeline = {Strategy::fallback, Strategy::retry, Strategy::bulkhead, Strategy::circuit_breaker, Strategy::timeout};
  REQUIRE(pipeline_problem(p.pipeline).empty());
  CHECK(worst_case_from(p, 1) - plain == Millis(3 * 500));
  CHECK(worst_case_from(p, 2) - worst_case_from(three, 2) == Millis(2 * 500));
  // Adaptive retry's token asked once per flow (outside the retry): one wait, before the first attempt.
  p.pipeline = {Strategy::fallback, Strategy::adaptive_retry, Strategy::retry, Strategy::circuit_breaker,
                Strategy::timeout};
  REQUIRE(pipeline_problem(p.pipeline).empty());
  CHECK(worst_case_from(p, 1) - plain == Millis(200));
  CHECK(worst_case_from(p, 2) == worst_case_from(three, 2));
}

}  // namespace test_overload_pipeline

namespace test_overload_pipeline {

namespace {

QuoteRequest cancellable(const std::string& mode, std::stop_token cancel) {
  QuoteRequest r = request(mode);
  r.cancel = std::move(cancel);
  return r;
}

// A carrier on the rig's clock whose calls last `ms` and fail with `error`; `during_call`
// runs inside each call (a client hanging up while its attempt is out).
class FailingCarrier final : public CarrierCaller {
 public:
  explicit FailingCarrier(FakeClock& clock) : clock_(clock) {}
  CallOutcome call(const CarrierRequest& request) override {
    ++calls;
    if (during_call) during_call();
    // A cut call returns at once; an uncut one takes its whole time.
    if (!request.cancel.stop_requested()) clock_.advance(Millis(static_cast<long long>(ms)));
    CallOutcome out{.error = error, .elapsed_ms = request.cancel.stop_requested() ? 40.0 : ms};
    if (error == CallError::none) out.quote = Quote{"Q-f", 10, "USD", {}};
    return out;
  }
  int calls = 0;
  double ms = 220;
  CallError error = CallError::timeout;
  std::function<void()> during_call;

 private:
  FakeClock& clock_;
};

}  // namespace

TEST_CASE("a quote queued in the bulkhead whose client leaves never calls the carrier and frees its queue place") {
  ExecutorRigWith<HoldingCarrier> rig;
  RetryPolicy policy = bulkhead_policy().retry;
  policy.overload.bulkhead = BulkheadPolicy{.max_concurrent = 1, .max_queued = 1, .queue_timeout_ms = 5000};
  SystemClock real;  // the quotes are real threads: the queued one waits in real time until its client leaves
  Bulkhead bulkhead(BulkheadSettings{1, 1}, real);
  const FlowGuards guards = FlowGuards{}.lend(Strategy::bulkhead, &bulkhead);
  std::thread inside([&] { rig.executor.run(request("bulkhead"), policy, guards); });
  rig.carrier.wait_for_held(1);
  std::stop_source client;
  QuoteTrace abandoned;
  std::thread queued([&] { abandoned = rig.executor.run(cancellable("bulkhead", client.get_token()), policy, guards); });
  REQUIRE(eventually([&] { return bulkhead.stats().queued == 1; }, std::chrono::seconds(10)));
  client.request_stop();  // the client hangs up while queued
  queued.join();
  CHECK(event_names(abandoned) == std::vector<std::string>{"cancelled"});
  CHECK(abandoned.cancelled());
  CHECK(abandoned.attempts() == 0);
  CHECK(bulkhead.stats().queued == 0);  // its place is free: the next quote may queue
  CHECK(bulkhead.stats().stopped == 1);
  rig.carrier.release();
  inside.join();
  CHECK(rig.carrier.held() == 1);  // the one inside; the abandoned quote never called
  CHECK(bulkhead.stats().admitted == 1);
}

TEST_CASE("a quote whose client leaves during an attempt stops there: the attempt is cancelled, no retry, no fallback, the breaker unmoved") {
  ExecutorRigWith<FailingCarrier> rig;
  const RetryPolicy& policy = rig.policies.resilient;
  std::stop_source client;
  rig.carrier.during_call = [&] { client.request_stop(); };
  const QuoteTrace t = rig.executor.run(cancellable("resilient", client.get_token()), policy);
  CHECK(event_names(t) == std::vector<std::string>{"cancelled"});
  REQUIRE(t.events[0].elapsed_ms);
  CHECK(*t.events[0].elapsed_ms == 40);
  CHECK(t.status == QuoteStatus::failed);
  CHECK(rig.carrier.calls == 1);
  CHECK(rig.breaker.snapshot().consecutive_failures == 0);  // a client leaving says nothing of the carrier
}

TEST_CASE("a client that left before its quote began gets no attempt at all") {
  ExecutorRigWith<FailingCarrier> rig;
  std::stop_source client;
  client.request_stop();
  const QuoteTrace t = rig.executor.run(cancellable("resilient", client.get_token()), rig.policies.resilient);
  CHECK(event_names(t) == std::vector<std::string>{"cancelled"});
  CHECK(rig.carrier.calls == 0);
}

TEST_CASE("a half-open probe whose client leaves still runs to its end and is recorded, and no retry follows") {
  ExecutorRigWith<FailingCarrier> rig;
  const RetryPolicy& policy = rig.policies.resilient;
  for (int i = 0; i < 2; ++i) {  // resilient: 2 attempts of 220 ms fail, the breaker opens
    rig.executor.run(request("resilient"), policy);
  }
  REQUIRE(rig.breaker.snapshot().state == BreakerState::open);
  rig.clock.advance(Millis(30'000));
  std::stop_source client;
  rig.carrier.during_call = [&] { client.request_stop(); };
  const int before = rig.carrier.calls;
  const QuoteTrace t = rig.executor.run(cancellable("resilient", client.get_token()), policy);
  CHECK(rig.carrier.calls - before == 1);
  CHECK(event_names(t) == std::vector<std::string>{"half_open_probe", "attempt_failed", "circuit_opened", "cancelled"});
  CHECK(rig.breaker.snapshot().state == BreakerState::open);  // the probe's failure was recorded
  CHECK(rig.breaker.snapshot().open_events == 2);
}

}  // namespace test_overload_pipeline
