// What a storm reports (lab/experiments/storm.hpp's to_json and format_report), on results
// made by hand: the load, goodput and timeline of both load models, in JSON and in text.
#include <doctest/doctest.h>

#include <string>

#include "lab/experiments/storm.hpp"
#include "lab/experiments/storm_report.hpp"

namespace test_storm_report {

using namespace quote_lab;

namespace {

// An open-loop storm of 10 arrivals in 2 s: 8 sent, 6 useful, 2 not sent.
StormResult open_storm() {
  StormResult r;
  r.options.rate_per_s = 5;
  r.options.arrivals = ArrivalProcess::uniform;
  r.options.max_in_flight = 3;
  r.options.sheddable_share = 0.5;
  r.seed = 25;
  r.requests = 8;
  r.elapsed_s = 2.4;
  r.arrivals = 10;
  r.arrivals_not_sent = 2;
  r.arrival_window_s = 2.0;
  r.offered_rps = 5;
  r.goodput = 6;
  r.goodput_rps = 3;
  r.goodput_ratio = 0.6;
  r.goodput_live = 4;
  r.goodput_live_rps = 2;
  r.verdicts = {{"useful", 6}, {"late", 2}};
  r.peak_in_flight = 3;
  r.by_priority = {{"critical", {5, 5, 5, 4}}, {"sheddable", {5, 3, 3, 2}}};
  r.timeline = {{.second = 0, .arrivals = 5, .not_sent = 0, .sent = 5, .answered = 5, .useful = 5, .carrier_calls = 5},
                {.second = 1, .arrivals = 5, .not_sent = 2, .sent = 3, .answered = 3, .useful = 1, .carrier_calls = {}}};
  return r;
}

}  // namespace

TEST_CASE("an open-loop storm's JSON: load, goodput, verdicts, priorities and the timeline") {
  const auto j = to_json(open_storm());
  CHECK(j["load_model"] == "open");
  CHECK(j["clients"].is_null());  // no clients in an open loop
  CHECK(j["rate_per_s"] == 5.0);
  CHECK(j["arrival_process"] == "uniform");
  CHECK(j["max_in_flight"] == 3);
  CHECK(j["seed"] == 25);
  CHECK(j["arrivals"] == 10);
  CHECK(j["arrivals_not_sent"] == 2);
  CHECK(j["arrival_window_s"] == 2.0);
  CHECK(j["offered_rps"] == 5.0);
  CHECK(j["goodput"] == 6);
  CHECK(j["goodput_rps"] == 3.0);
  CHECK(j["goodput_ratio"] == 0.6);
  CHECK(j["goodput_live"] == 4);
  CHECK(j["goodput_live_rps"] == 2.0);
  CHECK(j["goodput_rule"] == nlohmann::ordered_json{{"deadline_ms", 2000.0}, {"fallback_max_age_s", 60.0}});
  // Every verdict is listed, those that did not happen with 0.
  CHECK(j["verdicts"].dump() == R"({"no_answer":0,"not_a_quote":0,"late":2,"stale_fallback":0,"useful":6})");
  CHECK(j["peak_in_flight"] == 3);
  CHECK(j["dispatch_lag_ms"].contains("p99"));
  CHECK(j["sheddable_share"] == 0.5);
  CHECK(j["by_priority"]["critical"]["useful"] == 4);
  CHECK(j["by_priority"]["sheddable"]["sent"] == 3);
  REQUIRE(j["timeline"].size() == 2);
  CHECK(j["timeline"][1]["not_sent"] == 2);
  CHECK(j["timeline"][1]["not_useful"] == 2);
  CHECK(j["timeline"][1]["carrier_calls"].is_null());
  // The report's older fields stay where they were.
  for (const char* key : {"requests", "throughput_rps", "latency_ms", "status_counts", "amplification", "targets"})
    CHECK(j.contains(key));
}

TEST_CASE("a closed-loop storm's JSON: its clients, no rate, and no priorities without a share") {
  StormResult r;
  r.options.clients = 10;
  r.arrivals = 40;
  const auto j = to_json(r);
  CHECK(j["load_model"] == "closed");
  CHECK(j["clients"] == 10);
  for (const char* key : {"rate_per_s", "arrival_process", "max_in_flight", "dispatch_lag_ms", "peak_in_flight"}) {
    CAPTURE(key);
    CHECK(j[key].is_null());
  }
  CHECK_FALSE(j.contains("by_priority"));
  CHECK(j["goodput_ratio"].is_null());  // no ratio set: none measured
  CHECK(j["timeline"].is_array());
}

TEST_CASE("the text report says the load model, what was offered and what was useful") {
  const std::string text = format_report(open_storm());
  CHECK(text.find("storm: 5 arrivals/s (uniform, open loop) on /quote-legacy") != std::string::npos);
  CHECK(text.find("open loop: 5 arrivals/s asked (uniform), 5.0 offered: 10 arrivals in 2.0 s, 2 not sent (at most 3 "
                  "in flight; 3 at the peak)") != std::string::npos);
  CHECK(text.find("goodput           6 useful answers, 3.0/s, 60.0 % of arrivals (HTTP 200, a live quote or a fallback "
                  "at most 60 s old, within 2000 ms); 4 of them live quotes, 2.0/s; not useful: late 2") != std::string::npos);
  CHECK(text.find("sheddable  5 arrivals, 3 sent, 2 useful") != std::string::npos);
  StormResult closed;
  closed.arrivals = 7;
  closed.offered_rps = 0.7;
  CHECK(format_report(closed).find("closed loop: 10 clients, each waiting for its answer: 7 requests, 0.7/s offered") !=
        std::string::npos);
}

}  // namespace test_storm_report
