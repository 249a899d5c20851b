#include <doctest/doctest.h>

#include <atomic>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "lab/resilience/overload/gradient_concurrency_limit.hpp"
#include "support/fake_clock.hpp"
#include "support/fixed_random.hpp"

namespace test_gradient_concurrency_limit {

using namespace quote_lab;
using quote_lab::testing::FakeClock;
using quote_lab::testing::FixedRandom;
using std::chrono::milliseconds;

/// `n` calls one after the other, each taking `rtt`.
void sequential_calls(GradientConcurrencyLimit& limit, FakeClock& clock, int n, milliseconds rtt) {
  for (int i = 0; i < n; ++i) {
    std::optional<ConcurrencyPermit> permit = limit.try_acquire();
    REQUIRE(permit);
    clock.advance(rtt);
    permit->release();
  }
}

/// `n` calls at once, all taking `rtt`.
void parallel_calls(GradientConcurrencyLimit& limit, FakeClock& clock, int n, milliseconds rtt) {
  std::vector<ConcurrencyPermit> permits;
  for (int i = 0; i < n; ++i) {
    std::optional<ConcurrencyPermit> permit = limit.try_acquire();
    REQUIRE(permit);
    permits.push_back(std::move(*permit));
  }
  clock.advance(rtt);
  permits.clear();  // each records rtt as it is destroyed
}

GradientLimitSettings figure_settings() {
  return {.initial_limit = 100, .min_rtt_request_count = 5, .jitter_pct = 0, .buffer_pct = 0};
}

TEST_CASE("the formula: limit 100, minRTT 100 ms, sampleRTT 200 ms, no buffer") {
  GradientLimitSettings s = figure_settings();
  SUBCASE("Envoy's docs and Netflix's Gradient2: 0.5 × 100 + √100 = 60") {
    CHECK(gradient_next_limit(100, 100, 200, s) == 60);
  }
  SUBCASE("Envoy's gradient_controller.cc, the root of the scaled limit: 50 + √50 = 57") {
    s.headroom = GradientHeadroom::sqrt_scaled_limit;
    CHECK(gradient_next_limit(100, 100, 200, s) == 57);
  }
  SUBCASE("the gradient is clamped to [0.5, 2]: a sampleRTT 10× minRTT still halves, no more") {
    CHECK(gradient_next_limit(100, 100, 1000, s) == 60);
    CHECK(gradient_next_limit(100, 100, 10, s) == 210);  // 2 × 100 + 10
  }
  SUBCASE("Envoy's default buffer of 25 %: (125 / 200) × 100 + 10 = 72.5 → 72") {
    s.buffer_pct = 25;
    CHECK(gradient_next_limit(100, 100, 200, s) == 72);
  }
  SUBCASE("the result stays within [min_concurrency, max_limit]") {
    CHECK(gradient_next_limit(3, 100, 1000, s) == 3);       // 1.5 + 1.73 = 3.2 → 3
    CHECK(gradient_next_limit(1, 100, 1000, s) == 3);       // 0.5 + 1 = 1.5 → min_concurrency 3
    CHECK(gradient_next_limit(900, 100, 10, s) == 1000);    // 1800 + 30 → max 1000
  }
}

TEST_CASE("the controller, narrated: minRTT measured at min concurrency, then the limit follows the RTT") {
  FakeClock clock;
  FixedRandom random(0.5);
  GradientConcurrencyLimit limit(clock, random, figure_settings());
  // At start Envoy measures minRTT: the limit is pinned to min_concurrency (3).
  GradientLimitStats s = limit.stats();
  CHECK(s.measuring_min_rtt);
  CHECK(s.limit == 3);
  // 5 calls of 100 ms (min_rtt_request_count): minRTT = 100 ms, the limit back to 100.
  sequential_calls(limit, clock, 5, milliseconds(100));
  s = limit.stats();
  CHECK_FALSE(s.measuring_min_rtt);
  CHECK(s.min_rtt_ms == 100.0);
  CHECK(s.limit == 100);
  // The carrier slows down: 4 calls take 200 ms. The next update (every 100 ms) reads p50 = 200.
  parallel_calls(limit, clock, 4, milliseconds(200));
  clock.advance(milliseconds(100));
  s = limit.stats();
  CHECK(s.sample_rtt_ms == 200.0);
  CHECK(s.gradient == 0.5);
  CHECK(s.limit == 60);  // 0.5 × 100 + √100
  // Still 200 ms: 0.5 × 60 + √60 = 37.7 → 37.
  parallel_calls(limit, clock, 4, milliseconds(200));
  clock.advance(milliseconds(100));
  CHECK(limit.stats().limit == 37);
  // Back to 100 ms: gradient 1, the headroom grows it: 37 + √37 = 43.08 → 43.
  parallel_calls(limit, clock, 4, milliseconds(100));
  clock.advance(milliseconds(100));
  CHECK(limit.stats().limit == 43);
}

TEST_CASE("over the limit a call is rejected at once, and in-flight never passes the limit") {
  FakeClock clock;
  FixedRandom random(0.5);
  GradientConcurrencyLimit limit(clock, random, figure_settings());
  std::vector<ConcurrencyPermit> held;
  for (int i = 0; i < 3; ++i) held.push_back(std::move(*limit.try_acquire()));
  CHECK_FALSE(limit.try_acquire());  // min_concurrency 3 while measuring: the 4th is refused
  CHECK_FALSE(limit.try_acquire());
  GradientLimitStats s = limit.stats();
  CHECK(s.in_flight == 3);
  CHECK(s.rejected == 2);
  held.pop_back();                   // one finishes: room for one
  CHECK(limit.try_acquire());
}

TEST_CASE("many threads: in flight never above the limit (max 8), every permit returned") {
  FakeClock clock;
  FixedRandom random(0.5);
  GradientConcurrencyLimit limit(clock, random,
                                 {.initial_limit = 8, .max_limit = 8, .min_rtt_request_count = 5, .jitter_pct = 0});
  std::atomic<int> inside{0};
  std::atomic<int> peak{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        std::optional<ConcurrencyPermit> permit = limit.try_acquire();
        if (!permit) continue;
        const int now_inside = ++inside;
        int seen = peak.load();
        while (now_inside > seen && !peak.compare_exchange_weak(seen, now_inside)) {
        }
        clock.advance(milliseconds(1));
        --inside;
        permit->release();
      }
    });
  for (auto& th : threads) th.join();
  CHECK(peak.load() <= 8);
  CHECK(limit.stats().in_flight == 0);
}

