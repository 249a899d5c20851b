// StormExperiment (lab/experiments/storm_experiment.hpp) as it behaves today, against a tiny
// stand-in lab whose quote route waits for a gate (support/gated_quote_lab.hpp), so "still
// running" is a state the test holds rather than a race it hopes to win.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <map>

#include "lab/experiments/storm.hpp"
#include "lab/experiments/goodput_sweep.hpp"
#include "lab/experiments/storm_experiment.hpp"
#include "lab/http/http_server.hpp"
#include "support/gated_quote_lab.hpp"
#include "support/poll.hpp"

namespace test_storm_experiment {

using namespace quote_lab;
using namespace std::chrono_literals;
using quote_lab::testing::eventually;

namespace {

using StandInLab = quote_lab::testing::GatedQuoteLab;

StormOptions small_storm() {
  StormOptions o;
  o.target = "http://127.0.0.1:1";  // replaced by the lab's own address
  o.mode = "legacy";
  o.scenario = "flaky";
  o.clients = 2;
  o.requests = 6;
  return o;
}

// A StormExperiment storming a stand-in lab (`open`: no gate), its events read on `stream`.
struct SweepRig {
  explicit SweepRig(bool open) : lab(open) { storm.set_self_url(lab.url); }
  StandInLab lab;
  EventHub hub{2};
  std::shared_ptr<EventHub::Subscriber> stream = hub.subscribe();
  StormExperiment storm{hub};
};

// The storm of each step of a sweep: 1 s of evenly spaced arrivals (exactly rate of them).
StormOptions sweep_of_1s_steps() {
  StormOptions o = small_storm();
  o.requests.reset();
  o.duration_s = 1;
  o.arrivals = ArrivalProcess::uniform;
  return o;
}

}  // namespace

TEST_CASE("before any storm the status says so: not running, no options, no progress, no result, no sweep") {
  EventHub hub(1);
  StormExperiment storm(hub);
  const auto s = storm.status();
  CHECK(s == nlohmann::ordered_json{{"running", false}, {"options", nullptr}, {"progress", nullptr}, {"last_result", nullptr},
                                    {"sweep", nullptr}, {"sweeps", nlohmann::ordered_json::array()}});
}

TEST_CASE("one storm at a time: a second start while one runs is busy, the result is kept when it ends") {
  StandInLab lab;
  EventHub hub(2);
  const auto stream = hub.subscribe();
  StormExperiment storm(hub);
  storm.set_self_url(lab.url);
  std::vector<std::string> errors;
  REQUIRE(storm.start(small_storm(), errors) == StormExperiment::Start::started);
  CHECK(errors.empty());
  REQUIRE(eventually([&] { return lab.waiting == 2; }, 2s));  // both clients are in flight, held by the gate

  auto s = storm.status();
  CHECK(s["running"] == true);
  CHECK(s["options"] == nlohmann::ordered_json{{"mode", "legacy"}, {"scenario", "flaky"}, {"load_model", "closed"},
                                               {"clients", 2}, {"rate_per_s", nullptr}, {"arrivals", nullptr},
                                               {"max_in_flight", nullptr}, {"sheddable_share", 0.0},
                                               {"duration_s", nullptr}, {"requests", 6},
                                               {"params", nlohmann::ordered_json::object()}, {"layers", 1}});
  CHECK(s["last_result"].is_null());
  StormOptions other = small_storm();
  other.scenario = "ok";
  CHECK(storm.start(other, errors) == StormExperiment::Start::busy);
  CHECK(storm.status()["options"]["scenario"] == "flaky");  // the running storm is untouched

  lab.open();
  REQUIRE(eventually([&] { return storm.status()["running"] == false; }, 3s));
  s = storm.status();
  CHECK(lab.quotes == 6);  // exactly the requests asked for, all at the lab itself
  CHECK(s["progress"].is_null());
  CHECK(s["last_result"]["requests"] == 6);
  CHECK(s["last_result"]["status_counts"] == nlohmann::ordered_json{{"completed", 6}});
  CHECK(s["last_result"]["carrier_calls"].is_null());  // this lab shows no carrier metrics
  CHECK(s["options"]["scenario"] == "flaky");

  // The result went out on the event stream too, once.
  bool closed = false;
  const auto events = hub.wait(*stream, 1ms, closed);
  const auto results = std::count_if(events.begin(), events.end(), [](const ServerEvent& e) { return e.type == "storm_result"; });
  CHECK(results == 1);
  REQUIRE_FALSE(events.empty());
  CHECK(events.back().type == "storm_result");
  CHECK(nlohmann::json::parse(events.back().data)["requests"] == 6);

  // Once it has ended, the next one may start.
  lab.quotes = 0;
  REQUIRE(storm.start(other, errors) == StormExperiment::Start::started);
  REQUIRE(eventually([&] { return storm.status()["running"] == false; }, 3s));
  CHECK(lab.quotes == 6);
  CHECK(storm.status()["options"]["scenario"] == "ok");
}

TEST_CASE("the lab's reset forgets the last result") {
  StandInLab lab;
  lab.open();
  EventHub hub(1);
  StormExperiment storm(hub);
  storm.set_self_url(lab.url);
  std::vector<std::string> errors;
  REQUIRE(storm.start(small_storm(), errors) == StormExperiment::Start::started);
  REQUIRE(eventually([&] { return storm.status()["running"] == false; }, 3s));
  REQUIRE(storm.status()["last_result"]["requests"] == 6);
  storm.forget_result();
  CHECK(storm.status() == StormExperiment(hub).status());  // as before any storm
}

TEST_CASE("storms started over HTTP are bounded tighter than the command line's, and say why") {
  EventHub hub(1);
  StormExperiment storm(hub);
  storm.set_self_url("http://127.0.0.1:1");
  std::vector<std::string> errors;
  StormOptions o = small_storm();
  o.clients = kExperimentMaxClients + 1;  // fine for `quote-lab storm` (500), not from the dashboard
  CHECK(storm.start(o, errors) == StormExperiment::Start::invalid);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "clients must be at most 100 for a storm started from the lab");
  o = small_storm();
  o.requests.reset();
  o.duration_s = kExperimentMaxDurationS + 1;
  CHECK(storm.start(o, errors) == StormExperiment::Start::invalid);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "duration_s must be at most 60 for a storm started from the lab");
  o = small_storm();
  o.mode = "Chaos!";
  CHECK(storm.start(o, errors) == StormExperiment::Start::invalid);
  CHECK(errors == std::vector<std::string>{"--mode must name a policy: legacy, resilient or a named one of the lab (1-32 of a-z, 0-9, '_', '-')"});
  o = small_storm();
  o.layers = kExperimentMaxLayers + 1;
  CHECK(storm.start(o, errors) == StormExperiment::Start::invalid);
  CHECK(errors == std::vector<std::string>{
                      "layers must be between 1 and 3 for a storm started from the lab (`quote-lab storm --layers` goes to 5)"});
  CHECK(storm.status()["running"] == false);  // nothing started
  CHECK(storm.status()["options"].is_null());
}

