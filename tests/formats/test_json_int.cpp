// Integers from data files (lab/formats/json_int.hpp): range-checked at full width, never wrapped.
#include <doctest/doctest.h>

#include <limits>

#include "lab/formats/json_int.hpp"

namespace test_json_int {

using namespace quote_lab;
using json = nlohmann::ordered_json;

TEST_CASE("integers inside the range, ends included, are accepted") {
  CHECK(json_int_in_range(json(1), 1, 10) == 1);
  CHECK(json_int_in_range(json(10), 1, 10) == 10);
  CHECK(json_int_in_range(json(-5), -5, 5) == -5);
  CHECK(json_int_in_range(json::parse("7"), 0, 1'000'000) == 7);  // parsed as unsigned
}

TEST_CASE("values that would wrap into a plausible int are refused") {
  CHECK_FALSE(json_int_in_range(json::parse("4294967298"), 1, 10));  // get<int>() gives 2
  CHECK_FALSE(json_int_in_range(json::parse("18446744073709551615"), 0, std::numeric_limits<std::int64_t>::max()));
  CHECK_FALSE(json_int_in_range(json::parse("-4294967295"), -10, 10));
  CHECK_FALSE(json_int_in_range(json(0), 1, 10));
  CHECK_FALSE(json_int_in_range(json(11), 1, 10));
  CHECK_FALSE(json_int_in_range(json::parse("3"), -10, -1));  // unsigned against a negative range
}

TEST_CASE("only JSON integers count: no floats, strings, booleans or null") {
  for (const char* text : {"3.0", "1e3", "\"3\"", "true", "null", "[3]"}) {
    CAPTURE(text);
    CHECK_FALSE(json_int_in_range(json::parse(text), 0, 10000));
  }
}

TEST_CASE("the problem names the field, the range and the value as written, shortened") {
  CHECK(int_range_problem("resilient.max_attempts", json::parse("4294967298"), 1, 10) ==
        "resilient.max_attempts must be an integer between 1 and 10 (got 4294967298)");
  CHECK(int_range_problem("items", json("three"), 1, 50) == "items must be an integer between 1 and 50 (got \"three\")");
  const std::string long_value(100, 'x');
  CHECK(int_range_problem("f", json(long_value), 0, 1) ==
        "f must be an integer between 0 and 1 (got \"" + std::string(39, 'x') + "...)");
}

}  // namespace test_json_int
