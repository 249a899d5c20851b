#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <stop_token>
#include <vector>

#include "lab/resilience/overload/cubic_rate_limiter.hpp"
#include "support/fake_clock.hpp"

namespace test_cubic_rate_limiter {

using namespace quote_lab;
using quote_lab::testing::FakeClock;
using std::chrono::milliseconds;

/// Successful answers every 100 ms (10 req/s) for `ms`.
void answers_at_10_per_s(CubicRateLimiter& limiter, FakeClock& clock, int ms) {
  for (int t = 0; t < ms; t += 100) {
    clock.advance(milliseconds(100));
    limiter.on_response(false);
  }
}

TEST_CASE("the published curve through the limiter: 10 req/s throttled → 7, 10 again at ≈ 1.96 s, 13 at ≈ 3.9 s") {
  FakeClock clock;
  CubicRateLimiter limiter(clock);
  answers_at_10_per_s(limiter, clock, 3000);
  CHECK(limiter.stats().measured_rate_per_s == doctest::Approx(9.99936));  // 10 × (1 − 0.2⁶)
  CHECK_FALSE(limiter.stats().enabled);

  clock.advance(milliseconds(50));
  limiter.on_response(true);  // a 429
  CubicRateLimiterStats s = limiter.stats();
  CHECK(s.enabled);
  CHECK(s.throttles == 1);
  CHECK(s.w_max_per_s == doctest::Approx(10.0).epsilon(1e-4));
  CHECK(s.send_rate_per_s == doctest::Approx(7.0).epsilon(1e-4));         // β × 10
  CHECK(s.k_s == doctest::Approx(1.9574).epsilon(1e-4));                   // ∛(10 × 0.3 / 0.4)

  answers_at_10_per_s(limiter, clock, 1900);  // 1.9 s after the throttle
  clock.advance(milliseconds(57));            // 1.957 s: K
  limiter.on_response(false);
  CHECK(limiter.stats().send_rate_per_s == doctest::Approx(10.0).epsilon(1e-3));

  clock.advance(milliseconds(43));            // 2.0 s
  answers_at_10_per_s(limiter, clock, 1900);  // 3.9 s
  CHECK(limiter.stats().send_rate_per_s == doctest::Approx(12.93).epsilon(1e-3));
  clock.advance(milliseconds(15));            // 3.915 s: 2K
  limiter.on_response(false);
  CHECK(limiter.stats().send_rate_per_s == doctest::Approx(13.0).epsilon(1e-3));
}

TEST_CASE("the rate never goes above twice the measured rate (botocore's _MAX_RATE_ADJUST_SCALE)") {
  FakeClock clock;
  CubicRateLimiter limiter(clock);
  answers_at_10_per_s(limiter, clock, 3000);
  limiter.on_response(true);
  clock.advance(milliseconds(10'000));  // 10 s of silence: CUBIC says 0.4 × 8.04³ + 10 ≈ 218
  limiter.on_response(false);
  const CubicRateLimiterStats s = limiter.stats();
  CHECK(s.send_rate_per_s == doctest::Approx(2 * s.measured_rate_per_s));
}

TEST_CASE("before the first throttle every send goes at once, after it sends wait for tokens or are refused") {
  FakeClock clock;
  CubicRateLimiter limiter(clock);
  for (int i = 0; i < 100; ++i) CHECK(limiter.reserve(0) == 0.0);  // not enabled: botocore does not pace
  limiter.on_response(true);  // a 429 at once: measured 0, so the rate is the floor, 0.5/s
  CHECK(limiter.stats().send_rate_per_s == 0.5);
  CHECK(limiter.reserve(1000) == std::nullopt);  // the first token in 2 s: refused (client_rate_limited)
  CHECK(limiter.reserve(2000) == 2000.0);
  CHECK(limiter.reserve(3000) == std::nullopt);  // behind it: 4 s
  CHECK(limiter.reserve(4000) == 4000.0);
  CHECK(limiter.stats().rejected == 2);
}

TEST_CASE("acquire waits on the clock for its token, and gives up beyond its max wait") {
  FakeClock clock;
  CubicRateLimiter limiter(clock);
  limiter.on_response(true);
  CHECK(limiter.acquire(5000) == milliseconds(2000));  // waits 2 s for the first token
  CHECK(limiter.acquire(1000) == std::nullopt);        // the next is 2 s away: refused, no wait
  CHECK(clock.sleeps() == std::vector<milliseconds>{milliseconds(2000)});
  std::stop_source stop;
  stop.request_stop();
  CHECK(limiter.acquire(5000, stop.get_token()) == std::nullopt);  // shutting down: no wait
}

TEST_CASE("acquire's wait is whole ms rounded up, without the float noise of (1 - tokens) / rate") {
  FakeClock clock;
  CubicRateLimiter limiter(clock);
  clock.advance(milliseconds(20));
  limiter.on_response(true);  // 0.02 tokens earned at the starting 1/s, then 0.5/s
  clock.advance(milliseconds(1001));
  // 0.5205 tokens: (1 - 0.5205) / 0.5 s is 959.0000000000001 ms in doubles, a wait of 959 ms.
  CHECK(limiter.acquire(1000) == milliseconds(959));
  // After the wait, 0.5205 - 1 + 0.959 × 0.5 = 0 tokens: the next token is 2 s away, beyond 1 s.
  CHECK(limiter.acquire(1000) == std::nullopt);
  CHECK(limiter.acquire(3000) == milliseconds(2000));
  CHECK(clock.sleeps() == std::vector<milliseconds>{milliseconds(959), milliseconds(2000)});
}

TEST_CASE("a reset (the lab's) forgets the throttle: sends go through at once until the next 429") {
  FakeClock clock;
  CubicRateLimiter limiter(clock);
  limiter.on_response(true);  // a 429 on the first answer: paced from now on
  CHECK(limiter.stats().enabled);
  CHECK(limiter.reserve(0.0) == std::nullopt);  // the bucket is empty: no token without a wait
  limiter.reset();
  const CubicRateLimiterStats s = limiter.stats();
  CHECK_FALSE(s.enabled);
  CHECK(s.throttles == 0);
  CHECK(s.rejected == 0);
  CHECK(limiter.reserve(0.0) == 0.0);  // as a new limiter: no wait
}

}  // namespace test_cubic_rate_limiter
