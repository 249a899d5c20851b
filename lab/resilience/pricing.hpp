#pragma once
// How the simulated carrier prices a quote. The rate drifts slowly with wall time so a
// cached fallback quote is visibly older (a different amount) than a live one.

#include "lab/base/clock.hpp"

namespace quote_lab {

/// Base price of one item, in USD, before drift and discount.
inline constexpr double kBaseItemPriceUsd = 19.90;
/// The rate swings ±6 % over this period.
inline constexpr double kRateDriftPeriodS = 1800;

/// items × 19.90 × (1 + 0.06 × sin(2π t / 1800 s)) × (1 − (customer_id mod 5) × 2 %),
/// rounded to cents; t is Unix time in seconds. Pure: same inputs, same amount.
double price_quote_usd(int customer_id, int items, WallTime at);

}  // namespace quote_lab
