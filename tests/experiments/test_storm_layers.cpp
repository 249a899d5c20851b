// quote-lab storm --layers N: retrying relays in front of a real lab multiply the carrier calls.
#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "lab/experiments/storm.hpp"
#include "lab/experiments/storm_report.hpp"
#include "support/lab_process.hpp"

namespace test_storm_layers {

using namespace quote_lab;
using namespace quote_lab::testing;
using std::chrono::milliseconds;

namespace {
StormOptions layered(const LabProcess& lab, int layers, const char* scenario) {
  StormOptions o;
  o.target = "http://127.0.0.1:" + std::to_string(lab.port());
  o.mode = "legacy";
  o.scenario = scenario;
  o.layers = layers;
  o.clients = 1;
  o.requests = 1;
  o.settle_s = 1;
  return o;
}
}  // namespace

// The bounds themselves are checked in-process (test_storm_options.cpp); here, that the
// command line applies them.
TEST_CASE("storm --layers beyond its bound is a usage error naming the bound") {
  const auto [code, out] = LabProcess::run({"storm", "--layers", "6"});
  CHECK(code == 2);
  CHECK(out.find("--layers must be between 1 and 5") != std::string::npos);
}

TEST_CASE("2 layers against a dead carrier: 4 attempts of 4 attempts, 16 carrier calls for one request") {
  LabProcess lab;
  const StormResult r = run_storm(layered(lab, 2, "provider_down"), nullptr);
  CHECK(r.requests == 1);
  CHECK(r.status_counts == std::map<std::string, long>{{"failed", 1}});  // the lab's own 503 body, passed on
  REQUIRE(r.carrier_calls);
  CHECK(*r.carrier_calls == 16);
  CHECK(lab.get("/carrier").json["stats"]["calls_total"] == 16);  // the carrier agrees
  REQUIRE(r.layers.size() == 2);
  CHECK(r.layers[0].layer == 2);
  CHECK(r.layers[0].requests == 1);
  CHECK(r.layers[0].calls_out == 4);
  CHECK(r.layers[1].layer == 1);
  CHECK(r.layers[1].calls == "carrier");
  CHECK(r.layers[1].requests == 4);
  CHECK(r.layers[1].calls_out == 16);
  CHECK(r.layers[1].calls_per_request == 16.0);
  // 16 carrier attempts, each held to legacy's 360 ms timeout, one after the other.
  CHECK(r.latency.max_ms.value() >= 16 * 360);
  const auto j = to_json(r);
  REQUIRE(j.contains("layers"));
  CHECK(j["layers"][1]["calls_per_request"] == 16.0);
}

TEST_CASE("3 layers against a dead carrier: 64 carrier calls for one request") {
  LabProcess lab;
  // 64 attempts of 360 ms would take 23 s; the multiplication does not depend on the
  // timeout, so the requests ask for 100 ms attempts (an override any user can pass) and
  // the relays' timeouts follow from it (6.4 s in all).
  StormOptions o = layered(lab, 3, "provider_down");
  o.params = {{"timeout_ms", "100"}};
  const StormResult r = run_storm(o, nullptr);
  CHECK(r.requests == 1);
  REQUIRE(r.carrier_calls);
  CHECK(*r.carrier_calls == 64);
  REQUIRE(r.layers.size() == 3);
  CHECK(r.layers[0].calls_out == 4);
  CHECK(r.layers[1].requests == 4);
  CHECK(r.layers[1].calls_out == 16);
  CHECK(r.layers[2].requests == 16);
  CHECK(r.layers[2].calls_out == 64);
  CHECK(r.latency.max_ms.value() >= 64 * 100);
}

TEST_CASE("a relay passes an answer on and does not retry it: layers multiply failures, not successes") {
  LabProcess lab;
  StormOptions o = layered(lab, 3, "ok");
  o.requests = 3;
  const StormResult r = run_storm(o, nullptr);
  CHECK(r.status_counts == std::map<std::string, long>{{"completed", 3}});
  REQUIRE(r.carrier_calls);
  CHECK(*r.carrier_calls == 3);
  for (const auto& layer : r.layers) {
    CAPTURE(layer.layer);
    CHECK(layer.requests == 3);
    CHECK(layer.calls_out == 3);
  }
  // And on the command line, the report names every layer.
  const auto [code, out] = LabProcess::run({"storm", "--target", o.target, "--layers", "2", "--scenario", "ok",
                                            "--requests", "1", "--settle-s", "0"});
  CHECK(code == 0);
  CHECK(out.find("layer 2 -> layer 1  1 requests, 1 calls") != std::string::npos);
  CHECK(out.find("layer 1 -> carrier  1 requests, 1 calls") != std::string::npos);
}

}  // namespace test_storm_layers
