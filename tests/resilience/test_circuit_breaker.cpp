#include <doctest/doctest.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "lab/resilience/circuit_breaker.hpp"
#include "support/fake_clock.hpp"

namespace test_circuit_breaker {

using namespace quote_lab;
using quote_lab::testing::FakeClock;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

BreakerPolicy course() { return default_policies().breaker; }  // 2 failures, 30 s

// One attempt through the breaker: true if it was allowed.
bool attempt(CircuitBreaker& b, bool fails) {
  auto permit = b.try_acquire().permit;
  if (!permit) return false;
  b.record(*permit, fails, fails ? "timeout" : "success", fails ? 220 : 130);
  return true;
}

}  // namespace

TEST_CASE("closed -> open after 2 consecutive failed attempts, for 30 s") {
  FakeClock clock;
  CircuitBreaker b("carrier", course(), clock);
  CHECK(b.snapshot().state == BreakerState::closed);

  CHECK(attempt(b, true));                                  // failure 1 of 2
  CHECK(b.snapshot().state == BreakerState::closed);
  CHECK(b.snapshot().consecutive_failures == 1);
  CHECK(attempt(b, true));                                  // failure 2 of 2: opens
  const auto s = b.snapshot();
  CHECK(s.state == BreakerState::open);
  CHECK(s.open_events == 1);
  CHECK(s.cooldown_left_ms == 30000);
  REQUIRE(s.opened_until.has_value());
  CHECK(*s.opened_until - clock.wall_now() == seconds(30));
}

TEST_CASE("any success resets the count of consecutive failures") {
  FakeClock clock;
  CircuitBreaker b("carrier", course(), clock);
  attempt(b, true);
  attempt(b, false);
  CHECK(b.snapshot().consecutive_failures == 0);
  attempt(b, true);
  CHECK(b.snapshot().state == BreakerState::closed);        // 1 failure after the success
}

TEST_CASE("while open, calls are short-circuited and do not extend the cooldown") {
  FakeClock clock;
  CircuitBreaker b("carrier", course(), clock);
  attempt(b, true);
  attempt(b, true);
  clock.advance(seconds(10));
  for (int i = 0; i < 5; ++i) CHECK_FALSE(b.try_acquire().permit.has_value());
  const auto s = b.snapshot();
  CHECK(s.short_circuit_count == 5);
  CHECK(s.cooldown_left_ms == 20000);                       // still 30 s from opening
}

TEST_CASE("the state is a function of time: half_open once the cooldown passed, no traffic needed") {
  FakeClock clock;
  CircuitBreaker b("carrier", course(), clock);
  std::vector<BreakerTransition> seen;
  b.set_listener([&](const BreakerTransition& t) { seen.push_back(t); });
  attempt(b, true);
  attempt(b, true);
  clock.advance(milliseconds(29999));
  CHECK(b.snapshot().state == BreakerState::open);
  clock.advance(milliseconds(1));
  CHECK(b.snapshot().state == BreakerState::half_open);
  CHECK(b.snapshot().cooldown_left_ms == 0);
  REQUIRE(seen.size() == 2);
  CHECK((seen[0].from == BreakerState::closed && seen[0].to == BreakerState::open));
  CHECK((seen[1].from == BreakerState::open && seen[1].to == BreakerState::half_open));
}

