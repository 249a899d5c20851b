// ISO 8601 timestamps (lab/base/time_format.hpp): the only form of wall time users read.
#include <doctest/doctest.h>

#include "lab/base/time_format.hpp"

namespace test_time_format {

using namespace quote_lab;
using std::chrono::milliseconds;

TEST_CASE("timestamps are UTC with exactly three decimals and a Z") {
  const WallTime t = WallTime(std::chrono::sys_days{std::chrono::year{2026} / 11 / 29}) + std::chrono::hours(14) +
                     std::chrono::minutes(55) + std::chrono::seconds(25) + milliseconds(123);
  CHECK(format_iso8601(t) == "2026-11-29T14:55:25.123Z");
  CHECK(format_iso8601(WallTime{}) == "1970-01-01T00:00:00.000Z");
  CHECK(format_iso8601(t + std::chrono::microseconds(999)) == "2026-11-29T14:55:25.123Z");  // truncated, not rounded
  CHECK(format_iso8601(WallTime{} - milliseconds(1)) == "1969-12-31T23:59:59.999Z");
}

TEST_CASE("parsing accepts what the lab writes, fraction optional, and round-trips") {
  const auto t = parse_iso8601("2026-11-29T14:55:25.123Z");
  REQUIRE(t);
  CHECK(format_iso8601(*t) == "2026-11-29T14:55:25.123Z");
  CHECK(format_iso8601(*parse_iso8601("2026-11-29T14:55:25Z")) == "2026-11-29T14:55:25.000Z");
  CHECK(format_iso8601(*parse_iso8601("2026-11-29T14:55:25.5Z")) == "2026-11-29T14:55:25.500Z");
  CHECK(format_iso8601(*parse_iso8601("2026-11-29T14:55:25.123456Z")) == "2026-11-29T14:55:25.123Z");
}

TEST_CASE("parsing refuses anything else rather than guessing") {
  for (const char* bad : {"", "2026-11-29", "2026-11-29T14:55:25", "2026-11-29T14:55:25+01:00", "2026-11-29T14:55:25.Z",
                          "2026-13-29T14:55:25Z", "2026-11-00T14:55:25Z", "2026-11-29T24:00:00Z", "2026-11-29T14:55:25Zjunk",
                          "yesterday"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_iso8601(bad).has_value());
  }
}

}  // namespace test_time_format
