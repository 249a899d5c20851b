// Every lab's shedding station: one lab's full queue never sheds another lab's call, the
// stations together hold at most the carrier's spare workers, a lab's reset restarts only
// its own trigger, and the stations kept are bounded.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "lab/carrier/shedding_stations.hpp"
#include "support/fake_clock.hpp"

namespace test_shedding_stations {

using namespace quote_lab;
using Kind = StationTurn::Kind;

namespace {

const auto at = &quote_lab::testing::steady_at;

Scenario shedding_scenario(int capacity, int queue_max, const std::string& trigger = "") {
  return scenario_from_json(
      nlohmann::ordered_json::parse(R"({"name": "overloaded", "description": {"es": "a", "en": "b"},
          "then": {"latency_ms": [100, 100], "response": "ok"},
          "shedding": {"capacity": )" + std::to_string(capacity) + R"(, "queue": {"discipline": "fifo", "max": )" +
                                    std::to_string(queue_max) + "}" + trigger + "}}"),
      "overloaded.json");
}

}  // namespace

TEST_CASE("each lab has its own station: one lab's full carrier never sheds another lab's call") {
  const Scenario s = shedding_scenario(1, 0);
  SheddingStations stations;
  std::string a1, a2, b1;
  CHECK(stations.arrive("ana", s, Priority::critical, at(0), a1).kind == Kind::serve);
  CHECK(stations.arrive("ana", s, Priority::critical, at(1), a2).reason == ShedReason::queue_full);
  CHECK(stations.arrive("ben", s, Priority::critical, at(2), b1).kind == Kind::serve);
  CHECK(a1 == a2);
  CHECK(a1 != b1);
  CHECK(stations.view("ana", at(3))->shed.at("queue_full") == 1);
  CHECK(stations.view("ben", at(3))->shed.at("queue_full") == 0);
  CHECK(stations.view("ben", at(3))->served == 1);
  CHECK_FALSE(stations.view("carla", at(3)));
}

TEST_CASE("the stations together hold at most their limit of calls: beyond it a call is shed, workers_busy") {
  const Scenario s = shedding_scenario(4, 4);
  SheddingStations stations;
  stations.set_held_limit(3);
  std::string key;
  CHECK(stations.arrive("ana", s, Priority::critical, at(0), key).kind == Kind::serve);
  const std::string ana = key;
  const StationTurn ana2 = stations.arrive("ana", s, Priority::critical, at(0), key);
  CHECK(stations.arrive("ben", s, Priority::critical, at(0), key).kind == Kind::serve);
  const StationTurn busy = stations.arrive("carla", s, Priority::critical, at(0), key);
  CHECK(busy.kind == Kind::shed);
  CHECK(busy.reason == ShedReason::workers_busy);
  CHECK(busy.held == 3);
  CHECK(stations.view("carla", at(0))->shed.at("workers_busy") == 1);
  stations.finish(ana, ana2.ticket, false, at(100));  // a held call ends: room again
  CHECK(stations.arrive("carla", s, Priority::critical, at(100), key).kind == Kind::serve);
}

TEST_CASE("a lab's restart starts its own trigger again, the carrier's reset forgets idle stations") {
  const Scenario s = shedding_scenario(10, 4, R"(, "trigger": {"after_ms": 0, "length_ms": 1000, "capacity_drop": 0.5})");
  SheddingStations stations;
  std::string ana, ben;
  const StationTurn a = stations.arrive("ana", s, Priority::critical, at(0), ana);
  stations.arrive("ben", s, Priority::critical, at(0), ben);
  CHECK(stations.view("ana", at(500))->capacity_now == 5);
  stations.restart("ana");
  CHECK(stations.view("ana", at(500))->capacity_now == 10);  // until ana's next call
  CHECK(stations.view("ben", at(500))->capacity_now == 5);
  stations.arrive("ana", s, Priority::critical, at(2000), ana);
  CHECK(stations.view("ana", at(2500))->capacity_now == 5);
  CHECK(stations.view("ben", at(2500))->capacity_now == 10);
  // The carrier's reset: ana still has calls in service (kept, counts restarted); ben is done.
  stations.finish(ben, 2, false, at(100));
  stations.restart_all();
  CHECK(stations.view("ana", at(2600))->served == 0);
  CHECK(stations.view("ana", at(2600))->in_service == 2);
  CHECK_FALSE(stations.view("ben", at(2600)));
  stations.finish(ana, a.ticket, false, at(2700));
  CHECK(stations.view("ana", at(2700))->in_service == 1);
}

TEST_CASE("stations are bounded: the least recently called one without calls goes first") {
  const Scenario s = shedding_scenario(1, 0);
  SheddingStations stations;
  std::string busy;
  stations.arrive("lab-0", s, Priority::critical, at(0), busy);  // stays in service
  for (std::size_t i = 1; i <= SheddingStations::kMaxStations; ++i) {
    std::string key;
    const StationTurn t = stations.arrive("lab-" + std::to_string(i), s, Priority::critical,
                                          at(static_cast<long long>(i)), key);
    stations.finish(key, t.ticket, false, at(static_cast<long long>(i)));
  }
  CHECK(stations.view("lab-0", at(1000)));  // held a call: kept, although the oldest
  CHECK_FALSE(stations.view("lab-1", at(1000)));
  CHECK(stations.view("lab-2", at(1000)));
}

}  // namespace test_shedding_stations
