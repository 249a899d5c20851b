#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

#include "lab/resilience/rate_limiter.hpp"
#include "support/fake_clock.hpp"

namespace test_rate_limiter {

using namespace quote_lab;
using quote_lab::testing::FakeClock;
using std::chrono::milliseconds;

TEST_CASE("a fresh client gets exactly `limit` requests, then 429 with the wait until the oldest leaves") {
  FakeClock clock;
  InProcessRateLimiter limiter(clock, {.limit = 3, .window_s = 10});
  const RateDecision first = limiter.admit("teacher|10.0.0.1");
  CHECK(first.allowed);
  CHECK(first.limit == 3);
  CHECK(first.window_s == 10);
  CHECK(first.remaining == 2);
  CHECK(first.retry_after_s == 0);
  clock.advance(milliseconds(2500));
  CHECK(limiter.admit("teacher|10.0.0.1").remaining == 1);
  CHECK(limiter.admit("teacher|10.0.0.1").remaining == 0);
  const RateDecision fourth = limiter.admit("teacher|10.0.0.1");  // 2.5 s after the first
  CHECK_FALSE(fourth.allowed);
  CHECK(fourth.remaining == 0);
  CHECK(fourth.retry_after_s == 8);  // the first leaves at 10 s: 7.5 s, rounded up
}

TEST_CASE("waiting exactly Retry-After is enough, and a refused request is not counted") {
  FakeClock clock;
  InProcessRateLimiter limiter(clock, {.limit = 2, .window_s = 10});
  CHECK(limiter.admit("c").allowed);      // t = 0
  clock.advance(milliseconds(4000));
  CHECK(limiter.admit("c").allowed);      // t = 4
  clock.advance(milliseconds(1000));
  for (int i = 0; i < 5; ++i) {            // t = 5: knocking does not push the wait back
    const RateDecision refused = limiter.admit("c");
    CHECK_FALSE(refused.allowed);
    CHECK(refused.retry_after_s == 5);
  }
  clock.advance(milliseconds(4999));
  CHECK(limiter.admit("c").retry_after_s == 1);  // 1 ms left: still a whole second
  clock.advance(milliseconds(1));
  CHECK(limiter.admit("c").allowed);      // t = 10: the first has left the window
  CHECK_FALSE(limiter.admit("c").allowed); // the one at t = 4 is still in it
}

TEST_CASE("a sliding window: never more than `limit` in any window, whatever the arrival times") {
  FakeClock clock;
  const int limit = 4;
  InProcessRateLimiter limiter(clock, {.limit = limit, .window_s = 1});
  std::vector<std::int64_t> admitted_ms;
  std::int64_t t_ms = 0;
  for (int i = 0; i < 400; ++i) {
    const int step = (i * 37) % 300;  // uneven gaps, 0 to 299 ms
    clock.advance(milliseconds(step));
    t_ms += step;
    if (limiter.admit("c").allowed) admitted_ms.push_back(t_ms);
  }
  REQUIRE(admitted_ms.size() > 100);
  for (std::size_t i = limit; i < admitted_ms.size(); ++i) {
    CHECK(admitted_ms[i] - admitted_ms[i - limit] >= 1000);  // limit+1 admissions span a window
  }
}

TEST_CASE("clients and labs are counted apart: the key is opaque") {
  FakeClock clock;
  InProcessRateLimiter limiter(clock, {.limit = 1, .window_s = 60});
  CHECK(limiter.admit("teacher|10.0.0.1").allowed);
  CHECK_FALSE(limiter.admit("teacher|10.0.0.1").allowed);
  CHECK(limiter.admit("teacher|10.0.0.2").allowed);
  CHECK(limiter.admit("ana|10.0.0.1").allowed);
}

TEST_CASE("memory: a class of 30 plus a storm of 500 clients is forgotten once idle for a window") {
  FakeClock clock;
  InProcessRateLimiter limiter(clock, {.limit = 5, .window_s = 60});
  for (int c = 0; c < 30; ++c) limiter.admit("class|" + std::to_string(c));
  for (int c = 0; c < 500; ++c) {
    for (int r = 0; r < 7; ++r) limiter.admit("storm|" + std::to_string(c));
  }
  CHECK(limiter.tracked_clients() == 530);
  CHECK(limiter.logged_times() == 30 + 500 * 5);  // refused requests are not logged
  clock.advance(milliseconds(30000));
  for (int c = 0; c < 30; ++c) limiter.admit("class|" + std::to_string(c));  // the class goes on
  clock.advance(milliseconds(30000));  // the storm's times have all left the window
  limiter.admit("class|0");
  CHECK(limiter.tracked_clients() == 30);
  // The storm's 2 500 times are gone; a class member's own old times go when it next asks
  // (class|0: t = 0 dropped; t = 30 and t = 60 kept; the other 29: t = 0 and t = 30).
  CHECK(limiter.logged_times() == 2 + 29 * 2);
}

TEST_CASE("memory: beyond the bounds the least recently seen client is dropped, never the caller") {
  FakeClock clock;
  SUBCASE("bounded by clients") {
    InProcessRateLimiter limiter(clock, {.limit = 3, .window_s = 60}, /*max_clients=*/100);
    for (int c = 0; c < 1000; ++c) limiter.admit("storm|" + std::to_string(c));
    CHECK(limiter.tracked_clients() == 100);
    limiter.admit("storm|999");
    limiter.admit("storm|999");
    CHECK_FALSE(limiter.admit("storm|999").allowed);  // the newest client kept its count
    CHECK(limiter.admit("storm|0").allowed);          // the oldest was dropped: starts afresh
  }
  SUBCASE("bounded by logged times") {
    InProcessRateLimiter limiter(clock, {.limit = 10, .window_s = 60}, 10'000, /*max_logged=*/25);
    for (int c = 0; c < 5; ++c) {
      for (int r = 0; r < 10; ++r) limiter.admit("c" + std::to_string(c));
    }
    CHECK(limiter.logged_times() <= 25);
    CHECK(limiter.tracked_clients() == 2);  // c3 (10) and c4 (10): c2 went when c4 passed 25
    CHECK_FALSE(limiter.admit("c4").allowed);
  }
}

TEST_CASE("settings out of range are refused at construction") {
  FakeClock clock;
  CHECK_THROWS_AS(InProcessRateLimiter(clock, {.limit = 0, .window_s = 60}), std::invalid_argument);
  CHECK_THROWS_AS(InProcessRateLimiter(clock, {.limit = 1, .window_s = 0}), std::invalid_argument);
  CHECK_THROWS_AS(InProcessRateLimiter(clock, {.limit = RateLimitSettings::kMaxLimit + 1, .window_s = 1}),
                  std::invalid_argument);
  CHECK_FALSE(RateLimitSettings{}.enabled());  // off by default
}

TEST_CASE("concurrent callers never admit more than the limit") {
  FakeClock clock;
  InProcessRateLimiter limiter(clock, {.limit = 50, .window_s = 60});
  std::atomic<int> admitted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i) {
        if (limiter.admit("shared").allowed) ++admitted;
        limiter.admit("own|" + std::to_string(t));
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(admitted.load() == 50);
  CHECK(limiter.tracked_clients() == 9);
}

}  // namespace test_rate_limiter
