// The AWS SDKs' retry quota (retry_quota.hpp): botocore's own unit tests for it
// (tests/unit/retries/test_quota.py, and test_standard.py's TestRetryQuotaChecker) with the
// same numbers, then the quota inside aws_adaptive's pipeline on a fake clock: what it does to
// a carrier that refuses everything, and how answers refill it.
#include <doctest/doctest.h>

#include <stdexcept>

#include "lab/resilience/overload/cubic_rate_limiter.hpp"
#include "lab/resilience/policy.hpp"
#include "lab/resilience/retry_quota.hpp"
#include "support/executor_rig.hpp"

namespace test_retry_quota {

using namespace quote_lab;
using namespace quote_lab::testing;

TEST_CASE("botocore test_quota.py: a quota of 50 takes 5 to 45, gives it back, never passes 50 nor goes below zero") {
  RetryQuota quota(RetryQuotaSettings{.capacity = 50});
  CHECK(quota.acquire(5));
  CHECK(quota.available() == 45);
  quota.release(5);
  CHECK(quota.available() == 50);
  CHECK(quota.acquire(5));
  quota.release(10);  // test_cant_exceed_max_capacity
  CHECK(quota.available() == 50);
  quota.release(10);  // test_noop_if_at_max_capacity
  CHECK(quota.available() == 50);
  CHECK(quota.acquire(49));  // test_cant_go_below_zero
  CHECK(quota.available() == 1);
  CHECK_FALSE(quota.acquire(10));
  CHECK(quota.available() == 1);
}

TEST_CASE("botocore TestRetryQuotaChecker: 5 per retry, 10 after a timeout, the last cost back on a success, 1 for a first-try success") {
  RetryQuota quota(RetryQuotaSettings{});  // botocore's 500
  CHECK(quota.capacity() == 500);
  CHECK(quota.retry_cost(CallError::connect_error) == 5);
  CHECK(quota.retry_cost(CallError::http_5xx) == 5);
  CHECK(quota.retry_cost(CallError::http_429) == 5);
  CHECK(quota.retry_cost(CallError::timeout) == 10);
  // test_can_release_quota_based_on_context_value_on_success
  CHECK(quota.acquire(quota.retry_cost(CallError::http_5xx)));
  CHECK(quota.available() == 495);
  quota.on_success(5);
  CHECK(quota.available() == 500);
  // test_dont_release_quota_if_all_retries_failed: a failed flow calls nothing back
  CHECK(quota.acquire(5));
  CHECK(quota.available() == 495);
  // test_can_release_default_quota_if_not_in_context: a success with no retry gives 1
  quota.on_success(std::nullopt);
  CHECK(quota.available() == 496);
  // test_acquire_quota_fails and test_quota_reached: a quota of 5 pays one retry; of 0, none
  RetryQuota five(RetryQuotaSettings{.capacity = 5});
  CHECK(five.acquire(five.retry_cost(CallError::http_5xx)));
  CHECK_FALSE(five.acquire(five.retry_cost(CallError::http_5xx)));
  RetryQuota none(RetryQuotaSettings{.capacity = 0});
  CHECK_FALSE(none.acquire(5));
  CHECK_THROWS_AS(RetryQuota(RetryQuotaSettings{.capacity = -1}), std::invalid_argument);
  CHECK_THROWS_AS(RetryQuota(RetryQuotaSettings{.retry_cost = -5}), std::invalid_argument);
}

namespace {
QuoteRequest offline() { return QuoteRequest{"aws_adaptive", "carrier_offline", 42, 3, "r", "t", "", Priority::critical}; }
}  // namespace

TEST_CASE("aws_adaptive on carrier_offline: 120 quotes pay for 100 retries, the quota's 500 at 5 each, then try once") {
  ExecutorRig rig;
  const RetryPolicy policy = aws_adaptive_policy().retry;
  RetryQuota quota(policy.overload.retry_quota);
  CubicRateLimiter rate(rig.clock);
  int retries_refused = 0;
  for (int i = 0; i < 120; ++i) {
    for (int call = 0; call < 3; ++call) rig.carrier.fail(CallError::connect_error, 1);
    const QuoteTrace t = rig.executor.run(offline(), policy, FlowGuards{}.lend(Strategy::retry_quota, &quota).lend(Strategy::adaptive_retry, &rate));
    CHECK(t.status == QuoteStatus::degraded);  // the fallback answers every one
    if (i < 50) {
      CHECK(t.attempts() == 3);
    } else {
      CHECK(t.attempts() == 1);
      CHECK(event_names(t) == std::vector<std::string>{"attempt_failed", "retry_skipped", "fallback_used"});
      CHECK(t.events[1].reason == Reason::retry_quota);
      CHECK(t.events[1].attempt == 2);
      ++retries_refused;
    }
    rig.clock.advance(Millis(50));
  }
  const int calls = static_cast<int>(rig.carrier.requests().size());
  CHECK(calls - 120 == 100);  // retries: botocore pays for 500 / 5
  CHECK(retries_refused == 70);
  CHECK(quota.available() == 0);
}

TEST_CASE("aws_adaptive's quota refills as botocore's: +1 a first-try success, the last retry's cost back after a retried one") {
  ExecutorRig rig;
  const RetryPolicy policy = aws_adaptive_policy().retry;
  RetryQuota quota(policy.overload.retry_quota);
  const FlowGuards guards = FlowGuards{}.lend(Strategy::retry_quota, &quota);
  // Two timeouts' retries cost 10 each: 25 flows that fail three times empty it.
  for (int i = 0; i < 25; ++i) {
    rig.carrier.fail(CallError::timeout, 220).fail(CallError::timeout, 220).fail(CallError::timeout, 220);
    rig.executor.run(offline(), policy, guards);
  }
  CHECK(quota.available() == 0);
  // Ten first-try answers: 1 each.
  for (int i = 0; i < 10; ++i) {
    rig.carrier.succeed(5);
    CHECK(rig.executor.run(offline(), policy, guards).status == QuoteStatus::completed);
  }
  CHECK(quota.available() == 10);
  // A timeout, then an answer: the retry pays 10 and gets it back.
  rig.carrier.fail(CallError::timeout, 220).succeed(5);
  const QuoteTrace retried = rig.executor.run(offline(), policy, guards);
  CHECK(retried.attempts() == 2);
  CHECK(retried.status == QuoteStatus::completed);
  CHECK(quota.available() == 10);
  // Two refusals, then an answer: 5 + 5 paid, the last 5 back (botocore keeps only the last).
  rig.carrier.fail(CallError::connect_error, 1).fail(CallError::connect_error, 1).succeed(5);
  CHECK(rig.executor.run(offline(), policy, guards).attempts() == 3);
  CHECK(quota.available() == 5);
  // A timeout now costs more than is left: no retry, reason retry_quota, and nothing back.
  rig.carrier.fail(CallError::timeout, 220);
  const QuoteTrace refused = rig.executor.run(offline(), policy, guards);
  CHECK(event_names(refused) == std::vector<std::string>{"attempt_failed", "retry_skipped", "fallback_used"});
  CHECK(refused.events[1].reason == Reason::retry_quota);
  CHECK(quota.available() == 5);
}

TEST_CASE("a paid retry whose call never leaves gives its payment back: refused by adaptive retry's pacing") {
  ExecutorRig rig;
  const RetryPolicy policy = aws_adaptive_policy().retry;
  RetryQuota quota(policy.overload.retry_quota);
  CubicRateLimiter rate(rig.clock);
  // A 429 turns the pacing on at 0.5 a second: the retry's token is 2 s away, past its 1 s.
  rig.carrier.fail(CallError::http_429, 5);
  const QuoteTrace t = rig.executor.run(offline(), policy, FlowGuards{}.lend(Strategy::retry_quota, &quota).lend(Strategy::adaptive_retry, &rate));
  CHECK(event_names(t) == std::vector<std::string>{"attempt_failed", "backoff", "rejected", "fallback_used"});
  CHECK(t.rejected() == Reason::client_rate_limited);
  CHECK(rig.carrier.requests().size() == 1);
  CHECK(quota.available() == 500);  // the 5 it paid came back: the carrier never saw that retry
}

namespace {
// The rig's fake clock, but its waits end because the client left: the first wait requests
// `leave` and returns at once, as a real wait ends when the client's socket closes.
class LeavingClock final : public Clock {
 public:
  LeavingClock(FakeClock& inner, std::stop_source& leave) : inner_(inner), leave_(leave) {}
  SteadyTime now() const override { return inner_.now(); }
  WallTime wall_now() const override { return inner_.wall_now(); }
  void sleep_for(Millis d) override { inner_.sleep_for(d); }
  bool sleep_unless_stopped(Millis, std::stop_token) override {
    leave_.request_stop();
    return false;
  }

 private:
  FakeClock& inner_;
  std::stop_source& leave_;
};
}  // namespace

TEST_CASE("a paid retry whose call never leaves gives its payment back: the client left during its backoff") {
  ExecutorRig rig;
  std::stop_source leave;
  LeavingClock clock(rig.clock, leave);
  QuoteExecutor executor(rig.carrier, rig.breaker, rig.cache, clock, rig.random);
  const RetryPolicy policy = aws_adaptive_policy().retry;
  RetryQuota quota(policy.overload.retry_quota);
  QuoteRequest request = offline();
  request.cancel = leave.get_token();
  rig.carrier.fail(CallError::timeout, 220);
  const QuoteTrace t = executor.run(request, policy, FlowGuards{}.lend(Strategy::retry_quota, &quota));
  CHECK(event_names(t) == std::vector<std::string>{"attempt_failed", "backoff", "cancelled"});
  CHECK(rig.carrier.requests().size() == 1);
  CHECK(quota.available() == 500);  // the 10 the retry paid after the timeout came back
}

}  // namespace test_retry_quota
