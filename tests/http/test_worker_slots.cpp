// --workers (lab/http/worker_slots.hpp): at most N requests at once; a stop ends every wait.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "lab/http/worker_slots.hpp"
#include "support/poll.hpp"

using quote_lab::WorkerSlots;
using quote_lab::testing::eventually;
using namespace std::chrono_literals;

TEST_CASE("N slots: the N+1th request waits until one is given back") {
  WorkerSlots slots(2);
  std::stop_source running;
  REQUIRE(slots.acquire(running.get_token()));
  REQUIRE(slots.acquire(running.get_token()));
  std::atomic<bool> third{false};
  std::thread waiter([&] { third = slots.acquire(running.get_token()); });
  // Nothing may happen while both slots are taken: a fixed wait is the behaviour under test.
  std::this_thread::sleep_for(20ms);
  CHECK_FALSE(third.load());
  slots.release();
  CHECK(eventually([&] { return third.load(); }, 5s));
  waiter.join();
}

TEST_CASE("a request waiting for a slot gets none once shutdown begins, and none is taken after") {
  WorkerSlots slots(1);
  std::stop_source running;
  REQUIRE(slots.acquire(running.get_token()));
  std::atomic<int> answer{-1};
  std::thread waiter([&] { answer = slots.acquire(running.get_token()) ? 1 : 0; });
  running.request_stop();
  CHECK(eventually([&] { return answer.load() == 0; }, 5s));
  waiter.join();
  slots.release();
  CHECK_FALSE(slots.acquire(running.get_token()));  // a free slot, but the lab is stopping
}

TEST_CASE("at least one slot, whatever the setting") {
  WorkerSlots slots(0);
  std::stop_source running;
  CHECK(slots.acquire(running.get_token()));
}
