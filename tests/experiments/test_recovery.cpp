// The metastability map's judgement of recovery, in the lab's own code (bench/recovery.py's rule).

#include <doctest/doctest.h>

#include "lab/experiments/recovery.hpp"

namespace test_recovery {

using namespace quote_lab;

std::vector<TimelineSecond> seconds(const std::vector<long>& useful, long arrivals = 10) {
  std::vector<TimelineSecond> out;
  for (std::size_t i = 0; i < useful.size(); ++i)
    out.push_back({.second = static_cast<int>(i), .arrivals = arrivals, .sent = arrivals, .useful = useful[i]});
  return out;
}

TEST_CASE("recovered after k seconds: the first of two healthy seconds in a row, counted from the trigger's end rounded up") {
  CHECK(recovered_after_s(seconds({10, 10, 0, 0, 9, 3, 9, 10}), 2.5) == 3);  // seconds 6 and 7; 5 is not healthy
  CHECK(recovered_after_s(seconds({10, 10, 0, 10, 10}), 2.0) == 1);
  CHECK(recovered_after_s(seconds({10, 10, 10, 10}), 2.0) == 0);
}

TEST_CASE("never recovered: no two healthy seconds in a row within the timeline") {
  CHECK_FALSE(recovered_after_s(seconds({10, 10, 0, 0, 10, 0, 10}), 2.0));
  CHECK_FALSE(recovered_after_s(seconds({10, 10, 0}), 2.0));
}

TEST_CASE("a second without arrivals is healthy: nothing was asked") {
  CHECK(recovered_after_s(seconds({0, 0, 0, 0}, 0), 1.0) == 0);
}

}  // namespace test_recovery
