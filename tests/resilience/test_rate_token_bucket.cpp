#include <doctest/doctest.h>

#include <optional>

#include "lab/resilience/overload/rate_token_bucket.hpp"
#include "support/fake_clock.hpp"

namespace test_rate_token_bucket {

using namespace quote_lab;
using quote_lab::testing::FakeClock;
using std::chrono::milliseconds;

TEST_CASE("botocore's bucket: starts empty, fills at the rate up to a capacity of the rate") {
  FakeClock clock;
  RateTokenBucket bucket(5.0, clock.now());
  CHECK(bucket.tokens(clock.now()) == 0.0);
  CHECK(bucket.capacity() == 5.0);
  clock.advance(milliseconds(400));
  CHECK(bucket.tokens(clock.now()) == doctest::Approx(2.0));
  clock.advance(milliseconds(10'000));
  CHECK(bucket.tokens(clock.now()) == doctest::Approx(5.0));  // capped
}

TEST_CASE("a rate below 1: fill rate floored at 0.5/s, capacity 1") {
  FakeClock clock;
  RateTokenBucket bucket(0.2, clock.now());
  CHECK(bucket.fill_rate_per_s() == 0.5);
  CHECK(bucket.capacity() == 1.0);
}

TEST_CASE("a change of rate credits the tokens earned at the old rate, then trims to the new capacity") {
  FakeClock clock;
  RateTokenBucket bucket(10.0, clock.now());
  clock.advance(milliseconds(1000));
  bucket.set_fill_rate(2.0, clock.now());            // 10 earned at 10/s, trimmed to 2
  CHECK(bucket.tokens(clock.now()) == doctest::Approx(2.0));
  clock.advance(milliseconds(500));
  CHECK(bucket.tokens(clock.now()) == doctest::Approx(2.0));  // full at the new capacity
}

TEST_CASE("reservations queue behind each other, and a wait beyond the caller's bound takes nothing") {
  FakeClock clock;
  RateTokenBucket bucket(4.0, clock.now());          // empty; one token every 250 ms
  CHECK(bucket.reserve(1000, clock.now()) == 250.0);
  CHECK(bucket.reserve(1000, clock.now()) == 500.0); // behind the first
  CHECK(bucket.reserve(600, clock.now()) == std::nullopt);  // 750 > 600: refused ...
  CHECK(bucket.tokens(clock.now()) == doctest::Approx(-2.0));  // ... and nothing taken
  CHECK(bucket.reserve(750, clock.now()) == 750.0);
  clock.advance(milliseconds(1000));                 // the debt of 3 repaid, one more earned
  CHECK(bucket.reserve(0, clock.now()) == 0.0);
}

}  // namespace test_rate_token_bucket