TEST_CASE("half-open admits exactly one probe, concurrent callers are short-circuited") {
  FakeClock clock;
  CircuitBreaker b("carrier", course(), clock);
  attempt(b, true);
  attempt(b, true);
  clock.advance(seconds(30));

  std::atomic<int> permits{0};
  std::atomic<int> probes{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> callers;
  for (int i = 0; i < 64; ++i)
    callers.emplace_back([&] {
      while (!go) std::this_thread::yield();
      if (auto p = b.try_acquire().permit) {
        ++permits;
        probes += p->probe;
      }
    });
  go = true;
  for (auto& t : callers) t.join();
  CHECK(permits == 1);
  CHECK(probes == 1);
  CHECK(b.snapshot().short_circuit_count == 63);
}

TEST_CASE("probe success closes the breaker, probe failure reopens it for a fresh cooldown") {
  FakeClock clock;
  CircuitBreaker b("carrier", course(), clock);
  attempt(b, true);
  attempt(b, true);
  clock.advance(seconds(30));

  SUBCASE("success") {
    auto probe = b.try_acquire().permit;
    REQUIRE(probe);
    CHECK(probe->probe);
    const auto r = b.record(*probe, false, "success", 130);
    CHECK(r.state == BreakerState::closed);
    CHECK_FALSE(r.opened_now);
    CHECK(b.snapshot().consecutive_failures == 0);
    CHECK(b.try_acquire().permit.has_value());             // closed: everyone may call
  }
  SUBCASE("failure") {
    auto probe = b.try_acquire().permit;
    REQUIRE(probe);
    clock.advance(milliseconds(220));
    const auto r = b.record(*probe, true, "timeout", 220);
    CHECK(r.state == BreakerState::open);
    CHECK(r.opened_now);
    const auto s = b.snapshot();
    CHECK(s.open_events == 2);
    CHECK(s.cooldown_left_ms == 30000);
  }
}

TEST_CASE("a stale permit from before the breaker opened cannot close it") {
  FakeClock clock;
  CircuitBreaker b("carrier", course(), clock);
  auto slow = b.try_acquire().permit;                      // a slow call starts while closed
  REQUIRE(slow);
  attempt(b, true);
  attempt(b, true);                                        // others open the breaker
  b.record(*slow, false, "success", 700);                  // the slow call finally succeeds
  CHECK(b.snapshot().state == BreakerState::open);
}

TEST_CASE("a probe that never reports back does not wedge half-open") {
  FakeClock clock;
  CircuitBreaker b("carrier", course(), clock);
  attempt(b, true);
  attempt(b, true);
  clock.advance(seconds(30));
  REQUIRE(b.try_acquire().permit);                         // the probe's caller vanishes
  CHECK_FALSE(b.try_acquire().permit);
  clock.advance(seconds(30));
  auto next = b.try_acquire().permit;
  REQUIRE(next);
  CHECK(next->probe);
}

TEST_CASE("restore after a restart") {
  FakeClock clock;
  CircuitBreaker b("carrier", course(), clock);
  BreakerRestore saved;
  saved.state = BreakerState::open;
  saved.consecutive_failures = 2;
  saved.open_events = 3;

  SUBCASE("an open breaker resumes its remaining cooldown") {
    saved.opened_until = clock.wall_now() + seconds(12);
    b.restore(saved);
    const auto s = b.snapshot();
    CHECK(s.state == BreakerState::open);
    CHECK(s.cooldown_left_ms == 12000);
    CHECK(s.open_events == 3);
  }
  SUBCASE("never longer than the configured cooldown") {
    saved.opened_until = clock.wall_now() + std::chrono::hours(5);
    b.restore(saved);
    CHECK(b.snapshot().cooldown_left_ms == 30000);
  }
  SUBCASE("a cooldown that expired while the lab was down comes back half_open") {
    saved.opened_until = clock.wall_now() - seconds(1);
    b.restore(saved);
    CHECK(b.snapshot().state == BreakerState::half_open);
    auto probe = b.try_acquire().permit;
    REQUIRE(probe);
    CHECK(probe->probe);
  }
  SUBCASE("a closed breaker keeps its failure count") {
    saved.state = BreakerState::closed;
    saved.consecutive_failures = 1;
    b.restore(saved);
    attempt(b, true);
    CHECK(b.snapshot().state == BreakerState::open);
  }
}

TEST_CASE("reset: closed, counters at zero, in-flight permits stale") {
  FakeClock clock;
  CircuitBreaker b("carrier", course(), clock);
  auto before = b.try_acquire().permit;
  attempt(b, true);
  attempt(b, true);
  b.reset();
  const auto s = b.snapshot();
  CHECK(s.state == BreakerState::closed);
  CHECK(s.open_events == 0);
  CHECK(s.short_circuit_count == 0);
  b.record(*before, true, "timeout", 220);
  CHECK(b.snapshot().consecutive_failures == 0);
}

TEST_CASE("state names are the field's standard terms") {
  CHECK(to_string(BreakerState::closed) == "closed");
  CHECK(to_string(BreakerState::open) == "open");
  CHECK(to_string(BreakerState::half_open) == "half_open");
  BreakerState s;
  CHECK(parse_breaker_state("half_open", s));
  CHECK(s == BreakerState::half_open);
  CHECK_FALSE(parse_breaker_state("half-open", s));
}

TEST_CASE("a refusal says why, in the same answer: circuit_open while open, probe_in_flight while the probe is out") {
  FakeClock clock;
  CircuitBreaker b("carrier", course(), clock);
  CHECK(b.try_acquire().admitted());                       // closed: admitted
  attempt(b, true);
  attempt(b, true);                                        // open
  const Admission while_open = b.try_acquire();
  CHECK_FALSE(while_open.admitted());
  CHECK(while_open.refusal == Reason::circuit_open);
  clock.advance(seconds(30));                              // half-open
  const Admission probe = b.try_acquire();
  REQUIRE(probe.permit);
  CHECK(probe.permit->probe);
  const Admission second = b.try_acquire();                // the probe is still out
  CHECK_FALSE(second.admitted());
  CHECK(second.refusal == Reason::probe_in_flight);
  b.record(*probe.permit, true, "timeout", 220);          // the probe fails: open again
  CHECK(b.try_acquire().refusal == Reason::circuit_open);
  CHECK(b.snapshot().short_circuit_count == 3);
}

TEST_CASE("transitions reach the listener one at a time and in order, however many threads race") {
  // 8 threads x 20,000 calls against a breaker that opens on 1 failure and cools down in
  // 1 ms of fake time, which some calls advance: thousands of transitions, each delivered
  // outside the breaker's lock. The delivered sequence must be one unbroken chain.
  FakeClock clock;
  CircuitBreaker b("carrier", BreakerPolicy{1, 0.001}, clock);
  std::mutex seen_mutex;
  std::vector<BreakerTransition> seen;
  std::atomic<int> in_listener{0};
  std::atomic<int> overlaps{0};
  b.set_listener([&](const BreakerTransition& t) {
    if (in_listener.fetch_add(1) != 0) ++overlaps;
    {
      std::lock_guard lock(seen_mutex);
      seen.push_back(t);
    }
    in_listener.fetch_sub(1);
  });

  constexpr int kThreads = 8;
  constexpr int kCallsPerThread = 20000;
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      while (!go) std::this_thread::yield();
      std::uint32_t x = 2463534242u + static_cast<std::uint32_t>(i);  // xorshift: a fixed mix per thread
      for (int n = 0; n < kCallsPerThread; ++n) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        switch (x % 4) {
          case 0: clock.advance(milliseconds(1)); break;           // lets open become half-open
          case 1: b.snapshot(); break;                              // notices the cooldown's end
          default:
            if (auto p = b.try_acquire().permit) b.record(*p, x % 8 < 4, "timeout", 1);
        }
      }
    });
  go = true;
  for (auto& t : threads) t.join();

  const BreakerState final_state = b.snapshot().state;
  std::lock_guard lock(seen_mutex);
  INFO("transitions delivered: " << seen.size());
  REQUIRE(seen.size() > 1000);
  CHECK(overlaps == 0);
  CHECK(seen.front().from == BreakerState::closed);
  int broken = 0;
  for (std::size_t i = 1; i < seen.size(); ++i)
    broken += seen[i].from != seen[i - 1].to || seen[i].generation <= seen[i - 1].generation;
  CHECK(broken == 0);
  CHECK(seen.back().to == final_state);
}

}  // namespace test_circuit_breaker
