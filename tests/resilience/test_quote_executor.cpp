#include <doctest/doctest.h>

#include "support/executor_rig.hpp"

namespace test_quote_executor {

using namespace quote_lab;
using quote_lab::testing::event_names;
using quote_lab::testing::ExecutorRig;
using quote_lab::testing::FakeClock;
using std::chrono::milliseconds;

namespace {

struct Rig : ExecutorRig {
  QuoteTrace run(Mode mode, const std::string& id = "req-1", int customer = 42, int items = 3) {
    const RetryPolicy& p = mode == Mode::legacy ? policies.legacy : policies.resilient;
    return executor.run({std::string(to_string(mode)), "provider_down", customer, items, id, "trace-" + id}, p);
  }
};

}  // namespace

// A breaker the executor cannot see inside: it always refuses (another caller holds the
// probe) and says so in its snapshot.
struct ProbeTakenBreaker final : Breaker {
  int asked = 0;
  Admission try_acquire() override {
    ++asked;
    return {std::nullopt, true, Reason::probe_in_flight};
  }
  BreakerRecord record(const BreakerPermit&, bool, std::string_view, double) override {
    FAIL("a refused call is never recorded");
    return {BreakerState::half_open};
  }
  BreakerSnapshot snapshot() override {
    BreakerSnapshot s;
    s.name = "elsewhere";
    s.state = BreakerState::half_open;
    return s;
  }
  void reset() override {}
};

TEST_CASE("the executor asks the Breaker it is given, whichever it is: refused, no call, the fallback, and that breaker in the answer") {
  ExecutorRig rig;
  ProbeTakenBreaker breaker;
  QuoteExecutor executor{rig.carrier, breaker, rig.cache, rig.clock, rig.random};
  const QuoteTrace t = executor.run({"resilient", "provider_down", 42, 3, "req-1", "trace-1"}, rig.policies.resilient);
  CHECK(breaker.asked == 1);
  CHECK(rig.carrier.requests().empty());
  CHECK(event_names(t) == std::vector<std::string>{"short_circuit", "fallback_used"});
  CHECK(t.events[0].reason == Reason::probe_in_flight);
  CHECK(t.status == QuoteStatus::degraded);
  CHECK(t.dependency.name == "elsewhere");
  CHECK(t.dependency.state == BreakerState::half_open);
}

// A breaker that admits every call and counts how often it is read: a breaker several
// replicas share answers each read with a round trip to Redis.
struct CountingBreaker final : Breaker {
  int snapshots = 0;
  Admission try_acquire() override { return {BreakerPermit{1, false}}; }
  BreakerRecord record(const BreakerPermit&, bool, std::string_view outcome, double) override {
    BreakerRecord r;
    r.snapshot.name = "as recorded";
    r.snapshot.last_outcome = std::string(outcome);
    return r;
  }
  BreakerSnapshot snapshot() override {
    ++snapshots;
    BreakerSnapshot s;
    s.name = "read again";
    return s;
  }
  void reset() override {}
};

TEST_CASE("the answer shows the breaker as the last record left it, without reading it again") {
  ExecutorRig rig;
  CountingBreaker breaker;
  QuoteExecutor executor{rig.carrier, breaker, rig.cache, rig.clock, rig.random};
  rig.carrier.succeed(20);
  const QuoteTrace ok = executor.run({"resilient", "ok", 42, 3, "req-1", "trace-1"}, rig.policies.resilient);
  CHECK(ok.status == QuoteStatus::completed);
  CHECK(breaker.snapshots == 0);
  CHECK(ok.dependency.name == "as recorded");
  CHECK(ok.dependency.last_outcome == "success");
}

TEST_CASE("legacy against a carrier that never answers: 4 immediate attempts of 360 ms, then failed") {
  Rig rig;
  const QuoteTrace t = rig.run(Mode::legacy);
  CHECK(t.status == QuoteStatus::failed);
  CHECK(t.attempts() == 4);
  CHECK(t.retries() == 3);
  CHECK(t.timeouts() == 4);
  CHECK_FALSE(t.answer.has_value());
  CHECK(t.elapsed_ms == doctest::Approx(1440));            // 4 x 360 ms, no waits between
  CHECK(rig.clock.sleeps().empty());
  CHECK(event_names(t) == std::vector<std::string>(4, "attempt_failed"));
  CHECK(rig.breaker.snapshot().state == BreakerState::closed);  // legacy has no breaker
}

TEST_CASE("resilient against a carrier that never answers: 2 attempts, backoff, breaker opens, fallback") {
  Rig rig;
  const QuoteTrace t = rig.run(Mode::resilient);
  CHECK(t.status == QuoteStatus::degraded);
  CHECK(t.attempts() == 2);
  CHECK(t.timeouts() == 2);
  CHECK(t.circuit_opened());
  CHECK(event_names(t) == std::vector<std::string>{"attempt_failed", "backoff", "attempt_failed",
                                                    "circuit_opened", "fallback_used"});
  const auto wait = *t.events[1].wait_ms;
  CHECK(wait == 110);                                      // 80 + 30 ms of jitter (the fixed draw)
  CHECK(rig.clock.sleeps() == std::vector<milliseconds>{milliseconds(wait)});
  CHECK(t.elapsed_ms == doctest::Approx(220 + wait + 220));
  REQUIRE(t.answer.has_value());
  CHECK(t.answer->fallback);
  CHECK(t.answer->seed);                                   // no live quote was ever cached
  CHECK(t.dependency.state == BreakerState::open);
}

TEST_CASE("the class sequence: once open, the next call is short-circuited with 0 attempts") {
  Rig rig;
  rig.run(Mode::resilient, "a");
  const QuoteTrace t = rig.run(Mode::resilient, "b");
  CHECK(t.attempts() == 0);
  CHECK(t.status == QuoteStatus::degraded);
  CHECK(event_names(t) == std::vector<std::string>{"short_circuit", "fallback_used"});
  CHECK(t.outcomes() == std::vector<AttemptOutcome>{AttemptOutcome::short_circuit});
  CHECK(t.elapsed_ms == 0);                                // no carrier call, no wait
  CHECK(rig.carrier.requests().size() == 2);               // only the first flow reached it
}

TEST_CASE("flaky carrier: the retry helps, and the same Idempotency-Key goes with every attempt") {
  Rig rig;
  rig.carrier.fail(CallError::timeout, 220).succeed(170);
  const QuoteTrace t = rig.run(Mode::resilient, "req-flaky");
  CHECK(t.status == QuoteStatus::completed);
  CHECK(t.attempts() == 2);
  REQUIRE(t.answer);
  CHECK_FALSE(t.answer->fallback);
  const auto sent = rig.carrier.requests();
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].request_id == "req-flaky");
  CHECK(sent[1].request_id == "req-flaky");
  CHECK(sent[0].attempt == 1);
  CHECK(sent[1].attempt == 2);
  CHECK(sent[0].timeout == milliseconds(220));
  CHECK(rig.breaker.snapshot().consecutive_failures == 0);
}

