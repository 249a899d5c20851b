#include <doctest/doctest.h>

#include <vector>

#include "lab/resilience/circuit_breaker.hpp"
#include "lab/shared_state/replicated_breaker.hpp"
#include "lab/shared_state/shared_breaker_store.hpp"
#include "support/fake_clock.hpp"

namespace test_replicated_breaker {

using namespace quote_lab;
using quote_lab::testing::FakeClock;
using std::chrono::milliseconds;

namespace {

// A store that answers what the test sets, and counts the round trips it was asked for.
struct FakeStore final : SharedBreakerStore {
  bool up = true;
  SharedVerdict verdict = SharedVerdict::call;
  SharedBreakerState state;
  bool opened_now = false;
  int acquires = 0, records = 0, peeks = 0;
  std::vector<SharedBreakerState> seeds;
  std::uint64_t epoch_value = 1;

  std::optional<SharedAdmission> acquire() override {
    ++acquires;
    if (!up) return std::nullopt;
    return SharedAdmission{verdict, state};
  }
  std::optional<SharedRecord> record(std::uint64_t, bool, bool) override {
    ++records;
    if (!up) return std::nullopt;
    return SharedRecord{opened_now, state};
  }
  std::optional<SharedBreakerState> peek() override {
    ++peeks;
    if (!up) return std::nullopt;
    return state;
  }
  bool seed(const SharedBreakerState& local) override {
    if (!up) return false;
    seeds.push_back(local);
    return true;
  }
  void reset() override {}
  std::uint64_t epoch() const override { return epoch_value; }
  bool healthy() const override { return up; }
};

SharedBreakerState open_for(std::int64_t ms, std::uint64_t events = 1) {
  return {BreakerState::open, 2, ms, events, 7};
}

// One replica's breaker over a store the test scripts.
struct Replica {
  Replica() {
    local.set_listener([this](const BreakerTransition& t) { seen.push_back(t); });
    b.join();
  }
  FakeClock clock;
  FakeStore store;
  CircuitBreaker local{"carrier", default_policies().breaker, clock};
  std::vector<BreakerTransition> seen;  // what the local breaker's listener was told
  ReplicatedBreaker b{local, store, clock};
};

}  // namespace

TEST_CASE("replicated breaker: opened by another replica, it is open here, and short circuits make no round trip") {
  Replica replica;
  auto& [clock, store, local, seen, b] = replica;
  CHECK(store.seeds.size() == 1);  // an empty store gets this replica's state first

  store.verdict = SharedVerdict::open;
  store.state = open_for(30000);
  const Admission a = b.try_acquire();
  CHECK(a.refused);
  CHECK(a.refusal == Reason::circuit_open);
  CHECK(b.snapshot().state == BreakerState::open);
  CHECK(b.snapshot().open_events == 1);
  CHECK(b.snapshot().cooldown_left_ms == 30000);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].from == BreakerState::closed);
  CHECK(seen[0].to == BreakerState::open);

  const int round_trips = store.acquires + store.peeks;
  for (int i = 0; i < 50; ++i) CHECK(b.try_acquire().refused);
  b.snapshot();
  CHECK(store.acquires + store.peeks == round_trips);  // known locally until opened_until

  clock.advance(milliseconds(30000));
  const int acquires = store.acquires;
  store.verdict = SharedVerdict::probe_busy;  // another replica holds the one probe
  store.state = {BreakerState::half_open, 2, 0, 1, 8};
  const Admission busy = b.try_acquire();
  CHECK(busy.refused);
  CHECK(busy.refusal == Reason::probe_in_flight);
  CHECK(store.acquires == acquires + 1);  // the cooldown is over: the store decides again
}

TEST_CASE("replicated breaker: the probe's outcome is recorded in the store with the store's generation") {
  Replica replica;
  auto& [clock, store, local, seen, b] = replica;
  store.verdict = SharedVerdict::probe;
  store.state = {BreakerState::half_open, 2, -5, 1, 9};
  const Admission a = b.try_acquire();
  REQUIRE(a.permit);
  CHECK(a.permit->probe);
  CHECK(a.permit->shared_generation == 9u);
  // closed → half_open arrives as two legal steps for the listener (and the metrics).
  REQUIRE(seen.size() == 2);
  CHECK((seen[0].from == BreakerState::closed && seen[0].to == BreakerState::open));
  CHECK((seen[1].from == BreakerState::open && seen[1].to == BreakerState::half_open));

  store.state = {BreakerState::closed, 0, 0, 1, 10};
  const BreakerRecord r = b.record(*a.permit, false, "success", 120);
  CHECK(store.records == 1);
  CHECK(r.state == BreakerState::closed);
  CHECK(b.snapshot().last_outcome == "success");
}

