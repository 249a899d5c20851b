#include "lab/resilience/pricing.hpp"

#include <cmath>
#include <numbers>

namespace quote_lab {

double price_quote_usd(int customer_id, int items, WallTime at) {
  const double t = std::chrono::duration<double>(at.time_since_epoch()).count();
  const double drift = 1.0 + 0.06 * std::sin(2 * std::numbers::pi * t / kRateDriftPeriodS);
  const double discount = 1.0 - (customer_id % 5) * 0.02;
  return std::round(items * kBaseItemPriceUsd * drift * discount * 100.0) / 100.0;
}

}  // namespace quote_lab
