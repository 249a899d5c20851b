// StormExperiment (lab/experiments/storm_experiment.hpp) as it behaves today, against a tiny
// stand-in lab whose quote route waits for a gate (support/gated_quote_lab.hpp), so "still
// running" is a state the test holds rather than a race it hopes to win.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <map>

#include "lab/experiments/storm.hpp"
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

}  // namespace

TEST_CASE("before any storm the status says so: not running, no options, no progress, no result") {
  EventHub hub(1);
  StormExperiment storm(hub);
  const auto s = storm.status();
  CHECK(s == nlohmann::ordered_json{{"running", false}, {"options", nullptr}, {"progress", nullptr}, {"last_result", nullptr}});
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

TEST_CASE("a storm counts an answer whose status is not a string as an error, and goes on") {
  // A lab behind a broken proxy, or a future field type: the client thread must not throw
  // (an exception there would end the whole process).
  HttpServer server;
  std::atomic<int> quotes{0};
  server.routes().Get("/quote-legacy", [&](const httplib::Request&, httplib::Response& res) {
    const char* bodies[] = {R"({"status":5,"events":"none"})", R"({"status":null,"events":[1,{"elapsed_ms":"x"}]})",
                            R"({"status":"completed"})"};
    res.set_content(bodies[quotes++ % 3], "application/json");
  });
  StormOptions o = small_storm();
  o.target = "http://127.0.0.1:" + std::to_string(server.start("127.0.0.1", 0, 4));
  o.clients = 1;
  o.requests = 6;
  o.settle_s = 0;
  const StormResult r = run_storm(o, [](const StormProgress&) {});
  CHECK(r.requests == 6);
  CHECK(r.status_counts == std::map<std::string, long>{{"completed", 2}, {"error", 4}});
  server.stop();
}

}  // namespace test_storm_experiment
