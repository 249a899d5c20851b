// One lab's shedding station on exact times: service order per discipline, queue-full
// shedding, CoDel's 5/100 ms rule and its drop times, adaptive LIFO, the critical reserve,
// sheddable calls shed first, and the trigger's capacity drop window.
#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "lab/carrier/shedding_station.hpp"
#include "support/fake_clock.hpp"

namespace test_shedding_station {

using namespace quote_lab;
using Kind = StationTurn::Kind;

namespace {

const auto at = &quote_lab::testing::steady_at;

Shedding config(QueueDiscipline d, int capacity, int max, double critical_share = 0) {
  Shedding s;
  s.capacity = capacity;
  s.queue.discipline = d;
  s.queue.max = max;
  s.critical_share = critical_share;
  return s;
}

// The tickets a one-place station serves, in order, when each served call ends at `t`.
std::vector<std::uint64_t> served_in_order(SheddingStation& s, std::uint64_t in_service,
                                           const std::vector<std::uint64_t>& waiting, long long t) {
  std::vector<std::uint64_t> order;
  for (std::size_t round = 0; round < waiting.size(); ++round) {
    s.finish(in_service, false, at(t));
    for (const std::uint64_t w : waiting)
      if (std::find(order.begin(), order.end(), w) == order.end() && s.poll(w, at(t)).kind == Kind::serve) {
        order.push_back(w);
        in_service = w;
      }
  }
  return order;
}

}  // namespace

TEST_CASE("fifo serves the oldest waiting call first, lifo the newest, and neither gives a wait a limit") {
  for (const auto& [d, expected] : {std::pair{QueueDiscipline::fifo, std::vector<std::uint64_t>{2, 3, 4}},
                                    std::pair{QueueDiscipline::lifo, std::vector<std::uint64_t>{4, 3, 2}}}) {
    CAPTURE(to_string(d));
    SheddingStation s("overloaded", config(d, 1, 3));
    CHECK(s.arrive(1, Priority::critical, at(0)).kind == Kind::serve);
    for (std::uint64_t t = 2; t <= 4; ++t) {
      const StationTurn turn = s.arrive(t, Priority::critical, at(static_cast<long long>(t)));
      CHECK(turn.kind == Kind::wait);
      CHECK_FALSE(turn.wake_at);  // only a call that ends can give it a turn
    }
    CHECK(s.held() == 4);
    CHECK(s.view(at(5)).queued == 3);
    CHECK(s.poll(2, at(60000)).kind == Kind::wait);  // a minute later, nothing ended: still waiting
    CHECK(served_in_order(s, 1, {2, 3, 4}, 60001) == expected);
    CHECK(s.view(at(60001)).served == 4);
  }
}

TEST_CASE("a call that finds the queue full is shed at once, and without a queue one that finds no place is") {
  SheddingStation s("overloaded", config(QueueDiscipline::fifo, 1, 2));
  CHECK(s.arrive(1, Priority::critical, at(0)).kind == Kind::serve);
  CHECK(s.arrive(2, Priority::critical, at(1)).kind == Kind::wait);
  CHECK(s.arrive(3, Priority::critical, at(2)).kind == Kind::wait);
  const StationTurn full = s.arrive(4, Priority::critical, at(3));
  CHECK(full.kind == Kind::shed);
  CHECK(full.reason == ShedReason::queue_full);
  CHECK(full.queued == 2);
  CHECK(full.queue_max == 2);
  CHECK(s.view(at(3)).shed.at("queue_full") == 1);
  CHECK(s.held() == 3);  // the shed call holds nothing

  SheddingStation none("no_queue", config(QueueDiscipline::fifo, 1, 0));
  CHECK(none.arrive(1, Priority::critical, at(0)).kind == Kind::serve);
  CHECK(none.arrive(2, Priority::critical, at(0)).reason == ShedReason::queue_full);
  none.finish(1, false, at(100));
  CHECK(none.arrive(3, Priority::critical, at(100)).kind == Kind::serve);
}

TEST_CASE("codel: 100 ms while the queue was empty in the last 100 ms, 5 ms once it was not, dropped at the limit") {
  Shedding c = config(QueueDiscipline::codel, 1, 10);
  CHECK(c.queue.target_ms == 5);  // Facebook's published defaults
  CHECK(c.queue.interval_ms == 100);
  SheddingStation s("overloaded_codel", c);
  CHECK(s.arrive(1, Priority::critical, at(0)).kind == Kind::serve);
  // The queue is empty as 2 arrives: it may wait the interval.
  const StationTurn two = s.arrive(2, Priority::critical, at(0));
  CHECK(two.wake_at == at(100));
  // Not empty for 50 ms: not congested yet, the interval again.
  CHECK(s.arrive(3, Priority::critical, at(50)).wake_at == at(150));
  CHECK(s.poll(2, at(99)).kind == Kind::wait);
  const StationTurn dropped = s.poll(2, at(100));
  CHECK(dropped.kind == Kind::shed);
  CHECK(dropped.reason == ShedReason::codel);
  CHECK(dropped.waited == Millis(100));
  CHECK(dropped.allowed_wait == Millis(100));
  // Not empty since 0: at exactly 100 ms that is not "more than" the interval...
  CHECK(s.arrive(4, Priority::critical, at(100)).wake_at == at(200));
  // ...at 101 ms it is: congested, the target.
  CHECK(s.view(at(101)).congested);
  CHECK(s.arrive(5, Priority::critical, at(101)).wake_at == at(106));
  CHECK(s.poll(5, at(105)).kind == Kind::wait);
  const StationTurn five = s.poll(5, at(106));
  CHECK(five.reason == ShedReason::codel);
  CHECK(five.waited == Millis(5));
  CHECK(five.allowed_wait == Millis(5));
  // A place frees before 3's limit: served, oldest first.
  s.finish(1, false, at(120));
  CHECK(s.poll(3, at(120)).kind == Kind::serve);
  CHECK(s.poll(4, at(120)).kind == Kind::wait);
  s.finish(3, false, at(130));
  CHECK(s.poll(4, at(130)).kind == Kind::serve);
  // The queue was empty at 130 ms: a call queued now may wait the interval again.
  CHECK_FALSE(s.view(at(131)).congested);
  CHECK(s.arrive(6, Priority::critical, at(131)).wake_at == at(231));
  CHECK(s.view(at(131)).shed.at("codel") == 2);
}

TEST_CASE("codel: a call whose limit falls as a place frees is dropped first, and the place stays free") {
  SheddingStation s("overloaded_codel", config(QueueDiscipline::codel, 1, 10));
  CHECK(s.arrive(1, Priority::critical, at(0)).kind == Kind::serve);
  CHECK(s.arrive(2, Priority::critical, at(0)).wake_at == at(100));
  s.finish(1, false, at(100));
  CHECK(s.poll(2, at(100)).reason == ShedReason::codel);
  CHECK(s.view(at(100)).in_service == 0);
}

TEST_CASE("adaptive_lifo: oldest first until the queue is congested, then newest first, with codel's limits") {
  SheddingStation calm("adaptive", config(QueueDiscipline::adaptive_lifo, 1, 10));
  calm.arrive(1, Priority::critical, at(0));
  calm.arrive(2, Priority::critical, at(0));
  calm.arrive(3, Priority::critical, at(10));
  calm.finish(1, false, at(20));  // not empty for 20 ms only: FIFO
  CHECK(calm.poll(2, at(20)).kind == Kind::serve);
  CHECK(calm.poll(3, at(20)).kind == Kind::wait);

  for (const auto& [d, first, second] : {std::tuple{QueueDiscipline::adaptive_lifo, 5, 4},
                                         std::tuple{QueueDiscipline::codel, 3, 4}}) {
    CAPTURE(to_string(d));
    SheddingStation s("storm", config(d, 1, 10));
    s.arrive(1, Priority::critical, at(0));
    s.arrive(2, Priority::critical, at(0));   // dropped at 100
    s.arrive(3, Priority::critical, at(50));  // may wait until 150
    CHECK(s.arrive(4, Priority::critical, at(101)).wake_at == at(106));
    CHECK(s.arrive(5, Priority::critical, at(102)).wake_at == at(107));
    s.finish(1, false, at(103));  // congested since 0: adaptive LIFO serves the newest
    CHECK(s.poll(static_cast<std::uint64_t>(first), at(103)).kind == Kind::serve);
    s.finish(static_cast<std::uint64_t>(first), false, at(104));
    CHECK(s.poll(static_cast<std::uint64_t>(second), at(104)).kind == Kind::serve);
  }
}

TEST_CASE("critical reserve: a sheddable call starts only below capacity × (1 − critical_share), critical ones pass it") {
  SheddingStation s("prioritized", config(QueueDiscipline::fifo, 4, 4, 0.25));
  CHECK(s.view(at(0)).sheddable_limit == 3);
  for (std::uint64_t t = 1; t <= 3; ++t) CHECK(s.arrive(t, Priority::sheddable, at(0)).kind == Kind::serve);
  CHECK(s.arrive(4, Priority::sheddable, at(1)).kind == Kind::wait);  // a place is free, but kept
  CHECK(s.arrive(5, Priority::critical, at(2)).kind == Kind::serve);  // the kept place
  CHECK(s.arrive(6, Priority::critical, at(3)).kind == Kind::wait);
  s.finish(1, false, at(10));  // 3 in service: the sheddable call ahead may not start, the critical one may
  CHECK(s.poll(6, at(10)).kind == Kind::serve);
  CHECK(s.poll(4, at(10)).kind == Kind::wait);
  s.finish(2, false, at(20));  // 3 in service again
  CHECK(s.poll(4, at(20)).kind == Kind::wait);
  s.finish(3, false, at(30));  // 2: below 3
  CHECK(s.poll(4, at(30)).kind == Kind::serve);
  // The limit rounds up exactly: 10 × 0.8 is 8, 10 × 0.7 is 7; one place alone is never kept.
  CHECK(SheddingStation("x", config(QueueDiscipline::fifo, 10, 0, 0.2)).view(at(0)).sheddable_limit == 8);
  CHECK(SheddingStation("x", config(QueueDiscipline::fifo, 10, 0, 0.3)).view(at(0)).sheddable_limit == 7);
  CHECK(SheddingStation("x", config(QueueDiscipline::fifo, 1, 0, 0.25)).view(at(0)).sheddable_limit == 1);
  CHECK(SheddingStation("x", config(QueueDiscipline::fifo, 4, 0, 1.0)).view(at(0)).sheddable_limit == 0);
}

TEST_CASE("a full queue sheds sheddable calls first: a critical call takes the oldest sheddable one's place") {
  SheddingStation s("prioritized", config(QueueDiscipline::fifo, 1, 2));
  CHECK(s.arrive(1, Priority::critical, at(0)).kind == Kind::serve);
  CHECK(s.arrive(2, Priority::sheddable, at(1)).kind == Kind::wait);
  CHECK(s.arrive(3, Priority::critical, at(2)).kind == Kind::wait);
  CHECK(s.arrive(4, Priority::critical, at(3)).kind == Kind::wait);  // full: 2 gives way
  const StationTurn displaced = s.poll(2, at(3));
  CHECK(displaced.kind == Kind::shed);
  CHECK(displaced.reason == ShedReason::priority);
  CHECK(s.arrive(5, Priority::sheddable, at(4)).reason == ShedReason::queue_full);  // no place to keep
  CHECK(s.arrive(6, Priority::critical, at(5)).reason == ShedReason::queue_full);   // no sheddable left to shed
  s.finish(1, false, at(10));
  CHECK(s.poll(3, at(10)).kind == Kind::serve);
  const StationView v = s.view(at(10));
  CHECK(v.shed.at("priority") == 1);
  CHECK(v.shed.at("queue_full") == 2);

  // No queue, a place free but kept for critical calls: the sheddable call is shed for its priority.
  SheddingStation kept("prioritized", config(QueueDiscipline::fifo, 2, 0, 0.5));
  CHECK(kept.arrive(1, Priority::critical, at(0)).kind == Kind::serve);
  CHECK(kept.arrive(2, Priority::sheddable, at(0)).reason == ShedReason::priority);
  CHECK(kept.arrive(3, Priority::critical, at(0)).kind == Kind::serve);
}

TEST_CASE("the trigger lowers the capacity from after_ms after the first call, for length_ms, and again after a restart") {
  Shedding c = config(QueueDiscipline::fifo, 10, 5);
  c.trigger = SheddingTrigger{.after_ms = 1000, .length_ms = 5000, .capacity_drop = 0.8};
  SheddingStation s("map_point", c);
  CHECK(s.capacity_at(at(2000)) == 10);  // no call yet: no trigger
  CHECK(s.arrive(1, Priority::critical, at(0)).kind == Kind::serve);
  s.finish(1, false, at(1));
  CHECK(s.capacity_at(at(999)) == 10);
  CHECK(s.capacity_at(at(1000)) == 2);  // round(10 × 0.2)
  CHECK(s.capacity_at(at(5999)) == 2);
  CHECK(s.capacity_at(at(6000)) == 10);
  CHECK(s.arrive(2, Priority::critical, at(1000)).kind == Kind::serve);
  CHECK(s.arrive(3, Priority::critical, at(1000)).kind == Kind::serve);
  const StationTurn third = s.arrive(4, Priority::critical, at(1000));
  CHECK(third.kind == Kind::wait);
  CHECK(third.wake_at == at(6000));  // the trigger's end gives places back
  const StationView during = s.view(at(1000));
  CHECK(during.trigger_running);
  CHECK(during.capacity_now == 2);
  CHECK(s.poll(4, at(5999)).kind == Kind::wait);
  CHECK(s.poll(4, at(6000)).kind == Kind::serve);
  CHECK_FALSE(s.view(at(6000)).trigger_running);
  // A restart: the next call starts the trigger's clock again, and the counts restart.
  s.restart();
  CHECK(s.view(at(7000)).served == 0);
  s.arrive(5, Priority::critical, at(10000));
  CHECK(s.capacity_at(at(10999)) == 10);
  CHECK(s.capacity_at(at(11000)) == 2);

  // A whole outage (capacity_drop 1): nothing starts; a codel limit falling as the trigger
  // ends loses to the place it gives back.
  Shedding outage = config(QueueDiscipline::codel, 1, 5);
  outage.trigger = SheddingTrigger{.after_ms = 0, .length_ms = 100, .capacity_drop = 1.0};
  SheddingStation o("outage", outage);
  const StationTurn first = o.arrive(1, Priority::critical, at(0));
  CHECK(first.kind == Kind::wait);
  CHECK(first.wake_at == at(100));
  CHECK(o.poll(1, at(100)).kind == Kind::serve);
}

TEST_CASE("a call that leaves gives its place to the next one, and GET /carrier shows the station") {
  SheddingStation s("overloaded", config(QueueDiscipline::fifo, 1, 4));
  s.arrive(1, Priority::critical, at(0));
  s.arrive(2, Priority::critical, at(1));
  s.arrive(3, Priority::critical, at(2));
  s.leave(2, at(3));  // a waiting call leaves: nobody gets a place
  CHECK(s.poll(3, at(3)).kind == Kind::wait);
  s.leave(1, at(4));  // the call in service leaves: its place goes on
  CHECK(s.poll(3, at(4)).kind == Kind::serve);
  s.finish(3, true, at(500));
  const auto j = to_json(s.view(at(500)));
  CHECK(j.dump() ==
        R"({"scenario":"overloaded","discipline":"fifo","capacity":1,"capacity_now":1,"sheddable_limit":1,)"
        R"("in_service":0,"queued":0,"queue_max":4,"congested":false,"trigger_running":false,"served":2,)"
        R"("wasted":1,"shed":{"queue_full":0,"codel":0,"priority":0,"workers_busy":0}})");
}

}  // namespace test_shedding_station
