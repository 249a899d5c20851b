// The simulated carrier's prices (lab/resilience/pricing.hpp): exact, pure, drifting with time.
#include <doctest/doctest.h>

#include "lab/resilience/pricing.hpp"

namespace test_pricing {

using namespace quote_lab;

namespace {
// A multiple of 900 s: sin(2π t / 1800 s) = 0, the rate is exactly the base.
const WallTime kFlat = WallTime(std::chrono::seconds(1'800'000'000));
}  // namespace

TEST_CASE("items × 19.90, less 2 % per (customer_id mod 5), rounded to cents") {
  CHECK(price_quote_usd(5, 3, kFlat) == 59.70);    // mod 5 = 0: no discount
  CHECK(price_quote_usd(42, 3, kFlat) == 57.31);   // 4 % off 59.70 = 57.312
  CHECK(price_quote_usd(4, 3, kFlat) == 54.92);    // 8 % off = 54.924
  CHECK(price_quote_usd(5, 1, kFlat) == 19.90);
  CHECK(price_quote_usd(5, 50, kFlat) == 995.00);
}

TEST_CASE("the rate swings ±6 % over 30 minutes, so an old fallback quote shows a different amount") {
  CHECK(price_quote_usd(5, 3, kFlat + std::chrono::seconds(450)) == 63.28);   // peak: 59.70 × 1.06 = 63.282
  CHECK(price_quote_usd(5, 3, kFlat + std::chrono::seconds(1350)) == 56.12);  // trough: × 0.94 = 56.118
  CHECK(price_quote_usd(5, 3, kFlat + std::chrono::seconds(1800)) == 59.70);  // one period later
  CHECK(price_quote_usd(42, 3, kFlat + std::chrono::minutes(5)) != price_quote_usd(42, 3, kFlat));
}

TEST_CASE("pure: the amount is known from the inputs alone, whatever was priced before") {
  const WallTime t = kFlat + std::chrono::milliseconds(123'456);
  // drift 1 + 0.06 × sin(2π × 123.456 / 1800) = 1.0250637; 59.70 × that × 0.96 = 58.748
  CHECK(price_quote_usd(42, 3, t) == 58.75);
  CHECK(price_quote_usd(7, 2, t) == 39.17);  // 39.80 × 1.0250637 × 0.96 = 39.166
  // Other prices in between leave no trace: the first one again, exactly.
  CHECK(price_quote_usd(5, 50, kFlat) == 995.00);
  CHECK(price_quote_usd(42, 3, t) == 58.75);
}

}  // namespace test_pricing
