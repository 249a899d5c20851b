// The policy keys beyond the course's numbers, through the executor, exact on a fake clock: retry classification
// (ADR-0005), Retry-After, the retry budget, the total deadline and the Idempotency-Key.
#include <doctest/doctest.h>

#include "support/executor_rig.hpp"

namespace test_policy_features {

using namespace quote_lab;
using quote_lab::testing::event_names;
using quote_lab::testing::ExecutorRig;
using quote_lab::testing::FakeClock;
using std::chrono::milliseconds;

namespace {

struct Rig : ExecutorRig {
  QuoteTrace run(const RetryPolicy& p, RetryBudget* budget = nullptr, const std::string& id = "req-1") {
    return executor.run({p.mode, "provider_down", 42, 3, id, "trace-" + id}, p, budget);
  }
};

const RetryPolicy& adr0005(const Rig& rig) { return rig.policies.find_named("adr0005")->retry; }

}  // namespace

TEST_CASE("adr0005 retries 5xx, 429, timeouts and connection errors, and never a 4xx or a malformed answer") {
  for (const CallError e : {CallError::http_5xx, CallError::http_429, CallError::timeout, CallError::connect_error}) {
    CAPTURE(to_string(e));
    Rig rig;
    rig.carrier.fail(e, 10).succeed(20);
    const QuoteTrace t = rig.run(adr0005(rig));
    CHECK(t.attempts() == 2);
    CHECK(t.status == QuoteStatus::completed);
  }
  for (const CallError e : {CallError::http_4xx, CallError::bad_response}) {
    CAPTURE(to_string(e));
    Rig rig;
    rig.carrier.fail(e, 10).succeed(20);
    const QuoteTrace t = rig.run(adr0005(rig));
    CHECK(t.attempts() == 1);
    CHECK(event_names(t) == std::vector<std::string>{"attempt_failed", "retry_skipped", "fallback_used"});
    CHECK(t.events[1].reason == Reason::not_retryable);
  }
}

TEST_CASE("a policy whose retry_on lists 4xx retries a 404 (the naive client the ADR warns about)") {
  Rig rig;
  RetryPolicy p = adr0005(rig);
  p.retry_on = kRetryOnAdr0005 | kRetryOn4xx;
  rig.carrier.fail(CallError::http_4xx, 10).succeed(20);
  CHECK(rig.run(p).attempts() == 2);
}

TEST_CASE("a 4xx does not count toward opening the breaker: the carrier answered") {
  Rig rig;  // the course breaker opens after 2 consecutive failures
  RetryPolicy p = rig.policies.resilient;
  p.max_attempts = 1;
  rig.carrier.fail(CallError::timeout, 220).fail(CallError::http_4xx, 10).fail(CallError::timeout, 220);
  rig.run(p, nullptr, "a");
  CHECK(rig.breaker.snapshot().consecutive_failures == 1);
  rig.run(p, nullptr, "b");  // the 404: the count starts again
  CHECK(rig.breaker.snapshot().consecutive_failures == 0);
  rig.run(p, nullptr, "c");
  CHECK(rig.breaker.snapshot().state == BreakerState::closed);  // 2 timeouts, but not consecutive
}

TEST_CASE("Retry-After: the wait is max(backoff, Retry-After), capped by backoff_max_ms, as its own step") {
  Rig rig;
  const RetryPolicy& p = rig.policies.resilient;  // backoff 110 ms, cap 2000 ms
  SUBCASE("longer than the backoff: the carrier's wait, shown as retry_after") {
    rig.carrier.fail(CallError::http_429, 10, milliseconds(500)).succeed(20);
    const QuoteTrace t = rig.run(p);
    CHECK(event_names(t) == std::vector<std::string>{"attempt_failed", "retry_after", "attempt_success"});
    CHECK(t.events[1].wait_ms == 500);
    CHECK(rig.clock.sleeps() == std::vector<Millis>{milliseconds(500)});
  }
  SUBCASE("shorter than the backoff: the backoff") {
    rig.carrier.fail(CallError::http_429, 10, milliseconds(50)).succeed(20);
    const QuoteTrace t = rig.run(p);
    CHECK(event_names(t) == std::vector<std::string>{"attempt_failed", "backoff", "attempt_success"});
    CHECK(t.events[1].wait_ms == 110);
  }
  SUBCASE("beyond the cap: the cap") {
    rig.carrier.fail(CallError::http_5xx, 10, milliseconds(60000)).succeed(20);
    const QuoteTrace t = rig.run(p);
    CHECK(t.events[1].step == Step::retry_after);
    CHECK(t.events[1].wait_ms == 2000);
  }
  SUBCASE("beyond what is left of the deadline: no wait, the retry is skipped") {
    RetryPolicy d = p;
    d.deadline_ms = 1000;
    switch_strategy(d, Strategy::deadline, true);  // as ?deadline_ms= does
    rig.carrier.fail(CallError::http_429, 10, milliseconds(1500)).succeed(20);
    const QuoteTrace t = rig.run(d);
    CHECK(event_names(t) == std::vector<std::string>{"attempt_failed", "retry_skipped", "fallback_used"});
    CHECK(t.events[1].reason == Reason::deadline);
    CHECK(rig.clock.sleeps().empty());
  }
  SUBCASE("legacy ignores it (no backoff room)") {
    rig.carrier.fail(CallError::http_429, 10, milliseconds(500)).succeed(20);
    const QuoteTrace t = rig.run(rig.policies.legacy);
    CHECK(event_names(t) == std::vector<std::string>{"attempt_failed", "attempt_success"});
    CHECK(rig.clock.sleeps().empty());
  }
}

TEST_CASE("Retry-After never stretches a flow past its envelope (max of 5 s and the policy's worst case)") {
  Rig rig;
  RetryPolicy p = rig.policies.resilient;
  p.backoff_max_ms = 10000;
  p.timeout_ms = 2000;  // the second attempt may take 2 s: at most 5000 - 10 - 2000 ms of waiting
  rig.carrier.fail(CallError::http_429, 10, milliseconds(9000)).succeed(20);
  const QuoteTrace t = rig.run(p);
  CHECK(t.events[1].step == Step::retry_after);
  CHECK(t.events[1].wait_ms == 2990);
}

TEST_CASE("retry budget: retries within 10 s ≤ ratio × requests + min_per_s × 10") {
  FakeClock clock;
  RetryBudget budget{clock};
  for (int i = 0; i < 10; ++i) budget.deposit();
  CHECK(budget.try_withdraw(0.1, 0));        // 0.1 × 10 = 1 retry
  CHECK_FALSE(budget.try_withdraw(0.1, 0));  // the second is refused
  CHECK(budget.try_withdraw(0.1, 1));        // a floor of 1/s: 10 more in the window
  CHECK(budget.window().retries == 2);
  clock.advance(milliseconds(9999));          // still the same window
  CHECK_FALSE(budget.try_withdraw(0.1, 0));
  clock.advance(milliseconds(1));             // 10 s later the first second has left it
  CHECK(budget.window().requests == 0);
  CHECK(budget.window().retries == 0);
  CHECK_FALSE(budget.try_withdraw(0.1, 0));   // no requests: no retry without a floor
  budget.deposit();
  budget.reset();
  CHECK(budget.window().requests == 0);
}

TEST_CASE("a refused retry is retry_skipped with reason retry_budget, 10 % lets 1 in 10 flows retry") {
  Rig rig;
  RetryPolicy p = rig.policies.resilient;
  switch_strategy(p, Strategy::circuit_breaker, false);  // the budget alone
  p.retry_budget_ratio = 0.1;
  p.retry_budget_min_per_s = 0;
  RetryBudget budget{rig.clock};
  int calls = 0;
  std::vector<std::string> first;
  for (int i = 0; i < 10; ++i) {
    rig.carrier.fail(CallError::http_5xx, 0).fail(CallError::http_5xx, 0);
    const QuoteTrace t = rig.run(p, &budget, "r" + std::to_string(i));
    if (i == 0) first = event_names(t);
    calls += t.attempts();
  }
  CHECK(first == std::vector<std::string>{"attempt_failed", "retry_skipped", "fallback_used"});
  CHECK(calls == 11);  // 10 requests, 1 retry: the SRE book's 1.1
  Rig other;           // without a ratio the budget is never asked
  RetryPolicy q = other.policies.resilient;
  switch_strategy(q, Strategy::circuit_breaker, false);
  other.carrier.fail(CallError::http_5xx, 0).fail(CallError::http_5xx, 0);
  CHECK(other.run(q, &budget).attempts() == 2);
}

TEST_CASE("deadline_ms: attempts get what is left, and no wait or attempt starts past it") {
  Rig rig;
  RetryPolicy p = rig.policies.resilient;  // 220 ms attempts, first backoff 110 ms
  SUBCASE("400 ms: 220 + 110, then the second attempt gets the 70 ms left") {
    p.deadline_ms = 400;
    switch_strategy(p, Strategy::deadline, true);  // as ?deadline_ms= does
    const QuoteTrace t = rig.run(p);
    const auto sent = rig.carrier.requests();
    REQUIRE(sent.size() == 2);
    CHECK(sent[0].timeout == milliseconds(220));
    CHECK(sent[1].timeout == milliseconds(70));
    CHECK(t.elapsed_ms == doctest::Approx(400));
    REQUIRE(sent[0].deadline);
    CHECK(*sent[0].deadline == *sent[1].deadline);
    CHECK(*sent[0].deadline - rig.clock.wall_now() == milliseconds(0));  // the flow ended at it
  }
  SUBCASE("300 ms: the 110 ms wait would reach it, so the retry is skipped") {
    p.deadline_ms = 300;
    switch_strategy(p, Strategy::deadline, true);  // as ?deadline_ms= does
    const QuoteTrace t = rig.run(p);
    CHECK(event_names(t) == std::vector<std::string>{"attempt_failed", "retry_skipped", "fallback_used"});
    CHECK(t.events[1].reason == Reason::deadline);
    CHECK(t.events[1].attempt == 2);
    CHECK(rig.carrier.requests().size() == 1);
  }
  SUBCASE("no deadline: none is sent") {
    rig.run(p);
    CHECK_FALSE(rig.carrier.requests()[0].deadline);
  }
}

TEST_CASE("deadline_ms: an attempt the deadline cuts fails as timeout, whatever the carrier answered at it") {
  Rig rig;
  RetryPolicy p = rig.policies.resilient;  // 220 ms attempts, first backoff 110 ms
  p.deadline_ms = 400;                      // the second attempt gets the last 70 ms
  switch_strategy(p, Strategy::deadline, true);  // as ?deadline_ms= does
  switch_strategy(p, Strategy::circuit_breaker, false);                // 100 quotes in a row: each shows its own attempts
  const CallError answers[] = {CallError::http_5xx, CallError::connect_error, CallError::http_429,
                               CallError::bad_response, CallError::timeout};
  int labelled_timeout = 0;
  for (int i = 0; i < 100; ++i) {
    // The carrier drops the work at the deadline and says so (504 deadline_exceeded), or the
    // connection breaks then: the same instant as the lab's own cut.
    rig.carrier.fail(CallError::timeout, 220).fail(answers[i % 5], 70);
    const QuoteTrace t = rig.run(p, nullptr, "q-" + std::to_string(i));
    REQUIRE(event_names(t) == std::vector<std::string>{"attempt_failed", "backoff", "attempt_failed", "fallback_used"});
    labelled_timeout += t.events[2].reason == Reason::timeout;
  }
  CHECK(labelled_timeout == 100);
  SUBCASE("an answer 10 ms before the deadline is the carrier's own: it keeps its reason") {
    rig.carrier.fail(CallError::timeout, 220).fail(CallError::http_5xx, 60);
    const QuoteTrace t = rig.run(p, nullptr, "early");
    REQUIRE(t.events.size() == 4);
    CHECK(t.events[2].reason == Reason::http_5xx);
  }
  SUBCASE("an attempt with its own whole timeout is not cut by the deadline: a 5xx at 220 ms stays a 5xx") {
    p.deadline_ms = 2000;
    switch_strategy(p, Strategy::deadline, true);  // as ?deadline_ms= does
    rig.carrier.fail(CallError::http_5xx, 220).succeed(20);
    const QuoteTrace t = rig.run(p, nullptr, "uncut");
    CHECK(t.events[0].reason == Reason::http_5xx);
  }
}

TEST_CASE("idempotency_key: per_flow (default) repeats the request id, per_attempt numbers it, none sends none") {
  struct Row {
    IdempotencyKey key;
    std::vector<std::string> sent;
  };
  for (const Row& r : {Row{IdempotencyKey::per_flow, {"req-1", "req-1"}},
                       Row{IdempotencyKey::per_attempt, {"req-1-1", "req-1-2"}},
                       Row{IdempotencyKey::none, {"", ""}}}) {
    CAPTURE(to_string(r.key));
    Rig rig;
    RetryPolicy p = rig.policies.resilient;
    p.idempotency_key = r.key;
    rig.run(p);
    std::vector<std::string> keys;
    for (const auto& req : rig.carrier.requests()) keys.push_back(req.idempotency_key);
    CHECK(keys == r.sent);
  }
}

TEST_CASE("every carrier attempt of a quote carries the quote's priority, critical when it names none") {
  for (const Priority priority : {Priority::critical, Priority::sheddable}) {
    CAPTURE(to_string(priority));
    Rig rig;
    const RetryPolicy& p = rig.policies.legacy;  // 4 attempts against provider_down
    QuoteRequest request{p.mode, "provider_down", 42, 3, "req-1", "trace-req-1", "", priority};
    rig.executor.run(request, p);
    REQUIRE(rig.carrier.requests().size() == 4);
    for (const auto& sent : rig.carrier.requests()) CHECK(sent.priority == priority);
  }
  CHECK(QuoteRequest{}.priority == Priority::critical);
}

}  // namespace test_policy_features