TEST_CASE("a goodput sweep runs one open-loop storm per rate, in order, and each step adds its point to the curve") {
  SweepRig rig(true);
  auto& [lab, hub, stream, storm] = rig;
  StormOptions o = sweep_of_1s_steps();
  std::vector<std::string> errors;
  REQUIRE(storm.start(o, errors, {20, 50}) == StormExperiment::Start::started);
  auto started = storm.status()["sweep"];
  CHECK(started["started_at_ms"].get<double>() > 1.7e12);  // Unix time in ms: after 2023
  started.erase("started_at_ms");
  CHECK(started == nlohmann::ordered_json{{"mode", "legacy"}, {"scenario", "flaky"}, {"params", nlohmann::ordered_json::object()},
                                          {"rates_per_s", {20.0, 50.0}}, {"step_duration_s", 1.0}, {"state", "running"},
                                          {"points", nlohmann::ordered_json::array()}});
  REQUIRE(eventually([&] { return storm.status()["running"] == false; }, 15s));
  const auto s = storm.status();
  const auto& points = s["sweep"]["points"];
  REQUIRE(points.size() == 2);
  CHECK(points[0]["rate_per_s"] == 20.0);
  CHECK(points[1]["rate_per_s"] == 50.0);
  // 20 then 50 arrivals a second for 1 s each, evenly spaced: every one sent and answered
  // at once with a live quote.
  CHECK(lab.quotes == 70);
  for (const auto& p : points) {
    CAPTURE(p.dump());
    CHECK(p["offered_rps"].get<double>() == doctest::Approx(p["rate_per_s"].get<double>()).epsilon(0.1));
    CHECK(p["goodput_rps"] == p["offered_rps"]);
    CHECK(p["goodput_live_rps"] == p["goodput_rps"]);
    CHECK(p["arrivals_not_sent"] == 0);
  }
  CHECK(s["sweep"]["state"] == "done");
  CHECK(s["sweeps"] == nlohmann::ordered_json::array({s["sweep"]}));
  CHECK(s["last_result"]["rate_per_s"] == 50.0);  // the last step's whole report
  CHECK(s["options"]["rate_per_s"] == 50.0);
  // On the stream: a point after each step, then the result, once.
  bool closed = false;
  std::vector<std::string> types;
  for (const auto& e : hub.wait(*stream, 1ms, closed))
    if (e.type != "storm_progress") types.push_back(e.type);
  CHECK(types == std::vector<std::string>{"storm_sweep", "storm_sweep", "storm_result"});
  // A sweep's bounds, each refused with its reason and nothing started.
  CHECK(storm.start(o, errors, {20}) == StormExperiment::Start::invalid);
  CHECK(errors == std::vector<std::string>{"a sweep has 2 to 12 rates"});
  o.duration_s = 31;
  CHECK(storm.start(o, errors, {20, 40}) == StormExperiment::Start::invalid);
  CHECK(errors == std::vector<std::string>{"a sweep's steps (rates × duration_s) must send for at most 60 s, without `requests`"});
  o.duration_s = 1;
  CHECK(storm.start(o, errors, {20, 501}) == StormExperiment::Start::invalid);
  CHECK(errors == std::vector<std::string>{"rate must be between 0.1 and 500 arrivals per second for a storm started from the lab"});
  CHECK(storm.status()["sweep"]["points"].size() == 2);  // the last sweep, untouched
  // A sweep of another scenario is kept beside it; one of the same scenario replaces it.
  o.scenario = "ok";
  REQUIRE(storm.start(o, errors, {20, 30}) == StormExperiment::Start::started);
  REQUIRE(eventually([&] { return storm.status()["running"] == false; }, 15s));
  auto kept = storm.status()["sweeps"];
  REQUIRE(kept.size() == 2);
  CHECK(kept[0]["scenario"] == "flaky");
  CHECK(kept[1]["scenario"] == "ok");
  REQUIRE(storm.start(o, errors, {20, 40}) == StormExperiment::Start::started);
  REQUIRE(eventually([&] { return storm.status()["running"] == false; }, 15s));
  kept = storm.status()["sweeps"];
  REQUIRE(kept.size() == 2);
  CHECK(kept[1]["rates_per_s"] == nlohmann::ordered_json{20.0, 40.0});
  storm.forget_result();
  CHECK(storm.status()["sweep"].is_null());
  CHECK(storm.status()["sweeps"].empty());
}

