// quote-lab storm: bounded options, and a small real storm against a real lab.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "lab/experiments/storm.hpp"
#include "lab/experiments/storm_report.hpp"
#include "support/lab_process.hpp"

namespace test_storm {

using namespace quote_lab;
using namespace quote_lab::testing;

TEST_CASE("a small storm reports requests, latency, status mix, amplification and /health latency") {
  LabProcess lab;
  StormOptions o;
  o.target = "http://127.0.0.1:" + std::to_string(lab.port());
  o.mode = "legacy";
  o.scenario = "flaky";
  o.clients = 4;
  o.requests = 12;
  o.settle_s = 1;
  std::vector<StormProgress> progress;
  const StormResult r = run_storm(o, [&](const StormProgress& p) { progress.push_back(p); });
  CHECK(r.requests == 12);
  CHECK(r.status_counts == std::map<std::string, long>{{"completed", 12}});
  REQUIRE(r.carrier_calls);
  CHECK(*r.carrier_calls == 24);                      // flaky: every request takes 2 attempts
  CHECK(*r.amplification == doctest::Approx(2.0));
  // Each request: attempt 1 times out at legacy's 360 ms (flaky takes 520-560 ms), attempt 2
  // answers in 150-195 ms, so 510-555 ms plus loopback; 12 requests on 4 clients are 3 rounds.
  CHECK(r.latency.p50_ms.value() >= 510);
  // Upper bounds leave room for a loaded machine and the sanitizer builds (the lower bounds
  // are the precise ones: no request can be faster than its timeout plus the retry).
  CHECK(r.latency.max_ms.value() < 555 + 400);
  CHECK(r.elapsed_s >= 3 * 0.510);
  CHECK(r.elapsed_s < 3 * 0.555 + 1.5);
  // The monitor asks /health about every 50 ms while the clients run, and 16 lab workers
  // leave room for it beside 4 clients: at least one answer per 200 ms, never more than one per 50 ms.
  CHECK(r.health_latency.count >= static_cast<std::size_t>(r.elapsed_s / 0.2));
  CHECK(r.health_latency.count <= static_cast<std::size_t>(r.elapsed_s / 0.05) + 1);
  CHECK(r.health_latency.p99_ms.value() < 500);  // never starved (about 1 ms when idle; a legacy storm: seconds)
  // Progress every 200 ms or more while it runs, then one final report of everything.
  REQUIRE(progress.size() >= 2);
  CHECK(progress.size() <= static_cast<std::size_t>(r.elapsed_s / 0.2) + 1);
  CHECK(progress.back().requests == 12);
  CHECK(progress.back().fraction == 1.0);
  CHECK(progress.front().fraction < 1.0);  // a report while the storm was still running
  for (std::size_t i = 1; i < progress.size(); ++i) {
    CHECK(progress[i].requests >= progress[i - 1].requests);
    CHECK(progress[i].fraction >= progress[i - 1].fraction);
  }
  REQUIRE(r.wasted_carrier_calls);
  CHECK(*r.wasted_carrier_calls == 12);  // every first attempt finished after the lab gave up; no second one did
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

TEST_CASE("quote-lab storm --target repeated: clients dealt round robin, each target reported and the totals") {
  LabProcess a;
  LabProcess b;
  const std::string ta = "http://127.0.0.1:" + std::to_string(a.port());
  const std::string tb = "http://127.0.0.1:" + std::to_string(b.port());
  const auto [code, out] = LabProcess::run({"storm", "--target", ta, "--target", tb, "--mode", "resilient", "--scenario",
                                            "ok", "--clients", "4", "--requests", "12", "--json", "--settle-s", "0"});
  REQUIRE(code == 0);
  const auto j = nlohmann::json::parse(out.substr(out.find('{')), nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  REQUIRE(j["targets"].size() == 2);
  CHECK(j["targets"][0]["target"] == ta);
  CHECK(j["targets"][1]["target"] == tb);
  long sum = 0;
  for (const auto& t : j["targets"]) {
    CHECK(t["clients"] == 2);                          // 4 clients, 2 each
    CHECK(t["requests"].get<long>() >= 1);             // both labs were stormed
    CHECK(t["carrier_calls"] == t["requests"]);        // ok: one carrier call per quote, counted per lab
    CHECK(t["status_counts"]["completed"] == t["requests"]);
    sum += t["requests"].get<long>();
  }
  CHECK(sum == 12);
  CHECK(j["requests"] == 12);
  CHECK(j["carrier_calls"] == 12);                      // the totals add the labs up
  // What each lab saw agrees with the report.
  CHECK(a.get("/carrier").json["stats"]["calls_total"] == j["targets"][0]["carrier_calls"]);
  CHECK(b.get("/carrier").json["stats"]["calls_total"] == j["targets"][1]["carrier_calls"]);
  const auto [text_code, text] = LabProcess::run({"storm", "--target", ta, "--target", tb, "--mode", "resilient",
                                                  "--scenario", "ok", "--clients", "2", "--requests", "2", "--settle-s", "0"});
  CHECK(text_code == 0);
  CHECK(text.find("and 1 more (round robin)") != std::string::npos);
  CHECK(text.find("per target") != std::string::npos);
  CHECK(text.find(tb) != std::string::npos);
}

TEST_CASE("quote-lab storm refuses to start when any target is not a quote lab") {
  LabProcess lab;
  const std::string good = "http://127.0.0.1:" + std::to_string(lab.port());
  const std::string nothing = "http://127.0.0.1:1";  // nothing listens on port 1
  const auto [code, out] = LabProcess::run({"storm", "--target", good, "--target", nothing, "--requests", "3"});
  CHECK(code == 1);
  CHECK(out.find(nothing + " does not answer") != std::string::npos);
  CHECK(lab.get("/carrier").json["stats"]["calls_total"] == 0);  // not one request was sent
  const auto [bad_url, text] = LabProcess::run({"storm", "--target", good, "--target", "ftp://x", "--requests", "3"});
  CHECK(bad_url == 2);
  CHECK(text.find("--target must be an http:// URL") != std::string::npos);
}

}  // namespace test_storm
