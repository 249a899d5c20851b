#include <doctest/doctest.h>

#include "lab/params.hpp"

using namespace quote_lab;

TEST_CASE("integer parameters: accepted values, default when absent") {
  int out = 0;
  const std::string ok = "50";
  CHECK_FALSE(parse_int_param("items", &ok, 1, 50, 3, out));
  CHECK(out == 50);
  CHECK_FALSE(parse_int_param("items", nullptr, 1, 50, 3, out));
  CHECK(out == 3);
}

TEST_CASE("bad integer parameters name the parameter and the range") {
  for (const char* raw : {"0", "51", "abc", "", "3.5", "+3", " 3", "3 ", "1e2", "99999999999999999999999", "-1"}) {
    CAPTURE(raw);
    int out = -7;
    const std::string text = raw;
    const auto e = parse_int_param("items", &text, 1, 50, 3, out);
    REQUIRE(e);
    CHECK(e->status == 400);
    CHECK(e->error == "invalid_parameter");
    CHECK(e->message.find("items must be an integer between 1 and 50") == 0);
    CHECK(out == -7);                                        // untouched on error
  }
}

TEST_CASE("the echoed value is short and printable") {
  int out = 0;
  const std::string nasty = std::string("\x01\x02") + std::string(500, 'x');
  const auto e = parse_int_param("customer_id", &nasty, 1, 5000, 42, out);
  REQUIRE(e);
  CHECK(e->message.size() < 120);
  CHECK(e->message.find('\x01') == std::string::npos);
}
