#pragma once
// A priced quote, as the carrier answers it and the fallback cache keeps it.

#include <string>

#include "lab/base/clock.hpp"

namespace quote_lab {

/// One quote priced by the carrier (or the seed quote the lab starts with).
struct Quote {
  std::string quote_id;
  double amount = 0;          ///< in `currency`, rounded to cents
  std::string currency = "USD";
  WallTime priced_at{};       ///< when the carrier priced it
};

}  // namespace quote_lab