TEST_CASE("the fallback is the last live quote for that customer and item count") {
  Rig rig;
  rig.carrier.succeed(130);
  const QuoteTrace live = rig.run(Mode::resilient, "live", 7, 2);
  rig.clock.advance(milliseconds(5000));
  const QuoteTrace fb = rig.run(Mode::resilient, "down", 7, 2);
  REQUIRE(live.answer);
  REQUIRE(fb.answer);
  CHECK(fb.answer->quote.quote_id == live.answer->quote.quote_id);
  CHECK_FALSE(fb.answer->seed);
  // Cached, then 5 s, then the failed flow (220 + 110 + 220 ms): 5.55 s, shown to a tenth.
  CHECK(fb.answer->age_s == doctest::Approx(5.6));
  const QuoteTrace other = rig.run(Mode::resilient, "other", 8, 2);
  REQUIRE(other.answer);
  CHECK(other.answer->seed);                               // a different key has no live quote
}

TEST_CASE("a carrier 4xx is our fault: not retried, not a breaker failure") {
  Rig rig;
  rig.carrier.fail(CallError::http_4xx, 20);
  const QuoteTrace t = rig.run(Mode::legacy);
  CHECK(t.attempts() == 1);
  CHECK(event_names(t) == std::vector<std::string>{"attempt_failed", "retry_skipped"});
  CHECK(t.events[1].reason == Reason::not_retryable);
  rig.carrier.fail(CallError::http_4xx, 20);
  rig.run(Mode::resilient);
  CHECK(rig.breaker.snapshot().consecutive_failures == 0);
}

