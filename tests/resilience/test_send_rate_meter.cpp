#include <doctest/doctest.h>

#include "lab/resilience/overload/send_rate_meter.hpp"
#include "support/fake_clock.hpp"

namespace test_send_rate_meter {

using namespace quote_lab;
using quote_lab::testing::FakeClock;
using std::chrono::milliseconds;

TEST_CASE("10 answers a second: the average climbs 8, 9.6, 9.92 ... at each half-second bucket") {
  FakeClock clock;  // a whole second of steady time: botocore's first bucket starts there
  SendRateMeter meter(clock.now());
  const double expected[] = {8.0, 9.6, 9.92, 9.984, 9.9968, 9.99936};
  for (double rate : expected) {
    for (int i = 0; i < 4; ++i) {
      clock.advance(milliseconds(100));
      meter.record(clock.now());  // inside the bucket: counted, the average unchanged
    }
    clock.advance(milliseconds(100));
    CHECK(meter.record(clock.now()) == doctest::Approx(rate));  // 5 in 0.5 s = 10/s, smoothed 0.8
  }
}

TEST_CASE("a quiet spell: the count is spread over every bucket it spans") {
  FakeClock clock;
  SendRateMeter meter(clock.now());
  clock.advance(milliseconds(2000));
  // 1 answer over 2 s = 0.5/s; smoothed: 0.8 × 0.5 = 0.4.
  CHECK(meter.record(clock.now()) == doctest::Approx(0.4));
  CHECK(meter.measured_rate_per_s() == doctest::Approx(0.4));
}

}  // namespace test_send_rate_meter
