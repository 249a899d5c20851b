#pragma once
// The JSON form of a quote: the carrier's answer, the state file's fallback entries and
// the `quote` object of every answer.

#include <nlohmann/json_fwd.hpp>
#include <optional>

#include "lab/resilience/quote.hpp"

namespace quote_lab {

/// The carrier's wire format: {"quote_id", "amount", "currency", "priced_at"}.
nlohmann::ordered_json to_json(const Quote& q);
/// Parses the carrier's answer; nullopt if a field is missing or of the wrong type.
std::optional<Quote> quote_from_json(const nlohmann::ordered_json& j);

}  // namespace quote_lab
