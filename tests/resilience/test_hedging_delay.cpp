#include <doctest/doctest.h>

#include <stdexcept>
#include <thread>
#include <vector>

#include "lab/resilience/overload/hedging_delay.hpp"

namespace test_hedging_delay {

using namespace quote_lab;

TEST_CASE("observed p95: the fixed delay until 20 latencies are in, then their 95th percentile") {
  HedgingDelay delay;  // p95 of the last 200, after 20, 300 ms before
  for (int i = 1; i <= 19; ++i) {
    delay.record_latency_ms(10.0 * i);
    CHECK(delay.delay_ms() == 300.0);
    CHECK_FALSE(delay.stats().observed);
  }
  delay.record_latency_ms(200.0);    // 20 samples: 10, 20, ..., 200
  CHECK(delay.stats().observed);
  CHECK(delay.delay_ms() == 190.0);  // the 19th of 20
}

TEST_CASE("the window is the most recent samples: an old slow spell leaves it") {
  HedgingDelay delay({.window_samples = 100, .min_samples = 20});
  for (int i = 0; i < 100; ++i) delay.record_latency_ms(900.0);
  CHECK(delay.delay_ms() == 900.0);
  for (int i = 0; i < 95; ++i) delay.record_latency_ms(120.0);
  CHECK(delay.delay_ms() == 120.0);  // 95 fast + 5 slow: the 95th of 100 is fast
  delay.record_latency_ms(120.0);
  CHECK(delay.stats().samples == 100);
  CHECK(delay.delay_ms() == 120.0);
}

TEST_CASE("fixed mode ignores the samples, and negative latencies are ignored") {
  HedgingDelay delay({.mode = HedgingDelayMode::fixed, .fixed_delay_ms = 250});
  for (int i = 0; i < 500; ++i) delay.record_latency_ms(900.0);
  CHECK(delay.delay_ms() == 250.0);
  HedgingDelay observed({.min_samples = 1});
  observed.record_latency_ms(-5.0);
  CHECK(observed.stats().samples == 0);
}

TEST_CASE("settings out of range are refused, naming the setting") {
  CHECK_THROWS_WITH_AS(HedgingDelay({.fixed_delay_ms = -1}), doctest::Contains("fixed_delay_ms"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(HedgingDelay({.percentile = 101}), doctest::Contains("percentile"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(HedgingDelay({.window_samples = 10, .min_samples = 20}), doctest::Contains("min_samples"),
                       std::invalid_argument);
}

TEST_CASE("recording from many threads keeps the window bounded") {
  HedgingDelay delay({.window_samples = 50, .min_samples = 10});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&delay] {
      for (int i = 0; i < 1000; ++i) {
        delay.record_latency_ms(100.0);
        (void)delay.delay_ms();
      }
    });
  for (auto& th : threads) th.join();
  CHECK(delay.stats().samples == 50);
  CHECK(delay.delay_ms() == 100.0);
}

TEST_CASE("a reset (the lab's) forgets the latencies: the fixed delay until min_samples again") {
  HedgingDelay delay({.mode = HedgingDelayMode::observed_percentile, .fixed_delay_ms = 300, .percentile = 90,
                      .window_samples = 100, .min_samples = 5});
  for (int i = 0; i < 5; ++i) delay.record_latency_ms(40.0);
  CHECK(delay.stats().observed);
  CHECK(delay.delay_ms() == 40.0);
  delay.reset();
  CHECK_FALSE(delay.stats().observed);
  CHECK(delay.stats().samples == 0);
  CHECK(delay.delay_ms() == 300.0);
  for (int i = 0; i < 5; ++i) delay.record_latency_ms(60.0);
  CHECK(delay.delay_ms() == 60.0);
}

}  // namespace test_hedging_delay
