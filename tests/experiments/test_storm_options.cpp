// StormOptions (lab/experiments/storm.hpp) are bounded: every absurd value is refused with a
// reason, all at once. Storms against a real lab are in test_storm.cpp.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lab/experiments/storm.hpp"

namespace test_storm_options {

using namespace quote_lab;

TEST_CASE("storm options are bounded: absurd values are refused with a reason") {
  using Errors = std::vector<std::string>;
  StormOptions o;
  CHECK(validate(o).empty());
  o.clients = 0;
  const Errors clients{"--clients must be between 1 and 500 (this machine has 2 cores; more clients only measure the client)"};
  CHECK(validate(o) == clients);
  o.clients = 501;
  CHECK(validate(o) == clients);
  o.clients = 500;
  CHECK(validate(o).empty());  // the bound itself is allowed
  o = StormOptions{};
  o.duration_s = 0;
  CHECK(validate(o) == Errors{"--duration must be between 0.1 and 600 seconds"});
  o.requests = 5;  // a request count replaces the duration
  CHECK(validate(o).empty());
  o = StormOptions{};
  o.requests = 3'000'000;
  CHECK(validate(o) == Errors{"--requests must be between 1 and 2000000"});
  o = StormOptions{};
  o.target = "ftp://x";
  CHECK(validate(o) == Errors{"--target must be an http:// URL of a running lab"});
  o = StormOptions{};
  o.mode = "adr0005";  // a named policy: whether the lab serves it is asked of the lab (check_storm_mode)
  CHECK(validate(o).empty());
  o.mode = "Chaos!";
  CHECK(validate(o) == Errors{"--mode must name a policy: legacy, resilient or a named one of the lab (1-32 of a-z, 0-9, '_', '-')"});
  o.settle_s = 61;
  CHECK(validate(o).size() == 2);  // every problem at once
}

TEST_CASE("storm --layers is bounded and takes one target") {
  StormOptions o;
  o.layers = 0;
  CHECK(validate(o).size() == 1);
  o.layers = kStormMaxLayers + 1;
  CHECK(validate(o).size() == 1);
  o.layers = kStormMaxLayers;
  CHECK(validate(o).empty());
  o.extra_targets = {"http://127.0.0.1:9"};
  CHECK(validate(o) == std::vector<std::string>{"--layers takes one --target: the relays stand in front of one lab"});
}

}  // namespace test_storm_options
