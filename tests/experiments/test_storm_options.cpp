// StormOptions (lab/experiments/storm.hpp) are bounded: every absurd value is refused with a
// reason, all at once. Storms against a real lab are in test_storm.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "lab/experiments/storm.hpp"
#include "lab/experiments/storm_target.hpp"

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

TEST_CASE("the open loop's options are bounded: rate, in flight, sheddable share, goodput rule") {
  using Errors = std::vector<std::string>;
  StormOptions o;
  o.rate_per_s = 200;
  CHECK(validate(o).empty());
  o.rate_per_s = kStormMinRatePerS;
  CHECK(validate(o).empty());  // both bounds are allowed
  o.rate_per_s = kStormMaxRatePerS;
  CHECK(validate(o).empty());
  const Errors rate{"--rate must be between 0.1 and 2000 arrivals per second (this machine has 2 cores, shared by the "
                    "storm, the lab and its carrier)"};
  for (const double bad : {0.0, 0.09, -5.0, 2000.5, std::nan("")}) {
    o.rate_per_s = bad;
    CHECK(validate(o) == rate);
  }
  o = StormOptions{};
  o.max_in_flight = 0;
  const Errors in_flight{"--max-in-flight must be between 1 and 500 (each request in flight is a thread and a "
                         "connection here, and a connection at the lab)"};
  CHECK(validate(o) == in_flight);
  o.max_in_flight = 501;
  CHECK(validate(o) == in_flight);
  o.max_in_flight = 500;
  CHECK(validate(o).empty());
  o = StormOptions{};
  o.sheddable_share = 1.01;
  CHECK(validate(o) == Errors{"--sheddable-share must be between 0 and 1 (the share of requests marked X-Priority: sheddable)"});
  o.sheddable_share = 1;
  CHECK(validate(o).empty());
  o = StormOptions{};
  o.goodput.deadline_ms = 0;
  CHECK(validate(o) == Errors{"--goodput-deadline-ms must be between 1 and 60000"});
  o = StormOptions{};
  o.goodput.fallback_max_age_s = -1;
  CHECK(validate(o) == Errors{"--fallback-max-age-s must be between 0 and 86400 (a day)"});
  o.rate_per_s = 0;
  o.max_in_flight = 0;
  CHECK(validate(o).size() == 3);  // every problem at once
}

TEST_CASE("the load model follows the rate, and a given seed is the seed used") {
  StormOptions o;
  CHECK(load_model(o) == "closed");
  o.rate_per_s = 5;
  CHECK(load_model(o) == "open");
  o.seed = 25;
  CHECK(storm_seed(o) == 25);
}

}  // namespace test_storm_options
