#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

#include "lab/resilience/overload/cubic_calculator.hpp"
#include "support/fake_clock.hpp"

namespace test_cubic_calculator {

using namespace quote_lab;
using quote_lab::testing::FakeClock;
using std::chrono::milliseconds;

SteadyTime at_ms(SteadyTime t0, double ms) {
  return t0 + std::chrono::duration_cast<SteadyTime::duration>(std::chrono::duration<double, std::milli>(ms));
}

TEST_CASE("botocore's figures: throttled at 10 req/s → 7, back to 10 at K ≈ 1.96 s, 13 at 2K ≈ 3.9 s") {
  FakeClock clock;
  const SteadyTime t0 = clock.now();
  CubicCalculator cubic(0.0, t0);
  CHECK(cubic.rate_after_throttle_per_s(10.0, t0) == doctest::Approx(7.0));  // β × 10
  const double k_s = std::cbrt(10.0 * (1 - 0.7) / 0.4);                      // ∛7.5
  CHECK(k_s == doctest::Approx(1.9574).epsilon(1e-4));
  CHECK(cubic.k_s() == doctest::Approx(k_s));
  CHECK(cubic.w_max_per_s() == 10.0);
  // The curve, t seconds after the throttle: C (t − K)³ + W_max.
  CHECK(cubic.rate_after_success_per_s(t0) == doctest::Approx(7.0));               // continuous at the throttle
  CHECK(cubic.rate_after_success_per_s(at_ms(t0, 1000)) == doctest::Approx(9.6489).epsilon(1e-4));
  CHECK(cubic.rate_after_success_per_s(at_ms(t0, k_s * 1000)) == doctest::Approx(10.0));  // back at W_max
  CHECK(cubic.rate_after_success_per_s(at_ms(t0, 1960)) == doctest::Approx(10.0).epsilon(1e-4));
  CHECK(cubic.rate_after_success_per_s(at_ms(t0, 2 * k_s * 1000)) == doctest::Approx(13.0));  // C K³ = 3
  CHECK(cubic.rate_after_success_per_s(at_ms(t0, 3900)) == doctest::Approx(12.93).epsilon(1e-3));
}

TEST_CASE("a second throttle starts a new curve from the rate sent at") {
  FakeClock clock;
  const SteadyTime t0 = clock.now();
  CubicCalculator cubic(0.0, t0);
  cubic.rate_after_throttle_per_s(10.0, t0);
  const SteadyTime t1 = at_ms(t0, 1000);
  CHECK(cubic.rate_after_throttle_per_s(9.0, t1) == doctest::Approx(6.3));
  CHECK(cubic.w_max_per_s() == 9.0);
  CHECK(cubic.k_s() == doctest::Approx(std::cbrt(9.0 * 0.3 / 0.4)));
  CHECK(cubic.last_throttle() == t1);
}

TEST_CASE("before any throttle (botocore starts at W_max 0) the rate grows as C t³") {
  FakeClock clock;
  const SteadyTime t0 = clock.now();
  const CubicCalculator cubic(0.0, t0);
  CHECK(cubic.rate_after_success_per_s(at_ms(t0, 2000)) == doctest::Approx(0.4 * 8));
}

TEST_CASE("constants out of range are refused") {
  FakeClock clock;
  CHECK_THROWS_AS(CubicCalculator(-1.0, clock.now()), std::invalid_argument);
  CHECK_THROWS_AS(CubicCalculator(0.0, clock.now(), 0.0), std::invalid_argument);
  CHECK_THROWS_AS(CubicCalculator(0.0, clock.now(), 0.4, 1.0), std::invalid_argument);
}

}  // namespace test_cubic_calculator
