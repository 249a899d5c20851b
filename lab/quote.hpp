#pragma once
// A priced quote, as the carrier answers it and the fallback cache keeps it.

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "lab/clock.hpp"

namespace quote_lab {

/// One quote priced by the carrier (or the seed quote the lab starts with).
struct Quote {
  std::string quote_id;
  double amount = 0;          ///< in `currency`, rounded to cents
  std::string currency = "USD";
  WallTime priced_at{};       ///< when the carrier priced it
};

/// The carrier's wire format: {"quote_id", "amount", "currency", "priced_at"}.
nlohmann::ordered_json to_json(const Quote& q);
/// Parses the carrier's answer; nullopt if a field is missing or of the wrong type.
std::optional<Quote> quote_from_json(const nlohmann::ordered_json& j);

}  // namespace quote_lab
