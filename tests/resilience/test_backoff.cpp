#include <doctest/doctest.h>

#include "lab/base/random.hpp"
#include "lab/resilience/backoff.hpp"

namespace test_backoff {

using namespace quote_lab;
using std::chrono::milliseconds;

namespace {
RetryPolicy resilient() { return default_policies().resilient; }
constexpr double kAlmostOne = 0.999999;
}  // namespace

TEST_CASE("the course's backoff: 80 ms x 2^(n-1) plus 15-45 ms of jitter") {
  const RetryPolicy p = resilient();
  SUBCASE("after attempt 1: 80 + 15..45 ms") {
    CHECK(backoff_delay(p, 1, 0.0) == milliseconds(95));
    CHECK(backoff_delay(p, 1, kAlmostOne) == milliseconds(125));
  }
  SUBCASE("after attempt 2: 160 + 15..45 ms") {
    CHECK(backoff_delay(p, 2, 0.0) == milliseconds(175));
    CHECK(backoff_delay(p, 2, kAlmostOne) == milliseconds(205));
  }
  SUBCASE("after attempt 3: 320 + 15..45 ms") {
    CHECK(backoff_delay(p, 3, 0.5) == milliseconds(320 + 15 + 15));
  }
  SUBCASE("every jitter value 15..45 is reachable, like randint(15, 45)") {
    RandomSource random(7);
    bool seen[31] = {};
    for (int i = 0; i < 5000; ++i) {
      const auto d = backoff_delay(p, 1, random.uniform()).count();
      REQUIRE(d >= 95);
      REQUIRE(d <= 125);
      seen[d - 95] = true;
    }
    for (bool s : seen) CHECK(s);
  }
}

TEST_CASE("legacy has no backoff at all") {
  const RetryPolicy p = default_policies().legacy;
  for (int attempt = 1; attempt <= 4; ++attempt) CHECK(backoff_delay(p, attempt, 0.7) == milliseconds(0));
}

TEST_CASE("AWS jitter strategies (Brooker, 'Exponential Backoff And Jitter')") {
  RetryPolicy p = resilient();
  p.backoff_base_ms = 100;
  p.backoff_max_ms = 10000;
  SUBCASE("full: uniform in [0, base x 2^(n-1)]") {
    p.jitter = Jitter::full;
    CHECK(backoff_delay(p, 3, 0.0) == milliseconds(0));
    CHECK(backoff_delay(p, 3, kAlmostOne) == milliseconds(400));
  }
  SUBCASE("equal: half fixed, half random") {
    p.jitter = Jitter::equal;
    CHECK(backoff_delay(p, 3, 0.0) == milliseconds(200));
    CHECK(backoff_delay(p, 3, kAlmostOne) == milliseconds(400));
  }
  SUBCASE("decorrelated: uniform in [base, previous x 3]") {
    p.jitter = Jitter::decorrelated;
    CHECK(backoff_delay(p, 1, 0.0) == milliseconds(100));
    CHECK(backoff_delay(p, 1, kAlmostOne) == milliseconds(300));
    CHECK(backoff_delay(p, 2, kAlmostOne, milliseconds(300)) == milliseconds(900));
  }
  SUBCASE("none: plain exponential") {
    p.jitter = Jitter::none;
    CHECK(backoff_delay(p, 4, 0.9) == milliseconds(800));
  }
}

TEST_CASE("invariant: every wait is within [0, backoff_max_ms], whatever the attempt") {
  RandomSource random(42);
  for (const Jitter j : {Jitter::none, Jitter::additive, Jitter::full, Jitter::equal, Jitter::decorrelated}) {
    RetryPolicy p = resilient();
    p.jitter = j;
    p.backoff_max_ms = 2000;
    milliseconds previous{0};
    for (int attempt = 1; attempt <= 1000; ++attempt) {
      const auto d = backoff_delay(p, attempt, random.uniform(), previous);
      REQUIRE(d.count() >= 0);
      REQUIRE(d.count() <= 2000);
      previous = d;
    }
  }
}

TEST_CASE("a cap below the jitter still caps the wait") {
  RetryPolicy p = resilient();
  p.backoff_max_ms = 50;
  CHECK(backoff_delay(p, 1, kAlmostOne) == milliseconds(50));
  CHECK(backoff_delay(p, 30, 0.0) == milliseconds(50));
}

}  // namespace test_backoff
