#include <doctest/doctest.h>

#include "lab/shared_state/reconnect_schedule.hpp"

namespace test_reconnect_schedule {

using namespace quote_lab;
using std::chrono::milliseconds;

TEST_CASE("reconnect waits double from 100 ms, half fixed and half drawn, capped at 2 s") {
  const ReconnectSchedule s;
  // u = 0: the fixed half; u → 1: the whole exponential step.
  CHECK(s.delay(1, 0.0) == milliseconds(50));
  CHECK(s.delay(1, 0.999999) == milliseconds(100));
  CHECK(s.delay(2, 0.0) == milliseconds(100));
  CHECK(s.delay(3, 0.5) == milliseconds(300));   // 400/2 + 100
  CHECK(s.delay(4, 0.0) == milliseconds(400));
  CHECK(s.delay(5, 0.999999) == milliseconds(1600));
  // From the 6th failure on the step is the cap: a Redis back is noticed within 2 s.
  CHECK(s.delay(6, 0.0) == milliseconds(1000));
  CHECK(s.delay(6, 0.999999) == milliseconds(2000));
  CHECK(s.delay(60, 0.999999) == milliseconds(2000));
}

TEST_CASE("replicas that lost Redis together spread their reconnects (jitter)") {
  const ReconnectSchedule s;
  CHECK(s.delay(4, 0.1) != s.delay(4, 0.9));
  CHECK(s.delay(4, 0.1) >= milliseconds(400));
  CHECK(s.delay(4, 0.9) <= milliseconds(800));
}

}  // namespace test_reconnect_schedule