TEST_CASE("replicated breaker: with the store down the local breaker decides (fail-soft)") {
  Replica replica;
  auto& [clock, store, local, seen, b] = replica;
  store.up = false;
  for (int i = 0; i < 2; ++i) {
    const Admission a = b.try_acquire();
    REQUIRE(a.permit);
    CHECK_FALSE(a.permit->shared_generation);
    b.record(*a.permit, true, "timeout", 220);
  }
  CHECK(b.snapshot().state == BreakerState::open);  // two local failures opened it
  CHECK(b.try_acquire().refusal == Reason::circuit_open);
  CHECK(store.records == 0);  // permits the store never gave are not recorded there
}

TEST_CASE("replicated breaker: after the store reconnects it is seeded from this replica's state") {
  Replica replica;
  auto& [clock, store, local, seen, b] = replica;
  REQUIRE(store.seeds.size() == 1);
  store.up = false;
  for (int i = 0; i < 2; ++i) {
    const auto permit = b.try_acquire().permit;
    REQUIRE(permit);
    b.record(*permit, true, "timeout", 220);
  }
  clock.advance(milliseconds(1000));
  store.up = true;
  store.epoch_value = 2;  // Redis restarted, empty
  store.state = {BreakerState::closed, 0, 0, 1, 8};
  clock.advance(milliseconds(29000));  // the local cooldown is over: the next call asks the store
  b.try_acquire();
  REQUIRE(store.seeds.size() == 2);
  CHECK(store.seeds[1].state == BreakerState::half_open);
  CHECK(store.seeds[1].open_events == 1);
  b.try_acquire();
  CHECK(store.seeds.size() == 2);  // once per reconnect
}

TEST_CASE("replicated breaker: a quote asks the store twice (admission, outcome), and the outcome's answer is its snapshot") {
  Replica replica;
  auto& [clock, store, local, seen, b] = replica;
  const int peeks = store.peeks;
  store.state = {BreakerState::closed, 0, 0, 0, 3};
  const Admission a = b.try_acquire();
  REQUIRE(a.permit);
  store.state = {BreakerState::closed, 1, 0, 0, 3};  // another replica's failure is counted too
  const BreakerRecord r = b.record(*a.permit, true, "timeout", 220);
  CHECK(store.acquires == 1);
  CHECK(store.records == 1);
  CHECK(store.peeks == peeks);
  CHECK(r.snapshot.state == BreakerState::closed);
  CHECK(r.snapshot.consecutive_failures == 1);
  CHECK(r.snapshot.last_outcome == "timeout");
  CHECK(r.snapshot.last_latency_ms == 220);
}

TEST_CASE("replicated breaker: an answer older than one already followed changes nothing") {
  Replica replica;
  auto& [clock, store, local, seen, b] = replica;
  store.state = open_for(30000, 1);  // generation 7
  store.verdict = SharedVerdict::open;
  CHECK(b.try_acquire().refused);
  clock.advance(milliseconds(30000));
  // A round trip that left before the breaker opened answers late: closed, generation 5.
  store.state = {BreakerState::closed, 0, 0, 0, 5};
  store.verdict = SharedVerdict::call;
  const Admission late = b.try_acquire();
  REQUIRE(late.permit);
  CHECK(b.snapshot().state == BreakerState::half_open);  // the open breaker's cooldown passed; not closed
}

TEST_CASE("replicated breaker: open here while the store was away, the first short circuit after it is back seeds it open") {
  Replica replica;
  auto& [clock, store, local, seen, b] = replica;
  REQUIRE(store.seeds.size() == 1);
  store.up = false;  // Redis dies: this replica decides alone and opens
  for (int i = 0; i < 2; ++i) {
    const auto permit = b.try_acquire().permit;
    REQUIRE(permit);
    b.record(*permit, true, "timeout", 220);
  }
  REQUIRE(local.state() == BreakerState::open);
  CHECK(b.try_acquire().refused);
  CHECK(store.seeds.size() == 1);  // away: nothing reached it
  clock.advance(milliseconds(5000));
  store.up = true;  // back, empty (another replica may already have seeded it closed)
  store.epoch_value = 2;
  CHECK(b.try_acquire().refusal == Reason::circuit_open);  // still refused here, no admission asked
  REQUIRE(store.seeds.size() == 2);
  CHECK(store.seeds[1].state == BreakerState::open);
  CHECK(store.seeds[1].cooldown_left_ms == 25000);
  CHECK(store.acquires == 2);  // the two failed calls asked it (it was away); no admission since
  b.try_acquire();
  CHECK(store.seeds.size() == 2);  // once per return
  // Still open here a second later: one more seed, for a Redis that restarted unseen meanwhile.
  clock.advance(ReplicatedBreaker::kOpenResyncEvery);
  CHECK(b.try_acquire().refused);
  REQUIRE(store.seeds.size() == 3);
  CHECK(store.seeds[2].state == BreakerState::open);
}

}  // namespace test_replicated_breaker
