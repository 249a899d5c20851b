// A pipeline runs in the order its policy lists it (strategy.hpp, quote_executor.hpp): the
// same strategies written in another order do something else, and the trace shows which.
// Exact on the fake clock: the scripted carrier times out every unscripted call.
#include <doctest/doctest.h>

#include "lab/resilience/overload/adaptive_throttle.hpp"
#include "support/executor_rig.hpp"

namespace test_pipeline_order {

using namespace quote_lab;
using namespace quote_lab::testing;

namespace {

QuoteRequest request() { return QuoteRequest{"mine", "provider_down", 42, 3, "r", "t", "", Priority::critical}; }

// resilient's numbers (220 ms × 2, backoff, the course breaker, fallback) in `order`.
RetryPolicy resilient_in(std::vector<Strategy> order, int deadline_ms = 0) {
  RetryPolicy p = default_policies().resilient;
  p.deadline_ms = deadline_ms;
  p.mode = "mine";
  p.pipeline = std::move(order);
  std::vector<std::string> problems;
  validate(p, problems);
  REQUIRE(problems.empty());
  return p;
}

}  // namespace

TEST_CASE("a fallback written inside the retry answers from the cache after the first failure: no retry is made") {
  ExecutorRig rig;
  const QuoteTrace inside = rig.executor.run(request(), resilient_in({Strategy::retry, Strategy::fallback, Strategy::timeout}));
  CHECK(event_names(inside) == std::vector<std::string>{"attempt_failed", "fallback_used"});
  CHECK(inside.status == QuoteStatus::degraded);
  CHECK(rig.carrier.requests().size() == 1);

  ExecutorRig shipped;  // the same strategies in resilient's order: the retry runs inside the fallback
  const QuoteTrace outside =
      shipped.executor.run(request(), resilient_in({Strategy::fallback, Strategy::retry, Strategy::timeout}));
  CHECK(event_names(outside) == std::vector<std::string>{"attempt_failed", "backoff", "attempt_failed", "fallback_used"});
  CHECK(shipped.carrier.requests().size() == 2);
}

TEST_CASE("a breaker written around the retry records one outcome per quote: two failed quotes open it, not one") {
  ExecutorRig rig;
  const RetryPolicy around =
      resilient_in({Strategy::fallback, Strategy::circuit_breaker, Strategy::retry, Strategy::timeout});
  const QuoteTrace first = rig.executor.run(request(), around);
  CHECK(event_names(first) == std::vector<std::string>{"attempt_failed", "backoff", "attempt_failed", "fallback_used"});
  CHECK(rig.breaker.snapshot().state == BreakerState::closed);
  CHECK(rig.breaker.snapshot().consecutive_failures == 1);
  const QuoteTrace second = rig.executor.run(request(), around);
  CHECK(event_names(second) ==
        std::vector<std::string>{"attempt_failed", "backoff", "attempt_failed", "circuit_opened", "fallback_used"});
  const QuoteTrace third = rig.executor.run(request(), around);
  CHECK(event_names(third) == std::vector<std::string>{"short_circuit", "fallback_used"});
  CHECK(rig.carrier.requests().size() == 4);

  ExecutorRig shipped;  // resilient's order: the breaker inside the retry counts each attempt
  const QuoteTrace once = shipped.executor.run(
      request(), resilient_in({Strategy::fallback, Strategy::retry, Strategy::circuit_breaker, Strategy::timeout}));
  CHECK(event_names(once) ==
        std::vector<std::string>{"attempt_failed", "backoff", "attempt_failed", "circuit_opened", "fallback_used"});
  CHECK(shipped.breaker.snapshot().state == BreakerState::open);
}

TEST_CASE("a gate written around the retry is asked once per quote, inside it once per attempt") {
  for (const bool around : {true, false}) {
    ExecutorRig rig;
    AdaptiveThrottle throttle(rig.clock, rig.random);
    const RetryPolicy p = resilient_in(around ? std::vector<Strategy>{Strategy::fallback, Strategy::adaptive_throttle,
                                                               Strategy::retry, Strategy::timeout}
                                        : std::vector<Strategy>{Strategy::fallback, Strategy::retry,
                                                               Strategy::adaptive_throttle, Strategy::timeout});
    rig.executor.run(request(), p, FlowGuards{}.lend(Strategy::adaptive_throttle, &throttle));
    CHECK(rig.carrier.requests().size() == 2);
    // Around the retry it hears the quote's outcome (its last attempt's); inside, each attempt's.
    CHECK(throttle.stats().requests == (around ? 1u : 2u));
    CHECK(throttle.stats().accepts == 0u);
  }
}

TEST_CASE("a deadline written inside the retry gives each attempt the whole deadline again") {
  for (const bool inside : {true, false}) {
    ExecutorRig rig;
    RetryPolicy p = resilient_in(inside ? std::vector<Strategy>{Strategy::retry, Strategy::deadline, Strategy::timeout}
                                        : std::vector<Strategy>{Strategy::deadline, Strategy::retry, Strategy::timeout},
                                 100);
    const QuoteTrace t = rig.executor.run(request(), p);
    if (inside) {
      CHECK(event_names(t) == std::vector<std::string>{"attempt_failed", "backoff", "attempt_failed"});
      CHECK(t.events[2].elapsed_ms == 100);
    } else {
      CHECK(event_names(t) == std::vector<std::string>{"attempt_failed", "retry_skipped"});
      CHECK(t.events[1].reason == Reason::deadline);
    }
    CHECK(t.events[0].elapsed_ms == 100);
    CHECK(t.events[0].reason == Reason::timeout);
  }
}

}  // namespace test_pipeline_order
