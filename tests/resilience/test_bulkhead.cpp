#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <thread>
#include <vector>

#include "lab/resilience/overload/bulkhead.hpp"
#include "support/fake_clock.hpp"
#include "support/poll.hpp"

namespace test_bulkhead {

using namespace quote_lab;
using quote_lab::testing::eventually;
using std::chrono::milliseconds;

constexpr milliseconds kLongWait{60'000};  // never reached: a slot or a stop comes first
// The callers below are real threads: their waits are the machine's (SystemClock's condition).
SystemClock real;

TEST_CASE("10 callers at a bulkhead of 3 slots and 2 places in the queue: 3 in, 2 wait, 5 refused at once") {
  Bulkhead bulkhead({.max_concurrent = 3, .max_queued = 2}, real);
  std::latch inside_may_leave(1);
  std::atomic<int> refused{0};
  std::vector<std::jthread> callers;
  for (int i = 0; i < 10; ++i)
    callers.emplace_back([&] {
      BulkheadEntry entry = bulkhead.enter(kLongWait);
      if (!entry.permit) {
        CHECK(entry.refusal == BulkheadRefusal::full);
        ++refused;
        return;
      }
      inside_may_leave.wait();  // hold the slot until the test has counted
    });
  // Every caller has either a slot, a place in the queue or its refusal.
  REQUIRE(eventually([&] {
    const BulkheadStats s = bulkhead.stats();
    return s.active == 3 && s.queued == 2 && s.refused_full == 5;
  }, milliseconds(10'000)));
  BulkheadStats s = bulkhead.stats();
  CHECK(s.admitted == 3);
  CHECK(s.admitted_after_wait == 0);
  // An 11th caller is refused at once too: no wait, whatever its max wait.
  CHECK(bulkhead.enter(kLongWait).refusal == BulkheadRefusal::full);

  inside_may_leave.count_down();  // the 3 leave; the 2 waiting get their slots and leave too
  callers.clear();                // joins
  // Counted by the callers after enter() returned: read once they are joined (the stats
  // above count a refusal before its caller gets to this count).
  CHECK(refused.load() == 5);
  s = bulkhead.stats();
  CHECK(s.active == 0);
  CHECK(s.queued == 0);
  CHECK(s.admitted == 5);
  CHECK(s.admitted_after_wait == 2);
  CHECK(s.refused_full == 6);
  CHECK(s.timed_out == 0);
}

TEST_CASE("a waiting caller gets the slot a leaving one frees, and a newcomer does not overtake it") {
  Bulkhead bulkhead({.max_concurrent = 1, .max_queued = 1}, real);
  std::optional<BulkheadEntry> first = bulkhead.enter(milliseconds(0));
  REQUIRE(first->permit);
  std::optional<BulkheadEntry> waited;
  std::jthread waiter([&] { waited = bulkhead.enter(kLongWait); });
  REQUIRE(eventually([&] { return bulkhead.stats().queued == 1; }, milliseconds(10'000)));
  first->permit->release();
  // Between the release and the waiter waking up, a newcomer finds the queue taken.
  const BulkheadEntry newcomer = bulkhead.enter(milliseconds(0));
  CHECK_FALSE(newcomer.permit);
  waiter.join();
  REQUIRE(waited->permit);
  CHECK(waited->refusal == BulkheadRefusal::none);
  CHECK(bulkhead.stats().admitted_after_wait == 1);
}

TEST_CASE("a queued caller gives up after its max wait, or at once when stopped") {
  Bulkhead bulkhead({.max_concurrent = 1, .max_queued = 1}, real);
  BulkheadEntry holder = bulkhead.enter(milliseconds(0));
  REQUIRE(holder.permit);
  SUBCASE("the wait runs out: 30 ms of real time, then wait_timed_out") {
    const auto start = std::chrono::steady_clock::now();
    const BulkheadEntry late = bulkhead.enter(milliseconds(30));
    CHECK(std::chrono::steady_clock::now() - start >= milliseconds(30));
    CHECK_FALSE(late.permit);
    CHECK(late.refusal == BulkheadRefusal::wait_timed_out);
    CHECK(bulkhead.stats().timed_out == 1);
    CHECK(bulkhead.stats().queued == 0);
  }
  SUBCASE("the lab stops: the waiter returns at once, stopped") {
    std::stop_source stop;
    std::optional<BulkheadEntry> waited;
    std::jthread waiter([&] { waited = bulkhead.enter(kLongWait, stop.get_token()); });
    REQUIRE(eventually([&] { return bulkhead.stats().queued == 1; }, milliseconds(10'000)));
    stop.request_stop();
    waiter.join();  // well before kLongWait
    CHECK_FALSE(waited->permit);
    CHECK(waited->refusal == BulkheadRefusal::stopped);
    CHECK(bulkhead.stats().stopped == 1);
  }
  CHECK(bulkhead.stats().active == 1);  // the holder is unaffected
}

TEST_CASE("a permit frees its slot once, however it ends (release, move, destruction)") {
  Bulkhead bulkhead({.max_concurrent = 2, .max_queued = 0}, real);
  {
    BulkheadEntry a = bulkhead.enter(milliseconds(0));
    BulkheadPermit moved = std::move(*a.permit);
    a.permit->release();  // the moved-from permit frees nothing
    CHECK(bulkhead.stats().active == 1);
    moved.release();
    moved.release();
    CHECK(bulkhead.stats().active == 0);
    BulkheadEntry b = bulkhead.enter(milliseconds(0));
    CHECK(bulkhead.stats().active == 1);
  }
  CHECK(bulkhead.stats().active == 0);
}

TEST_CASE("on a test's clock a queued caller waits in that clock's time: refused after exactly its max wait, at no real cost") {
  quote_lab::testing::FakeClock clock;
  Bulkhead bulkhead({.max_concurrent = 1, .max_queued = 1}, clock);
  BulkheadEntry holder = bulkhead.enter(milliseconds(0));
  REQUIRE(holder.permit);
  const SteadyTime before = clock.now();
  const auto real_start = std::chrono::steady_clock::now();
  const BulkheadEntry late = bulkhead.enter(milliseconds(150));
  CHECK(clock.now() - before == milliseconds(150));  // the wait passed on the clock, to the millisecond
  CHECK(std::chrono::steady_clock::now() - real_start < milliseconds(150));  // and not in real time
  CHECK(late.refusal == BulkheadRefusal::wait_timed_out);
  CHECK(bulkhead.stats().timed_out == 1);
  CHECK(bulkhead.stats().queued == 0);
  // A caller already stopped does not wait at all.
  std::stop_source stop;
  stop.request_stop();
  CHECK(bulkhead.enter(milliseconds(150), stop.get_token()).refusal == BulkheadRefusal::stopped);
  CHECK(clock.now() - before == milliseconds(150));
  holder.permit->release();
  CHECK(bulkhead.enter(milliseconds(150)).permit);  // a free place: in at once, no wait
  CHECK(clock.now() - before == milliseconds(150));
}

TEST_CASE("a bulkhead with no room is refused at start") {
  CHECK_THROWS_AS(Bulkhead({.max_concurrent = 0}, real), std::invalid_argument);
  CHECK_THROWS_AS(Bulkhead({.max_concurrent = 1, .max_queued = -1}, real), std::invalid_argument);
}

}  // namespace test_bulkhead