namespace {

// Six requests, one client, against a stand-in whose /quote-legacy answers `bodies` in turn.
StormResult six_requests_answered(const std::vector<const char*>& bodies) {
  HttpServer server;
  std::atomic<std::size_t> quotes{0};
  server.routes().Get("/quote-legacy", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(bodies[quotes++ % bodies.size()], "application/json");
  });
  StormOptions o = small_storm();
  o.target = "http://127.0.0.1:" + std::to_string(server.start("127.0.0.1", 0, 4));
  o.clients = 1;
  o.requests = 6;
  o.settle_s = 0;
  StormResult r = run_storm(o, [](const StormProgress&) {});
  server.stop();
  return r;
}

}  // namespace

TEST_CASE("a sweep cancelled mid-step keeps no point from part of a step, and a reset mid-sweep forgets it for good") {
  SweepRig rig(false);  // every answer held at the gate: the first step cannot end by itself
  auto& [lab, hub, stream, storm] = rig;
  StormOptions o = sweep_of_1s_steps();
  std::vector<std::string> errors;
  REQUIRE(storm.start(o, errors, {20, 40}) == StormExperiment::Start::started);
  REQUIRE(eventually([&] { return lab.waiting >= 2; }, 5s));
  CHECK(storm.cancel());
  lab.open();
  REQUIRE(eventually([&] { return storm.status()["running"] == false; }, 15s));
  auto s = storm.status();
  CHECK(s["sweep"]["state"] == "cancelled");
  CHECK(s["sweep"]["points"].empty());
  CHECK(s["sweeps"].size() == 1);  // kept, and says it was cancelled

  // A reset (cancel, then forget) while a sweep runs: nothing of it comes back afterwards.
  lab.close();
  REQUIRE(storm.start(o, errors, {20, 40}) == StormExperiment::Start::started);
  REQUIRE(eventually([&] { return lab.waiting >= 2; }, 5s));
  bool closed = false;
  hub.wait(*stream, 1ms, closed);  // what the first sweep sent
  storm.cancel();
  storm.forget_result();
  lab.open();
  REQUIRE(eventually([&] { return storm.status()["running"] == false; }, 15s));
  s = storm.status();
  CHECK(s["sweep"].is_null());
  CHECK(s["sweeps"].empty());
  for (const auto& e : hub.wait(*stream, 1ms, closed)) CHECK(e.type != "storm_sweep");
}

TEST_CASE("goodput counts a fresh fallback quote, and its live part only the live quotes") {
  const StormResult r = six_requests_answered({R"({"status":"completed","quote":{"source":"live"}})",
                                               R"({"status":"degraded","quote":{"source":"fallback","age_s":3}})",
                                               R"({"status":"completed","quote":{"source":5}})"});
  CHECK(r.goodput == 6);       // a quote of no stated source is not a fallback: useful
  CHECK(r.goodput_live == 2);  // but only a quote that says `live` is counted live
  CHECK(r.goodput_live_rps == doctest::Approx(r.goodput_rps / 3));
}

TEST_CASE("a storm counts an answer whose status is not a string as an error, and goes on") {
  // A lab behind a broken proxy, or a future field type: the client thread must not throw
  // (an exception there would end the whole process).
  const StormResult r = six_requests_answered({R"({"status":5,"events":"none"})",
                                               R"({"status":null,"events":[1,{"elapsed_ms":"x"}]})", R"({"status":"completed"})"});
  CHECK(r.requests == 6);
  CHECK(r.status_counts == std::map<std::string, long>{{"completed", 2}, {"error", 4}});
}

}  // namespace test_storm_experiment