TEST_CASE("minRTT is measured again every interval on the clock, plus Envoy's jitter") {
  FakeClock clock;
  SUBCASE("no jitter: exactly 60 s after the last measurement ended") {
    FixedRandom random(0.5);
    GradientConcurrencyLimit limit(clock, random, figure_settings());
    sequential_calls(limit, clock, 5, milliseconds(100));
    clock.advance(milliseconds(59'999));
    CHECK_FALSE(limit.stats().measuring_min_rtt);
    clock.advance(milliseconds(1));
    GradientLimitStats s = limit.stats();
    CHECK(s.measuring_min_rtt);
    CHECK(s.limit == 3);  // pinned while measuring
    sequential_calls(limit, clock, 5, milliseconds(150));
    s = limit.stats();
    CHECK_FALSE(s.measuring_min_rtt);
    CHECK(s.min_rtt_ms == 150.0);
    CHECK(s.limit == 100);  // what it was before the window
  }
  SUBCASE("15 % jitter with a draw of 0.5: 60 s + 0.5 × 9 s = 64.5 s") {
    FixedRandom random(0.5);
    GradientLimitSettings settings = figure_settings();
    settings.jitter_pct = 15;
    GradientConcurrencyLimit limit(clock, random, settings);
    sequential_calls(limit, clock, 5, milliseconds(100));
    clock.advance(milliseconds(64'499));
    CHECK_FALSE(limit.stats().measuring_min_rtt);
    clock.advance(milliseconds(1));
    CHECK(limit.stats().measuring_min_rtt);
  }
}

TEST_CASE("samples that do not describe the carrier under the limit are not taken") {
  FakeClock clock;
  FixedRandom random(0.5);
  GradientConcurrencyLimit limit(clock, random, figure_settings());
  SUBCASE("a cancelled permit (the carrier was never called) gives no sample") {
    for (int i = 0; i < 5; ++i) limit.try_acquire()->cancel();
    CHECK(limit.stats().measuring_min_rtt);
    sequential_calls(limit, clock, 5, milliseconds(100));
    CHECK_FALSE(limit.stats().measuring_min_rtt);
  }
  SUBCASE("a call admitted before the minRTT window started is left out of it") {
    sequential_calls(limit, clock, 5, milliseconds(100));
    std::optional<ConcurrencyPermit> old_call = limit.try_acquire();
    clock.advance(milliseconds(60'000));
    CHECK(limit.stats().measuring_min_rtt);
    old_call->release();  // 60 s: would make minRTT absurd
    sequential_calls(limit, clock, 5, milliseconds(120));
    CHECK(limit.stats().min_rtt_ms == 120.0);
  }
}

TEST_CASE("five updates in a row at min concurrency start a new minRTT measurement") {
  FakeClock clock;
  FixedRandom random(0.5);
  GradientLimitSettings settings = figure_settings();
  settings.initial_limit = 3;
  GradientConcurrencyLimit limit(clock, random, settings);
  sequential_calls(limit, clock, 5, milliseconds(100));
  for (int i = 0; i < 5; ++i) {
    CHECK_FALSE(limit.stats().measuring_min_rtt);
    parallel_calls(limit, clock, 3, milliseconds(1000));  // 10 × minRTT: 0.5 × 3 + √3 → 3
    clock.advance(milliseconds(100));
    CHECK(limit.stats().limit == 3);
  }
  clock.advance(milliseconds(100));
  CHECK(limit.stats().measuring_min_rtt);
}

TEST_CASE("settings out of range are refused, naming the setting") {
  FakeClock clock;
  FixedRandom random(0.5);
  CHECK_THROWS_WITH_AS(GradientConcurrencyLimit(clock, random, {.min_concurrency = 0}),
                       doctest::Contains("min_concurrency"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(GradientConcurrencyLimit(clock, random, {.initial_limit = 2000}),
                       doctest::Contains("initial_limit"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(GradientConcurrencyLimit(clock, random, {.jitter_pct = 101}), doctest::Contains("jitter_pct"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(GradientConcurrencyLimit(clock, random, {.sample_percentile = -1}),
                       doctest::Contains("sample_percentile"), std::invalid_argument);
}

TEST_CASE("a reset (the lab's) measures minRTT again from the initial limit, and calls in flight stay counted") {
  FakeClock clock;
  FixedRandom random(0.5);
  GradientConcurrencyLimit limit(clock, random, figure_settings());
  sequential_calls(limit, clock, 5, milliseconds(100));
  REQUIRE(limit.stats().limit == 100);
  std::optional<ConcurrencyPermit> held = limit.try_acquire();  // in flight across the reset
  limit.reset();
  GradientLimitStats s = limit.stats();
  CHECK(s.measuring_min_rtt);
  CHECK(s.limit == 3);  // min_concurrency while it measures
  CHECK(s.in_flight == 1);
  CHECK(s.min_rtt_ms == 0.0);
  CHECK(s.rejected == 0);
  clock.advance(milliseconds(900));
  held->release();  // admitted before the reset: no sample of the new measurement
  CHECK(limit.stats().in_flight == 0);
  sequential_calls(limit, clock, 5, milliseconds(50));
  s = limit.stats();
  CHECK_FALSE(s.measuring_min_rtt);
  CHECK(s.min_rtt_ms == 50.0);  // the 900 ms call left no sample
}

}  // namespace test_gradient_concurrency_limit
