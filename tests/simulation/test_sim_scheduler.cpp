// The scheduler, its fibers and its waits: simulated time moves only between events, events
// of one instant run in the order they were made, and every wait is a wait of simulated time.

#include <doctest/doctest.h>

#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab/simulation/sim_clock.hpp"
#include "lab/simulation/sim_scheduler.hpp"

namespace test_sim_scheduler {

using namespace quote_lab;
using namespace std::chrono_literals;

const SteadyTime kStart{std::chrono::hours(1)};

double ms_since_start(const SimScheduler& s) { return elapsed_ms(kStart, s.now()); }

TEST_CASE("fibers sleep in simulated time and wake in the order of their deadlines, ties in the order they slept") {
  SimScheduler s(kStart);
  SimClock clock(s);
  std::vector<std::string> seen;
  for (const auto& [name, ms] : std::vector<std::pair<std::string, int>>{{"a", 30}, {"b", 10}, {"c", 30}, {"d", 0}})
    s.spawn([&, name = name, ms = ms] {
      clock.sleep_for(Millis(ms));
      seen.push_back(name + "@" + std::to_string(static_cast<int>(ms_since_start(s))));
    });
  s.run();
  CHECK(seen == std::vector<std::string>{"d@0", "b@10", "a@30", "c@30"});
  CHECK(s.live_fibers() == 0);
}

TEST_CASE("a fiber spawned by a fiber runs at the same instant, after what was already due") {
  SimScheduler s(kStart);
  SimClock clock(s);
  std::vector<std::string> seen;
  s.spawn([&] {
    clock.sleep_for(5ms);
    s.spawn([&] { seen.push_back("child@" + std::to_string(static_cast<int>(ms_since_start(s)))); });
    seen.push_back("parent");
    clock.sleep_for(5ms);
    seen.push_back("parent@10");
  });
  s.run();
  CHECK(seen == std::vector<std::string>{"parent", "child@5", "parent@10"});
}

TEST_CASE("a parked fiber wakes at wake() or at its deadline, and a waker of an ended wait wakes nothing") {
  SimScheduler s(kStart);
  std::optional<SimScheduler::Waker> waiting;
  bool first = false, second = true;
  double second_at = 0;
  s.spawn([&] {
    waiting = s.waker();
    first = s.park_until(kStart + 100ms);   // woken at 20 ms
    const auto stale = *waiting;
    CHECK_FALSE(s.wake(stale));             // that wait is over
    second = s.park_until(s.now() + 50ms);  // nobody wakes it: 20 + 50
    second_at = ms_since_start(s);
  });
  s.spawn([&] {
    s.sleep_until(kStart + 20ms);
    CHECK(s.wake(*waiting));
  });
  s.run();
  CHECK(first);
  CHECK_FALSE(second);
  CHECK(second_at == 70);
}

TEST_CASE("a fiber waiting with nothing to wake it ends the run with an error, not a hang, and is unwound") {
  auto held = std::make_shared<int>(1);  // what the fiber's stack holds: freed when it unwinds
  {
    SimScheduler s(kStart);
    bool parked = false;
    s.spawn([&, mine = held] {
      const auto copy = mine;
      parked = true;
      s.park_until(std::nullopt);
    });
    CHECK_THROWS_WITH_AS(s.run(), "simulation: 1 fibers wait with nothing to wake them", std::logic_error);
    CHECK(parked);
    CHECK(held.use_count() == 3);  // the fiber's capture and the copy on its stack
    s.unwind();
    CHECK(held.use_count() == 1);
    CHECK(s.live_fibers() == 0);
  }
  CHECK(held.use_count() == 1);
}

TEST_CASE("when one fiber throws, the fibers still waiting are unwound as the scheduler goes") {
  auto held = std::make_shared<int>(1);
  {
    SimScheduler s(kStart);
    SimClock clock(s);
    for (int i = 0; i < 3; ++i)
      s.spawn([&clock, mine = held] {
        const auto copy = mine;
        clock.sleep_for(std::chrono::hours(1));
      });
    s.spawn([&clock] {
      clock.sleep_for(1ms);
      throw std::runtime_error("stop");
    });
    CHECK_THROWS_AS(s.run(), std::runtime_error);
    CHECK(held.use_count() > 1);
  }
  CHECK(held.use_count() == 1);
}

TEST_CASE("an exception a fiber lets out comes out of run()") {
  SimScheduler s(kStart);
  s.spawn([] { throw std::runtime_error("from the fiber"); });
  CHECK_THROWS_WITH_AS(s.run(), "from the fiber", std::runtime_error);
}

TEST_CASE("a sleep outside the scheduler's fibers is refused: nothing waits in real time behind the simulation") {
  SimScheduler s(kStart);
  SimClock clock(s);
  CHECK_THROWS_AS(clock.sleep_for(1ms), std::logic_error);
}

TEST_CASE("the simulation's wall time starts at 2026-01-01T00:00:00Z and moves with its steady time") {
  SimScheduler s(kStart);
  SimClock clock(s);
  WallTime at{};
  s.spawn([&] {
    clock.sleep_for(1500ms);
    at = clock.wall_now();
  });
  s.run();
  CHECK(std::chrono::duration_cast<Millis>(at.time_since_epoch()).count() == 1767225600000LL + 1500);
}

TEST_CASE("a condition: notify_one wakes the first waiter still waiting, a waiter not notified waits out its deadline") {
  SimScheduler s(kStart);
  SimClock clock(s);
  auto condition = clock.make_condition();
  std::mutex mutex;
  int tokens = 0;
  std::vector<std::string> got;
  auto waiter = [&](std::string name, Millis patience) {
    return [&, name, patience] {
      std::unique_lock lock(mutex);
      const bool ok = condition->wait_until(lock, s.now() + patience, {}, [&] { return tokens > 0; });
      if (ok) --tokens;
      got.push_back(name + (ok ? " got one at " : " gave up at ") + std::to_string(static_cast<int>(ms_since_start(s))));
    };
  };
  s.spawn(waiter("early", 10ms));   // gives up before the token comes
  s.spawn(waiter("patient", 100ms));
  s.spawn([&] {
    s.sleep_until(kStart + 40ms);
    std::lock_guard lock(mutex);
    ++tokens;
    condition->notify_one();  // "early" is stale: "patient" gets it
  });
  s.run();
  CHECK(got == std::vector<std::string>{"early gave up at 10", "patient got one at 40"});
}

TEST_CASE("slots are given in arrival order, each one handed straight to the longest waiter") {
  SimScheduler s(kStart);
  SimClock clock(s);
  SimSlots slots(s, 1);
  std::vector<std::string> order;
  for (const std::string name : {"a", "b", "c"})
    s.spawn([&, name] {
      slots.acquire();
      order.push_back(name + "@" + std::to_string(static_cast<int>(ms_since_start(s))));
      clock.sleep_for(10ms);
      slots.release();
    });
  s.run();
  CHECK(order == std::vector<std::string>{"a@0", "b@10", "c@20"});
}

TEST_CASE("a signal wakes every fiber waiting on it at that instant") {
  SimScheduler s(kStart);
  SimSignal signal(s);
  int woken = 0;
  for (int i = 0; i < 3; ++i)
    s.spawn([&] {
      if (signal.wait_until(kStart + 1000ms)) ++woken;
      CHECK(ms_since_start(s) == 25);
    });
  s.spawn([&] {
    s.sleep_until(kStart + 25ms);
    signal.notify_all();
  });
  s.run();
  CHECK(woken == 3);
}

TEST_CASE("a thousand fibers with ten thousand sleeps end at the simulated instant they add up to") {
  SimScheduler s(kStart);
  SimClock clock(s);
  long total = 0;
  for (int f = 0; f < 1000; ++f)
    s.spawn([&, f] {
      for (int i = 0; i < 10; ++i) clock.sleep_for(Millis(1 + (f + i) % 7));
      ++total;
    });
  s.run();
  CHECK(total == 1000);
  CHECK(s.live_fibers() == 0);
}

}  // namespace test_sim_scheduler
