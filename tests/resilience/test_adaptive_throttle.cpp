#include <doctest/doctest.h>

#include <deque>
#include <stdexcept>
#include <thread>
#include <vector>

#include "lab/resilience/overload/adaptive_throttle.hpp"
#include "support/fake_clock.hpp"
#include "support/fixed_random.hpp"

namespace test_adaptive_throttle {

using namespace quote_lab;
using quote_lab::testing::FakeClock;
using quote_lab::testing::FixedRandom;
using std::chrono::milliseconds;

/// Hands out the draws a test scripts, in order, and counts them.
class ScriptedRandom final : public RandomSource {
 public:
  explicit ScriptedRandom(std::deque<double> draws) : RandomSource(1), draws_(std::move(draws)) {}
  double uniform() override {
    ++calls;
    REQUIRE_FALSE(draws_.empty());
    const double u = draws_.front();
    draws_.pop_front();
    return u;
  }
  int calls = 0;

 private:
  std::deque<double> draws_;
};

void record_outcomes(AdaptiveThrottle& t, int requests, int accepted) {
  for (int i = 0; i < requests; ++i) t.record(i < accepted);
}

TEST_CASE("the published figures: go-zero's K 1.5 with 5 protected, and the SRE book's K 2") {
  FakeClock clock;
  FixedRandom random(0.5);
  SUBCASE("go-zero, 100 requests, 0 accepted: (100 − 5) / 101 = 94 %") {
    AdaptiveThrottle t(clock, random);
    record_outcomes(t, 100, 0);
    CHECK(t.drop_probability() == doctest::Approx(0.9406).epsilon(0.0001 / 0.9406));
    CHECK(t.drop_probability() == doctest::Approx(95.0 / 101.0));
  }
  SUBCASE("go-zero, 100 requests, 50 accepted: (100 − 5 − 75) / 101 = 19.8 %") {
    AdaptiveThrottle t(clock, random);
    record_outcomes(t, 100, 50);
    CHECK(t.drop_probability() == doctest::Approx(20.0 / 101.0));
    CHECK(t.drop_probability() == doctest::Approx(0.198).epsilon(0.0001 / 0.198));
  }
  SUBCASE("SRE book, K 2, no protection, 10 % success: (100 − 20) / 101 = 79 %") {
    AdaptiveThrottle t(clock, random, {.k = 2.0, .protection = 0});
    record_outcomes(t, 100, 10);
    CHECK(t.drop_probability() == doctest::Approx(0.792).epsilon(0.0001 / 0.792));
  }
  SUBCASE("a healthy backend: every request accepted, never a drop") {
    AdaptiveThrottle t(clock, random);
    record_outcomes(t, 1000, 1000);
    CHECK(t.drop_probability() == 0.0);
  }
}

TEST_CASE("the formula, pure: protection holds off the first failures, then p rises towards 1") {
  CHECK(throttle_drop_probability(0, 0, 1.5, 5) == 0.0);
  CHECK(throttle_drop_probability(5, 0, 1.5, 5) == 0.0);             // 5 failures: protected
  CHECK(throttle_drop_probability(6, 0, 1.5, 5) == doctest::Approx(1.0 / 7.0));
  CHECK(throttle_drop_probability(10'000, 0, 1.5, 5) < 1.0);        // never certain
  CHECK(throttle_drop_probability(100, 40, 2.0, 0) == doctest::Approx(20.0 / 101.0));
}

TEST_CASE("the window slides on the clock: once it has passed with no traffic, no drops") {
  FakeClock clock;  // starts at a whole bucket (1 h of steady time)
  FixedRandom random(0.5);
  AdaptiveThrottle t(clock, random);
  record_outcomes(t, 100, 0);
  CHECK(t.drop_probability() == doctest::Approx(95.0 / 101.0));
  clock.advance(milliseconds(5000));
  record_outcomes(t, 10, 0);                        // 110 requests in the window
  CHECK(t.stats().requests == 110);
  clock.advance(milliseconds(4999));                // 9.999 s: the first 100 are still in
  CHECK(t.stats().requests == 110);
  clock.advance(milliseconds(1));                   // 10 s: their bucket has left
  CHECK(t.stats().requests == 10);
  CHECK(t.drop_probability() == doctest::Approx(5.0 / 11.0));
  clock.advance(milliseconds(5000));                // 10 s after the last traffic
  CHECK(t.stats().requests == 0);
  CHECK(t.drop_probability() == 0.0);
}

TEST_CASE("admit draws once and drops exactly when the draw is below p, counting the drop as a request") {
  FakeClock clock;
  // After 100 failures p = 95/101. Each drop adds a request, so p climbs: 96/102, 97/103, ...
  struct Step {
    double u;
    double p_before;
    bool admitted;
  };
  const std::vector<Step> steps = {
      {0.0, 95.0 / 101.0, false},      // below p: dropped
      {0.95, 96.0 / 102.0, true},      // above p: admitted (counted later, by record)
      {96.0 / 102.0, 96.0 / 102.0, true},  // exactly p: admitted (drop only when u < p)
      {0.9411, 96.0 / 102.0, false},   // just below p = 0.94118: dropped
      {0.9417, 97.0 / 103.0, false},   // just below p = 0.94175: dropped
      {0.9424, 98.0 / 104.0, true},    // just above p = 0.94231: admitted
  };
  std::deque<double> draws;
  for (const Step& s : steps) draws.push_back(s.u);
  ScriptedRandom random(draws);
  AdaptiveThrottle t(clock, random);
  record_outcomes(t, 100, 0);
  for (const Step& s : steps) {
    CAPTURE(s.u);
    CHECK(t.drop_probability() == doctest::Approx(s.p_before));
    CHECK(t.admit() == s.admitted);
  }
  CHECK(random.calls == 6);             // one draw per admit
  const AdaptiveThrottleStats s = t.stats();
  CHECK(s.requests == 103);             // the 3 drops count as requests ...
  CHECK(s.accepts == 0);                // ... never as accepts
  CHECK(s.dropped == 3);
}

TEST_CASE("admit never draws while p is 0, and lets everything through") {
  FakeClock clock;
  ScriptedRandom random({});
  AdaptiveThrottle t(clock, random);
  record_outcomes(t, 5, 0);  // protected
  for (int i = 0; i < 20; ++i) CHECK(t.admit());
  CHECK(random.calls == 0);
  CHECK(t.stats().requests == 5);  // an admitted request counts when its outcome is recorded
}

TEST_CASE("settings out of range are refused, naming the setting") {
  FakeClock clock;
  FixedRandom random(0.5);
  CHECK_THROWS_WITH_AS(AdaptiveThrottle(clock, random, {.k = 0.9}), doctest::Contains("k must be"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(AdaptiveThrottle(clock, random, {.buckets = 0}), doctest::Contains("buckets"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(AdaptiveThrottle(clock, random, {.window_ms = 10'001}), doctest::Contains("window_ms"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(AdaptiveThrottle(clock, random, {.protection = -1}), doctest::Contains("protection"),
                       std::invalid_argument);
}

TEST_CASE("many threads recording at once lose no count") {
  FakeClock clock;
  FixedRandom random(0.99);
  AdaptiveThrottle t(clock, random);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&t] {
      for (int j = 0; j < 1000; ++j) {
        t.record(j % 2 == 0);
        (void)t.admit();
      }
    });
  for (auto& th : threads) th.join();
  const AdaptiveThrottleStats s = t.stats();
  CHECK(s.requests == 4000 + s.dropped);
  CHECK(s.accepts == 2000);
}

}  // namespace test_adaptive_throttle
