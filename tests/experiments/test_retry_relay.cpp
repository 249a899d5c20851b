// The retrying relays of `storm --layers` (lab/experiments/retry_relay.hpp): each relay's
// attempt timeout outlasts the whole flow behind it. Relays in front of a real lab are in
// test_storm_layers.cpp.
#include <doctest/doctest.h>

#include <chrono>
#include <vector>

#include "lab/experiments/retry_relay.hpp"

namespace test_retry_relay {

using namespace quote_lab;
using std::chrono::milliseconds;

TEST_CASE("each relay waits for the whole flow behind it, with room to spare") {
  // Legacy on the defaults: 4 attempts of 360 ms, no backoff, so the lab's flow is 1,440 ms at most.
  CHECK(relay_attempt_timeouts(milliseconds(1440), 1, 4).empty());  // the lab alone: no relay
  CHECK(relay_attempt_timeouts(milliseconds(1440), 3, 4) == std::vector<milliseconds>{milliseconds(2300), milliseconds(12000)});
  for (int layers = 2; layers <= kStormMaxLayers; ++layers) {
    double behind_ms = 1440;
    for (const auto timeout : relay_attempt_timeouts(milliseconds(1440), layers, 4)) {
      CHECK(static_cast<double>(timeout.count()) > behind_ms);  // never retries a hop that is still working
      behind_ms = 4.0 * static_cast<double>(timeout.count());
    }
  }
}

}  // namespace test_retry_relay
