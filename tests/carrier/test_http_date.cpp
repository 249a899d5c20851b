#include <doctest/doctest.h>

#include "lab/carrier/http_date.hpp"

namespace test_http_date {

using namespace quote_lab;

TEST_CASE("an IMF-fixdate is read to the second, anything else is refused") {
  const auto t = parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT");
  REQUIRE(t);
  CHECK(std::chrono::duration_cast<std::chrono::seconds>(t->time_since_epoch()).count() == 784111777);
  CHECK_FALSE(parse_http_date("Mon, 06 Nov 1994 08:49:37 GMT"));  // 6 Nov 1994 was a Sunday
  CHECK_FALSE(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"));  // obsolete RFC 850 form
  CHECK_FALSE(parse_http_date("Sun, 31 Nov 1994 08:49:37 GMT"));
  CHECK_FALSE(parse_http_date("Sun, 06 Nov 1994 24:49:37 GMT"));
  CHECK_FALSE(parse_http_date(""));
}

TEST_CASE("Retry-After: whole seconds, or the time until a date, never negative") {
  const WallTime now = *parse_http_date("Wed, 21 Oct 2026 07:28:00 GMT");
  CHECK(parse_retry_after("2", now) == Millis(2000));
  CHECK(parse_retry_after(" 0 ", now) == Millis(0));
  CHECK(parse_retry_after("Wed, 21 Oct 2026 07:28:03 GMT", now) == Millis(3000));
  CHECK(parse_retry_after("Wed, 21 Oct 2026 07:27:00 GMT", now) == Millis(0));
  CHECK_FALSE(parse_retry_after("-1", now));
  CHECK_FALSE(parse_retry_after("1.5", now));
  CHECK_FALSE(parse_retry_after("soon", now));
  CHECK_FALSE(parse_retry_after("", now));
}

}  // namespace test_http_date
