// The carrier's quote on the wire (lab/formats/quote_json.hpp): what the lab sends and accepts.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "lab/base/time_format.hpp"
#include "lab/formats/quote_json.hpp"

namespace test_quote_json {

using namespace quote_lab;
using json = nlohmann::ordered_json;

TEST_CASE("a quote is four fields, in this order, its time in ISO 8601 UTC, and reads back the same") {
  const Quote q{"Q-1", 57.31, "USD", *parse_iso8601("2026-11-29T14:55:25.123Z")};
  const json j = to_json(q);
  CHECK(j.dump() == R"({"quote_id":"Q-1","amount":57.31,"currency":"USD","priced_at":"2026-11-29T14:55:25.123Z"})");
  const auto back = quote_from_json(j);
  REQUIRE(back);
  CHECK(back->quote_id == "Q-1");
  CHECK(back->amount == 57.31);
  CHECK(back->currency == "USD");
  CHECK(back->priced_at == q.priced_at);
}

TEST_CASE("an answer the lab cannot use is refused, never half-read") {
  const json good = json::parse(R"({"quote_id":"Q-1","amount":57.31,"currency":"USD","priced_at":"2026-11-29T14:55:25Z"})");
  CHECK(quote_from_json(good));
  for (const char* key : {"quote_id", "amount", "currency", "priced_at"}) {
    CAPTURE(key);
    json missing = good;
    missing.erase(key);
    CHECK_FALSE(quote_from_json(missing));
    json wrong = good;
    wrong[key] = key == std::string("amount") ? json("57.31") : json(42);
    CHECK_FALSE(quote_from_json(wrong));
  }
  json bad_time = good;
  bad_time["priced_at"] = "yesterday";
  CHECK_FALSE(quote_from_json(bad_time));
  CHECK_FALSE(quote_from_json(json::array()));
  CHECK_FALSE(quote_from_json(json(nullptr)));
}

}  // namespace test_quote_json
