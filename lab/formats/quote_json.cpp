#include "lab/formats/quote_json.hpp"

#include <nlohmann/json.hpp>

#include "lab/base/time_format.hpp"

namespace quote_lab {

nlohmann::ordered_json to_json(const Quote& q) {
  return {{"quote_id", q.quote_id},
          {"amount", q.amount},
          {"currency", q.currency},
          {"priced_at", format_iso8601(q.priced_at)}};
}

std::optional<Quote> quote_from_json(const nlohmann::ordered_json& j) {
  if (!j.is_object()) return std::nullopt;
  const auto id = j.find("quote_id");
  const auto amount = j.find("amount");
  const auto currency = j.find("currency");
  const auto priced = j.find("priced_at");
  if (id == j.end() || !id->is_string() || amount == j.end() || !amount->is_number() ||
      currency == j.end() || !currency->is_string() || priced == j.end() || !priced->is_string())
    return std::nullopt;
  const auto at = parse_iso8601(priced->get<std::string>());
  if (!at) return std::nullopt;
  return Quote{id->get<std::string>(), amount->get<double>(), currency->get<std::string>(), *at};
}

}  // namespace quote_lab
