// Which storm requests are sheddable (lab/experiments/priority_mix.hpp): spread evenly, and
// exactly floor(n·F) of the first n.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "lab/experiments/priority_mix.hpp"

namespace test_priority_mix {

using namespace quote_lab;

namespace {

// The first n requests as a string: 's' sheddable, 'c' critical.
std::string marks(double share, long n) {
  std::string out;
  for (long k = 0; k < n; ++k) out += sheddable_request(k, share) ? 's' : 'c';
  return out;
}

}  // namespace

TEST_CASE("a share spreads the sheddable requests evenly") {
  CHECK(marks(0, 8) == "cccccccc");     // no share: all critical (and the storm sends no header)
  CHECK(marks(1, 8) == "ssssssss");
  CHECK(marks(0.5, 8) == "cscscscs");
  CHECK(marks(0.25, 8) == "cccscccs");
  CHECK(marks(0.2, 10) == "ccccsccccs");
}

TEST_CASE("of the first n requests, exactly floor(n·F) are sheddable") {
  for (const double share : {0.0, 0.05, 0.1, 0.3, 1.0 / 3, 0.5, 0.9, 1.0})
    for (const long n : {1L, 7L, 10L, 100L, 999L, 10000L}) {
      CAPTURE(share);
      CAPTURE(n);
      const std::string m = marks(share, n);
      CHECK(static_cast<long>(std::count(m.begin(), m.end(), 's')) ==
            static_cast<long>(std::floor(static_cast<double>(n) * share)));
    }
}

TEST_CASE("the header and its values") {
  CHECK(kPriorityHeader == "X-Priority");
  CHECK(kSheddable == "sheddable");
  CHECK(kCritical == "critical");
}

}  // namespace test_priority_mix
