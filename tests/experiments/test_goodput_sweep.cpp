// A goodput sweep's pure parts (lab/experiments/goodput_sweep.hpp): each step's storm, the
// whole sweep's progress and length, and the point each step adds to the curve.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lab/experiments/goodput_sweep.hpp"

namespace test_goodput_sweep {

using namespace quote_lab;

TEST_CASE("each step is the base storm at its rate, open loop, waiting for the carrier after every step but the last") {
  StormOptions base;
  base.mode = "resilient";
  base.scenario = "overloaded_fifo";
  base.clients = 20;
  base.requests = 100;  // a sweep steps by duration
  base.duration_s = 5;
  base.params = {{"circuit_breaker", "false"}};
  const StormOptions first = sweep_step_options(base, 20, 0, 3);
  CHECK(first.rate_per_s == 20);
  CHECK_FALSE(first.requests.has_value());
  CHECK(first.duration_s == 5);
  CHECK(first.mode == "resilient");
  CHECK(first.scenario == "overloaded_fifo");
  CHECK(first.params == base.params);
  CHECK(first.settle_s == kSweepSettleS);
  CHECK(load_model(first) == "open");
  CHECK(sweep_step_options(base, 40, 1, 3).settle_s == kSweepSettleS);
  const StormOptions last = sweep_step_options(base, 80, 2, 3);
  CHECK(last.rate_per_s == 80);
  CHECK(last.settle_s == 0);  // the result goes out at once, as a lone storm's does
}

TEST_CASE("the sweep's progress runs from 0 to 1 over its steps, and its lease covers the steps and the waits between") {
  CHECK(sweep_fraction(0, 4, 0) == 0);
  CHECK(sweep_fraction(0, 4, 0.5) == doctest::Approx(0.125));
  CHECK(sweep_fraction(1, 4, 0) == doctest::Approx(0.25));
  CHECK(sweep_fraction(3, 4, 1) == 1);
  CHECK(sweep_fraction(3, 4, 1.7) == 1);  // a late progress report does not go past the end
  CHECK(sweep_fraction(0, 0, 0.5) == 0);
  CHECK(sweep_duration_s(6, 5) == 57);  // 6 × (5 s sending + 2 s of last answers) + 5 × 3 s waiting for the carrier
  CHECK(sweep_duration_s(2, 2.5) == 12);  // 2 × 4.5 + 3, in whole seconds
  CHECK(sweep_duration_s(1, 10) == 12);
}

TEST_CASE("a point of the curve: the rate asked, offered load, goodput and the live quotes' share of it") {
  StormResult r;
  r.options.rate_per_s = 40;
  r.offered_rps = 39.876;
  r.goodput_rps = 30.004;
  r.goodput_live_rps = 12.345;
  r.goodput_ratio = 0.75244;
  r.arrivals_not_sent = 7;
  r.amplification = 2.5051;
  r.latency.p99_ms = 360.456;
  CHECK(sweep_point(r) == nlohmann::ordered_json{{"rate_per_s", 40.0},
                                                 {"offered_rps", 39.88},
                                                 {"goodput_rps", 30.0},
                                                 {"goodput_live_rps", 12.35},
                                                 {"goodput_ratio", 0.7524},
                                                 {"arrivals_not_sent", 7},
                                                 {"amplification", 2.51},
                                                 {"latency_p99_ms", 360.46}});
  // Against an external carrier, and before any answer: what was not measured is null.
  StormResult empty;
  empty.options.rate_per_s = 5;
  const auto j = sweep_point(empty);
  CHECK(j["amplification"].is_null());
  CHECK(j["goodput_ratio"].is_null());
  CHECK(j["latency_p99_ms"].is_null());
}

TEST_CASE("a lab keeps the last sweep of each policy, scenario and overrides, six at most, and replicas merge theirs alike") {
  using json = nlohmann::ordered_json;
  auto sweep = [](const char* mode, const char* scenario, double at, int points, json params = json::object()) {
    return json{{"mode", mode}, {"scenario", scenario}, {"params", params}, {"started_at_ms", at},
                {"points", json(std::vector<int>(static_cast<std::size_t>(points), 0))}};
  };
  auto order = [](const json& list) {
    std::string out;
    for (const auto& s : list) out += s["mode"].get<std::string>() + "/" + s["scenario"].get<std::string>() + "@" +
                                      std::to_string(static_cast<int>(s["started_at_ms"].get<double>())) + " ";
    return out;
  };
  const json here = json::array({sweep("legacy", "overloaded_fifo", 100, 6), sweep("resilient", "overloaded_fifo", 300, 6)});
  const json there = json::array({sweep("legacy", "overloaded_fifo", 200, 4), sweep("legacy", "overloaded_codel", 150, 6)});
  // The newer legacy sweep on fifo (there, 200) replaces the older (here, 100); the newest last.
  CHECK(order(merge_sweeps(here, there)) == "legacy/overloaded_codel@150 legacy/overloaded_fifo@200 resilient/overloaded_fifo@300 ");
  CHECK(merge_sweeps(here, there) == merge_sweeps(there, here));  // whichever replica merges
  // The same sweep further along (same start, more points) wins; other overrides are another curve.
  CHECK(merge_sweeps(json::array({sweep("legacy", "x", 5, 1)}), json::array({sweep("legacy", "x", 5, 3)}))[0]["points"].size() == 3);
  CHECK(merge_sweeps(json::array({sweep("legacy", "x", 5, 3)}), json::array({sweep("legacy", "x", 5, 1)}))[0]["points"].size() == 3);
  CHECK(merge_sweeps(json::array({sweep("legacy", "x", 5, 1)}), json::array({sweep("legacy", "x", 6, 1, {{"max_attempts", "2"}})})).size() == 2);
  // Seven curves: the oldest goes.
  json many = json::array();
  for (int i = 0; i < 7; ++i) many.push_back(sweep("legacy", std::to_string(i).c_str(), i, 1));
  const json kept = merge_sweeps(many, nullptr);
  REQUIRE(kept.size() == kKeptSweeps);
  CHECK(kept[0]["scenario"] == "1");
  CHECK(merge_sweeps(nullptr, nullptr) == json::array());
}

}  // namespace test_goodput_sweep
