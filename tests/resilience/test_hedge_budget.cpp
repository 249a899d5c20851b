#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

#include "lab/resilience/overload/hedge_budget.hpp"
#include "support/fake_clock.hpp"

namespace test_hedge_budget {

using namespace quote_lab;
using quote_lab::testing::FakeClock;
using std::chrono::milliseconds;

TEST_CASE("a partial outage where every request would hedge: hedges never pass 10 % + 1/s over 10 s") {
  FakeClock clock;
  HedgeBudget budget(clock, {.share = 0.10, .min_per_s = 1});
  std::uint64_t hedges_sent = 0;
  std::uint64_t requests = 0;
  HedgeBudgetStats last;
  // 50 requests a second for 60 s, each asking for a hedge (its first attempt is slow).
  for (int ms = 0; ms < 60'000; ms += 20) {
    budget.on_request();
    ++requests;
    if (budget.try_hedge()) ++hedges_sent;
    last = budget.stats();
    REQUIRE(static_cast<double>(last.hedges) <= last.budget + 1e-9);  // the invariant, at every step
    clock.advance(milliseconds(20));
  }
  // The last full window: 500 requests, so 0.1 × 500 + 1 × 10 = 60 hedges, used to the last one.
  CHECK(last.requests == 500);
  CHECK(last.budget == doctest::Approx(60.0));
  CHECK(last.hedges == 60);
  // The whole minute, six windows: 0.1 × 3000 + 6 × 10 = 360 hedges, where hedging every
  // request would have sent 3000 (the carrier's load doubled).
  CHECK(requests == 3000);
  CHECK(hedges_sent == 360);
  CHECK(budget.stats().refused == 3000 - 360);
}

TEST_CASE("the floor: a quiet client may hedge min_per_s × 10 times in 10 s with no requests counted") {
  FakeClock clock;
  HedgeBudget budget(clock, {.share = 0.10, .min_per_s = 1});
  for (int i = 0; i < 10; ++i) CHECK(budget.try_hedge());
  CHECK_FALSE(budget.try_hedge());
  clock.advance(milliseconds(10'000));
  CHECK(budget.try_hedge());  // the window has moved on
}

TEST_CASE("share and floor out of range are refused") {
  FakeClock clock;
  CHECK_THROWS_AS(HedgeBudget(clock, {.share = 1.5}), std::invalid_argument);
  CHECK_THROWS_AS(HedgeBudget(clock, {.share = -0.1}), std::invalid_argument);
  CHECK_THROWS_AS(HedgeBudget(clock, {.min_per_s = -1}), std::invalid_argument);
}

TEST_CASE("a reset (the lab's) empties the window and the refusals") {
  FakeClock clock;
  HedgeBudget budget(clock, {.share = 0.10, .min_per_s = 1});
  for (int i = 0; i < 10; ++i) CHECK(budget.try_hedge());
  CHECK_FALSE(budget.try_hedge());
  budget.reset();
  CHECK(budget.stats().refused == 0);
  CHECK(budget.stats().hedges == 0);
  CHECK(budget.try_hedge());  // the floor again, without waiting 10 s
}

}  // namespace test_hedge_budget
