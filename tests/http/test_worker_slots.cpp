// --workers (lab/http/worker_slots.hpp): at most N requests at once; a stop ends every wait.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "lab/http/worker_slots.hpp"
#include "support/poll.hpp"

namespace test_worker_slots {

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

TEST_CASE("slots go in arrival order: a slot given back goes to the one waiting, not to a newcomer") {
  WorkerSlots slots(1);
  std::stop_source running;
  REQUIRE(slots.acquire(running.get_token()));
  std::atomic<int> order{0};
  std::atomic<int> waiter_turn{0};
  std::thread waiter([&] {
    if (!slots.acquire(running.get_token())) return;
    waiter_turn = ++order;
    slots.release();
  });
  REQUIRE(eventually([&] { return slots.waiting() == 1; }, 5s));
  // The slot is given back and asked for again at once, as a new request would: it queues
  // behind the waiter (a plain semaphore lets the newcomer, already running, take it).
  slots.release();
  REQUIRE(slots.acquire(running.get_token()));
  const int newcomer_turn = ++order;
  slots.release();
  waiter.join();
  CHECK(waiter_turn.load() == 1);
  CHECK(newcomer_turn == 2);
  CHECK(slots.waiting() == 0);
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

}  // namespace test_worker_slots
