// quote-lab storm: bounded options, and a small real storm against a real lab.
#include <doctest/doctest.h>

#include "lab/experiments/storm.hpp"
#include "support/lab_process.hpp"

using namespace quote_lab;
using namespace quote_lab::testing;

TEST_CASE("storm options are bounded: absurd values are refused with a reason") {
  StormOptions o;
  CHECK(validate(o).empty());
  o.clients = 0;
  CHECK(validate(o).front().find("--clients must be between 1 and 500") == 0);
  o.clients = 501;
  CHECK_FALSE(validate(o).empty());
  o = StormOptions{};
  o.duration_s = 0;
  CHECK(validate(o).front().find("--duration") == 0);
  o = StormOptions{};
  o.requests = 3'000'000;
  CHECK(validate(o).front().find("--requests") == 0);
  o = StormOptions{};
  o.target = "ftp://x";
  CHECK_FALSE(validate(o).empty());
  o = StormOptions{};
  o.mode = "chaos";
  CHECK_FALSE(validate(o).empty());
}

TEST_CASE("a small storm reports requests, latency, status mix, amplification and /health latency") {
  LabProcess lab;
  StormOptions o;
  o.target = "http://127.0.0.1:" + std::to_string(lab.port());
  o.mode = "legacy";
  o.scenario = "flaky";
  o.clients = 4;
  o.requests = 12;
  o.settle_s = 1;
  int progress_calls = 0;
  const StormResult r = run_storm(o, [&](const StormProgress&) { ++progress_calls; });
  CHECK(r.requests == 12);
  CHECK(r.status_counts.at("completed") == 12);
  REQUIRE(r.carrier_calls);
  CHECK(*r.carrier_calls == 24);                      // flaky: every request takes 2 attempts
  CHECK(*r.amplification == doctest::Approx(2.0));
  CHECK(r.latency.p50_ms.value() >= 360 + 150);       // a 360 ms timeout, then 150-195 ms of work
  CHECK(r.health_latency.count > 0);
  CHECK(progress_calls >= 1);
  REQUIRE(r.wasted_carrier_calls);
  CHECK(*r.wasted_carrier_calls == 12);               // every first attempt finished after the lab gave up
  REQUIRE(r.wasted_carrier_seconds);
  CHECK(*r.wasted_carrier_seconds >= 12 * 0.520);     // 520-560 ms of work each
  CHECK(*r.wasted_carrier_seconds <= 12 * 0.560 + 1.0);  // room for late wake-ups on a loaded machine
  const auto j = to_json(r);
  for (const char* key : {"requests", "throughput_rps", "latency_ms", "status_counts", "carrier_calls", "amplification",
                          "health_latency_ms", "wasted_carrier_calls"})
    CHECK(j.contains(key));
  for (const char* key : {"p50", "p95", "p99", "max"}) CHECK(j["latency_ms"].contains(key));
  for (const char* key : {"p50", "p99"}) CHECK(j["health_latency_ms"].contains(key));
}

TEST_CASE("quote-lab storm on the command line: refuses absurd clients, prints JSON, fails on a bad scenario") {
  const auto [code, out] = LabProcess::run({"storm", "--clients", "100000"});
  CHECK(code == 2);
  CHECK(out.find("--clients must be between 1 and 500") != std::string::npos);
  LabProcess lab;
  const std::string target = "http://127.0.0.1:" + std::to_string(lab.port());
  const auto [ok, json] = LabProcess::run({"storm", "--target", target, "--mode", "resilient", "--scenario", "ok",
                                           "--clients", "2", "--requests", "6", "--json", "--settle-s", "0"});
  CHECK(ok == 0);
  const auto j = nlohmann::json::parse(json.substr(json.find('{')), nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  CHECK(j["requests"] == 6);
  CHECK(j["amplification"] == 1.0);
  const auto [bad, text] = LabProcess::run({"storm", "--target", target, "--scenario", "nope", "--requests", "3"});
  CHECK(bad == 1);
  CHECK(text.find("refused") != std::string::npos);
}