TEST_CASE("5xx and 429 are carrier failures the breaker counts") {
  Rig rig;
  rig.carrier.fail(CallError::http_5xx, 30).fail(CallError::http_429, 30);
  const QuoteTrace t = rig.run(Mode::resilient);
  CHECK(t.timeouts() == 0);
  CHECK(t.events[0].reason == Reason::http_5xx);
  CHECK(t.events[2].reason == Reason::http_429);
  CHECK(t.dependency.state == BreakerState::open);
}

TEST_CASE("after the cooldown one probe goes through, success closes the breaker") {
  Rig rig;
  rig.run(Mode::resilient, "a");
  rig.clock.advance(std::chrono::seconds(30));
  rig.carrier.succeed(140);
  const QuoteTrace t = rig.run(Mode::resilient, "probe");
  CHECK(event_names(t) == std::vector<std::string>{"half_open_probe", "attempt_success"});
  CHECK(t.status == QuoteStatus::completed);
  CHECK(t.dependency.state == BreakerState::closed);
}

TEST_CASE("a failed probe reopens the breaker and the retry is skipped") {
  Rig rig;
  rig.run(Mode::resilient, "a");
  rig.clock.advance(std::chrono::seconds(30));
  const QuoteTrace t = rig.run(Mode::resilient, "probe");
  CHECK(t.attempts() == 1);
  CHECK(event_names(t) == std::vector<std::string>{"half_open_probe", "attempt_failed", "circuit_opened",
                                                    "retry_skipped", "fallback_used"});
  CHECK(t.events[3].reason == Reason::circuit_open);
  CHECK(t.dependency.state == BreakerState::open);
}

TEST_CASE("when a failure opens the breaker, the flow's remaining attempts are skipped") {
  Rig rig;
  rig.policies.resilient.max_attempts = 4;
  // A breaker that opens after 1 failure.
  CircuitBreaker breaker{"carrier", BreakerPolicy{1, 30}, rig.clock};
  QuoteExecutor executor{rig.carrier, breaker, rig.cache, rig.clock, rig.random};
  const QuoteTrace t = executor.run({"resilient", "provider_down", 42, 3, "x", "y"}, rig.policies.resilient);
  CHECK(t.attempts() == 1);
  CHECK(event_names(t) == std::vector<std::string>{"attempt_failed", "circuit_opened", "retry_skipped",
                                                    "fallback_used"});
}

TEST_CASE("legacy keeps no fallback cache: its live quotes are not served by resilient later") {
  Rig rig;
  rig.carrier.succeed(130);
  rig.run(Mode::legacy, "legacy-live");
  const QuoteTrace fb = rig.run(Mode::resilient, "down");
  REQUIRE(fb.answer);
  CHECK(fb.answer->seed);
}

namespace {
// A clock whose waits let other clients act: while this flow backs off, they open the breaker.
class OthersFailDuringBackoff final : public Clock {
 public:
  OthersFailDuringBackoff(FakeClock& clock, CircuitBreaker& breaker) : clock_(clock), breaker_(breaker) {}
  SteadyTime now() const override { return clock_.now(); }
  WallTime wall_now() const override { return clock_.wall_now(); }
  void sleep_for(Millis d) override {
    clock_.sleep_for(d);
    for (int i = 0; i < 2; ++i)
      if (auto p = breaker_.try_acquire().permit) breaker_.record(*p, true, "timeout", 220);
  }

