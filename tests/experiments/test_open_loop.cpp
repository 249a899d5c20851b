// The open loop of `quote-lab storm --rate` (lab/experiments/open_loop.hpp) against a stand-in
// lab that holds every answer until the test opens a gate (support/gated_quote_lab.hpp):
// arrivals that never wait for answers are then a state the test holds, not a race.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "lab/experiments/storm.hpp"
#include "support/gated_quote_lab.hpp"
#include "support/poll.hpp"

namespace test_open_loop {

using namespace quote_lab;
using namespace std::chrono_literals;
using quote_lab::testing::eventually;

namespace {

using GatedLab = quote_lab::testing::GatedQuoteLab;

StormOptions open_storm(const std::string& url, double rate_per_s, double duration_s) {
  StormOptions o;
  o.target = url;
  o.mode = "legacy";
  o.scenario = "ok";
  o.rate_per_s = rate_per_s;
  o.arrivals = ArrivalProcess::uniform;  // exactly rate × duration arrivals
  o.duration_s = duration_s;
  o.settle_s = 0;
  return o;
}

}  // namespace

TEST_CASE("an open loop never waits for answers: arrivals keep their schedule, those beyond the bound are counted") {
  GatedLab lab(false);
  StormOptions o = open_storm(lab.url, 100, 1);
  o.max_in_flight = 5;
  std::atomic<double> elapsed_s{0};
  StormResult r;
  std::thread storm([&] { r = run_storm(o, [&](const StormProgress& p) { elapsed_s = p.elapsed_s; }); });
  // The arrivals end at 1 s (the last is due at 0.99 s); the storm then waits for its answers.
  REQUIRE(eventually([&] { return elapsed_s >= 1.2; }, 10s));
  CHECK(lab.waiting == 5);  // the 5 the bound let through, all still unanswered
  lab.open();
  storm.join();
  CHECK(r.options.rate_per_s == 100);
  CHECK(r.arrivals == 100);             // 0, 10 ms, ..., 990 ms: all of them, though no answer came
  CHECK(r.arrivals_not_sent == 95);     // found 5 unanswered: counted, never sent
  CHECK(r.requests == 5);
  CHECK(r.peak_in_flight == 5);
  CHECK(r.arrival_window_s >= 1.0);
  CHECK(r.arrival_window_s < 1.1);      // the dispatcher ended on time, not after the answers
  CHECK(r.offered_rps == doctest::Approx(100).epsilon(0.1));
  CHECK(r.dispatch_lag.count == 100);
  CHECK(r.goodput == 5);                // answered about 1.2 s after arriving: within the 2 s deadline
  CHECK(r.goodput_ratio == doctest::Approx(0.05));
  REQUIRE(r.timeline.size() == 1);
  CHECK(r.timeline[0].arrivals == 100);
  CHECK(r.timeline[0].not_sent == 95);
  CHECK(r.timeline[0].sent == 5);
  CHECK(r.timeline[0].useful == 5);
  CHECK(r.timeline[0].carrier_calls == std::nullopt);  // this lab shows no /metrics
}

TEST_CASE("a sheddable share marks exactly that share of the requests, and only then is a header sent") {
  GatedLab lab(true);
  StormOptions o = open_storm(lab.url, 400, 0.25);  // 100 arrivals
  o.sheddable_share = 0.3;
  // What is judged here is which requests carry which priority, not how fast 100 threads
  // start: under ThreadSanitizer some answers took over the 2 s default.
  o.goodput.deadline_ms = 60'000;
  const StormResult r = run_storm(o, nullptr);
  REQUIRE(r.arrivals == 100);
  REQUIRE(r.arrivals_not_sent == 0);
  {
    std::lock_guard lock(lab.mutex);
    CHECK(lab.priorities == std::map<std::string, int>{{"critical", 70}, {"sheddable", 30}});
    lab.priorities.clear();
  }
  CHECK(r.by_priority.at("sheddable").arrivals == 30);
  CHECK(r.by_priority.at("sheddable").useful == 30);
  CHECK(r.by_priority.at("critical").useful == 70);
  CHECK(r.goodput == 100);
  CHECK(r.verdicts.at("useful") == 100);
  // No share: the requests are what a storm always sent, without X-Priority; a closed loop too.
  o.sheddable_share = 0;
  CHECK(run_storm(o, nullptr).by_priority.empty());
  StormOptions closed = o;
  closed.rate_per_s.reset();
  closed.clients = 2;
  closed.requests = 10;
  const StormResult c = run_storm(closed, nullptr);
  CHECK(c.arrivals == 10);  // a closed loop's arrivals are its requests
  CHECK(c.goodput == 10);
  std::lock_guard lock(lab.mutex);
  CHECK(lab.priorities == std::map<std::string, int>{{"", 110}});
}

}  // namespace test_open_loop