 private:
  FakeClock& clock_;
  CircuitBreaker& breaker_;
};
}  // namespace

TEST_CASE("a retry the breaker refuses is a short circuit, one skipped because our own failure opened it is not") {
  Rig rig;
  OthersFailDuringBackoff clock{rig.clock, rig.breaker};
  QuoteExecutor executor{rig.carrier, rig.breaker, rig.cache, clock, rig.random};
  const QuoteTrace refused = executor.run({"resilient", "provider_down", 42, 3, "r", "t"}, rig.policies.resilient);
  CHECK(event_names(refused) == std::vector<std::string>{"attempt_failed", "backoff", "retry_skipped", "fallback_used"});
  CHECK(refused.events[2].reason == Reason::circuit_open);
  CHECK(refused.events[3].attempt == 2);                   // the fallback belongs to the refused slot
  CHECK(refused.outcomes() == std::vector<AttemptOutcome>{AttemptOutcome::timeout, AttemptOutcome::short_circuit});
  CHECK(refused.attempts() == 1);
  CHECK(refused.short_circuits() == 1);
  CHECK_FALSE(refused.short_circuited());                  // the carrier was called once

  Rig fresh;
  const QuoteTrace opened = fresh.run(Mode::resilient);     // its own 2 failures open the breaker
  CircuitBreaker once{"carrier", BreakerPolicy{1, 30}, fresh.clock};
  QuoteExecutor by_itself{fresh.carrier, once, fresh.cache, fresh.clock, fresh.random};
  const QuoteTrace skipped = by_itself.run({"resilient", "provider_down", 42, 3, "s", "t"}, fresh.policies.resilient);
  CHECK(event_names(skipped) == std::vector<std::string>{"attempt_failed", "circuit_opened", "retry_skipped", "fallback_used"});
  CHECK(skipped.outcomes() == std::vector<AttemptOutcome>{AttemptOutcome::timeout});
  CHECK(skipped.short_circuits() == 0);
  CHECK(opened.short_circuits() == 0);
}

TEST_CASE("once the lab is stopping, a flow makes no further attempt: it cannot open the breaker") {
  Rig rig;
  std::stop_source shutdown;
  QuoteExecutor executor{rig.carrier, rig.breaker, rig.cache, rig.clock, rig.random, shutdown.get_token()};
  shutdown.request_stop();  // the attempt in flight when the signal came still ends normally

  SUBCASE("resilient: one attempt, no backoff wait, the fallback") {
    const QuoteTrace t = executor.run({"resilient", "provider_down", 42, 3, "req-1", "trace-1"}, rig.policies.resilient);
    CHECK(t.attempts() == 1);
    CHECK(event_names(t) == std::vector<std::string>{"attempt_failed", "retry_skipped", "fallback_used"});
    CHECK(t.events[1].attempt == 2);
    CHECK(t.events[1].reason == Reason::shutting_down);
    CHECK(t.status == QuoteStatus::degraded);
    CHECK(rig.clock.sleeps().empty());
    CHECK(rig.breaker.snapshot().state == BreakerState::closed);  // 1 failure of the 2 that open it
  }
  SUBCASE("legacy: one attempt instead of four, then failed") {
    const QuoteTrace t = executor.run({"legacy", "provider_down", 42, 3, "req-1", "trace-1"}, rig.policies.legacy);
    CHECK(t.attempts() == 1);
    CHECK(event_names(t) == std::vector<std::string>{"attempt_failed", "retry_skipped"});
    CHECK(t.status == QuoteStatus::failed);
    CHECK(t.elapsed_ms == doctest::Approx(360));
  }
}

}  // namespace test_quote_executor
