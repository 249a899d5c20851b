// The shared breaker's Lua scripts (lab/shared_state/redis_breaker_store.cpp) on a real
// Debian redis-server, path by path: thresholds, stale generations, the probe permit and
// its expiry, seeding an empty store, reset.
//
// The scripts read Redis's own clock (TIME), never a replica's, so the store takes no time
// argument a fake clock could drive. Time is moved the way the scripts see it instead:
// `end_cooldown()` writes `opened_until` (ms of Redis TIME) into the past, and
// `expire_probe()` deletes the probe permit as its PX would after one cooldown. Every
// answer is then exact; the one measured quantity, the cooldown left, is bracketed by
// Redis TIME read before and after. The client's own clock (its reconnect schedule) is a
// FakeClock.
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "lab/shared_state/redis_breaker_store.hpp"
#include "support/fake_clock.hpp"
#include "support/redis_server.hpp"

namespace test_redis_breaker_store {

using namespace quote_lab;
using quote_lab::testing::FakeClock;
using quote_lab::testing::RedisServer;

namespace {

// Three failures open it for 30 s.
const BreakerPolicy kPolicy{.failure_threshold = 3, .open_duration_s = 30};
constexpr std::int64_t kCooldownMs = 30000;

// One replica: its own connection pool and its own store on the shared Redis.
struct Replica {
  Replica(const RedisServer& redis, const std::string& lab = "")
      : client({redis.endpoint()}, clock, random), store(client, lab, kPolicy) {
    client.connect_or_throw();
  }
  FakeClock clock;
  RandomSource random{7};
  RedisClient client;
  RedisBreakerStore store;
};

// Direct commands, as an operator with redis-cli would send them.
struct Admin {
  explicit Admin(const RedisServer& redis) : client({redis.endpoint()}, clock, random) { client.connect_or_throw(); }
  RedisValue run(const std::vector<std::string>& argv) {
    const auto v = client.command(argv);
    REQUIRE(v.has_value());
    return *v;
  }
  /// Redis TIME in ms, as the scripts compute it.
  std::int64_t now_ms() {
    const RedisValue t = run({"TIME"});
    REQUIRE(t.elements.size() == 2);
    return std::stoll(t.elements[0].text) * 1000 + std::stoll(t.elements[1].text) / 1000;
  }
  std::string field(const std::string& lab, const std::string& name) {
    return run({"HGET", RedisBreakerStore::key_prefix(lab) + "breaker", name}).text;
  }
  /// The cooldown is over, as the scripts will see it on their next TIME.
  void end_cooldown(const std::string& lab = "") {
    run({"HSET", RedisBreakerStore::key_prefix(lab) + "breaker", "opened_until", std::to_string(now_ms())});
  }
  /// The probe permit's PX has run out (its holder died mid-probe).
  void expire_probe(const std::string& lab = "") { run({"DEL", RedisBreakerStore::key_prefix(lab) + "probe"}); }
  bool probe_held(const std::string& lab = "") {
    return run({"EXISTS", RedisBreakerStore::key_prefix(lab) + "probe"}).integer == 1;
  }
  FakeClock clock;
  RandomSource random{8};
  RedisClient client;
};

SharedAdmission admit(RedisBreakerStore& store) {
  const auto a = store.acquire();
  REQUIRE(a.has_value());
  return *a;
}

SharedRecord record(RedisBreakerStore& store, std::uint64_t generation, bool probe, bool failure) {
  const auto r = store.record(generation, probe, failure);
  REQUIRE(r.has_value());
  return *r;
}

SharedBreakerState peek(RedisBreakerStore& store) {
  const auto s = store.peek();
  REQUIRE(s.has_value());
  return *s;
}

// Opens the shared breaker from closed at generation `gen` with kPolicy's three failures.
void open_it(RedisBreakerStore& store, std::uint64_t gen) {
  CHECK_FALSE(record(store, gen, false, true).opened_now);
  CHECK_FALSE(record(store, gen, false, true).opened_now);
  CHECK(record(store, gen, false, true).opened_now);
}

// Opens an empty store through `opener`, ends the cooldown, and `prober` takes the one
// probe permit, at generation 3.
SharedAdmission first_probe(RedisBreakerStore& opener, RedisBreakerStore& prober, Admin& admin) {
  open_it(opener, 0);
  admin.end_cooldown();
  const SharedAdmission probe = admit(prober);
  CHECK(probe.verdict == SharedVerdict::probe);
  CHECK(probe.state.generation == 3);
  return probe;
}

}  // namespace

TEST_CASE("Redis breaker store: consecutive failures open it at the threshold, a success in closed clears the count") {
  RedisServer redis;
  Replica a(redis), b(redis);
  const SharedAdmission first = admit(a.store);  // an empty store is closed, generation 0
  CHECK(first.verdict == SharedVerdict::call);
  CHECK(first.state.state == BreakerState::closed);
  CHECK(first.state.generation == 0);
  CHECK(record(a.store, 0, false, true).state.consecutive_failures == 1);
  CHECK(record(b.store, 0, false, true).state.consecutive_failures == 2);  // one count for both replicas
  CHECK(record(a.store, 0, false, false).state.consecutive_failures == 0);  // a success clears it
  CHECK(record(a.store, 0, false, true).state.consecutive_failures == 1);
  CHECK(record(b.store, 0, false, true).state.consecutive_failures == 2);
  const SharedRecord third = record(a.store, 0, false, true);
  CHECK(third.opened_now);
  CHECK(third.state.state == BreakerState::open);
  CHECK(third.state.consecutive_failures == 3);
  CHECK(third.state.open_events == 1);
  CHECK(third.state.generation == 1);
  CHECK(admit(b.store).verdict == SharedVerdict::open);  // the other replica is refused too
}

TEST_CASE("Redis breaker store: the cooldown is opened_until on Redis's clock, the breaker's only clock") {
  RedisServer redis;
  Replica a(redis);
  Admin admin(redis);
  const std::int64_t before = admin.now_ms();
  open_it(a.store, 0);
  const std::int64_t after = admin.now_ms();
  const std::int64_t opened_until = std::stoll(admin.field("", "opened_until"));
  CHECK(opened_until >= before + kCooldownMs);
  CHECK(opened_until <= after + kCooldownMs);
  const std::int64_t peek_from = admin.now_ms();
  const SharedBreakerState open = peek(a.store);
  const std::int64_t peek_to = admin.now_ms();
  CHECK(open.state == BreakerState::open);
  CHECK(open.cooldown_left_ms <= opened_until - peek_from);  // opened_until − the script's TIME
  CHECK(open.cooldown_left_ms >= opened_until - peek_to);
  // A minute before its end it is open; from its end on (opened_until ≤ TIME) half-open.
  admin.run({"HSET", RedisBreakerStore::key_prefix("") + "breaker", "opened_until", std::to_string(admin.now_ms() + 60000)});
  CHECK(admit(a.store).verdict == SharedVerdict::open);
  admin.end_cooldown();
  const SharedBreakerState half_open = peek(a.store);  // a peek sees the step, and writes nothing
  CHECK(half_open.state == BreakerState::half_open);
  CHECK(half_open.generation == 2);
  CHECK(admin.field("", "state") == "open");
  CHECK(admin.field("", "gen") == "1");
}

TEST_CASE("Redis breaker store: an outcome with a stale generation changes nothing, in closed, open and half-open") {
  RedisServer redis;
  Replica slow(redis), fast(redis);
  Admin admin(redis);
  const std::uint64_t slow_gen = admit(slow.store).state.generation;  // a slow call admitted...
  CHECK(slow_gen == 0);
  open_it(fast.store, 0);  // ...meanwhile the other replica opens it: generation 1
  // The slow call's late failure neither counts nor reopens; its late success does not close.
  const SharedRecord late_failure = record(slow.store, slow_gen, false, true);
  CHECK_FALSE(late_failure.opened_now);
  CHECK(late_failure.state.state == BreakerState::open);
  CHECK(late_failure.state.consecutive_failures == 3);
  CHECK(late_failure.state.open_events == 1);
  CHECK(late_failure.state.generation == 1);
  const SharedRecord late_success = record(slow.store, slow_gen, false, false);
  CHECK(late_success.state.state == BreakerState::open);
  CHECK(late_success.state.consecutive_failures == 3);
  // Half-open: generation 2; the probe's grant makes it 3. An outcome carrying the half-open
  // generation (not the probe's) is stale: the probe stays held, the breaker half-open.
  admin.end_cooldown();
  const std::uint64_t half_open_gen = peek(slow.store).generation;
  CHECK(half_open_gen == 2);
  const SharedAdmission probe = admit(fast.store);
  CHECK(probe.verdict == SharedVerdict::probe);
  CHECK(probe.state.generation == 3);
  const SharedRecord stale_probe = record(slow.store, half_open_gen, true, false);
  CHECK(stale_probe.state.state == BreakerState::half_open);
  CHECK(stale_probe.state.generation == 3);
  CHECK(admin.probe_held());
  CHECK(admit(slow.store).verdict == SharedVerdict::probe_busy);
  // The probe's own outcome closes it: failures cleared, the permit freed, generation 4.
  const SharedRecord closed = record(fast.store, probe.state.generation, true, false);
  CHECK_FALSE(closed.opened_now);
  CHECK(closed.state.state == BreakerState::closed);
  CHECK(closed.state.consecutive_failures == 0);
  CHECK(closed.state.generation == 4);
  CHECK_FALSE(admin.probe_held());
  // Closed again: a failure from before the probe is stale too.
  CHECK(record(slow.store, late_failure.state.generation, false, true).state.consecutive_failures == 0);
  CHECK(record(slow.store, closed.state.generation, false, true).state.consecutive_failures == 1);
}

TEST_CASE("Redis breaker store: one probe across replicas, held one cooldown, a failed probe reopens for a fresh cooldown") {
  RedisServer redis;
  Replica a(redis), b(redis);
  Admin admin(redis);
  const SharedAdmission probe = first_probe(a.store, a.store, admin);
  CHECK(probe.state.state == BreakerState::half_open);
  // The permit is a key with PX = one cooldown, so a replica that dies mid-probe frees it.
  const long long pttl = admin.run({"PTTL", RedisBreakerStore::key_prefix("") + "probe"}).integer;
  CHECK(pttl > 0);
  CHECK(pttl <= kCooldownMs);
  const SharedAdmission busy = admit(b.store);
  CHECK(busy.verdict == SharedVerdict::probe_busy);
  CHECK(busy.state.generation == 3);  // a refused caller changes no generation
  const std::int64_t before = admin.now_ms();
  const SharedRecord reopened = record(a.store, probe.state.generation, true, true);
  const std::int64_t after = admin.now_ms();
  CHECK(reopened.opened_now);
  CHECK(reopened.state.state == BreakerState::open);
  CHECK(reopened.state.consecutive_failures == 4);
  CHECK(reopened.state.open_events == 2);
  CHECK(reopened.state.generation == 4);
  const std::int64_t opened_until = std::stoll(admin.field("", "opened_until"));
  CHECK(opened_until >= before + kCooldownMs);  // a fresh cooldown from the probe's failure
  CHECK(opened_until <= after + kCooldownMs);
  CHECK_FALSE(admin.probe_held());
  CHECK(admit(b.store).verdict == SharedVerdict::open);
}

TEST_CASE("Redis breaker store: a probe whose permit expired is stale, the next caller probes and decides") {
  RedisServer redis;
  Replica dead(redis), next(redis);
  Admin admin(redis);
  const SharedAdmission first = first_probe(next.store, dead.store, admin);
  CHECK(admit(next.store).verdict == SharedVerdict::probe_busy);
  admin.expire_probe();  // one cooldown later its holder has still not answered
  const SharedAdmission second = admit(next.store);
  CHECK(second.verdict == SharedVerdict::probe);
  CHECK(second.state.generation == 4);
  // The first probe's late failure does not reopen the breaker, nor free the new permit.
  const SharedRecord late = record(dead.store, first.state.generation, true, true);
  CHECK_FALSE(late.opened_now);
  CHECK(late.state.state == BreakerState::half_open);
  CHECK(late.state.open_events == 1);
  CHECK(late.state.generation == 4);
  CHECK(admin.probe_held());
  const SharedRecord closed = record(next.store, second.state.generation, true, false);
  CHECK(closed.state.state == BreakerState::closed);
  CHECK(closed.state.generation == 5);
}

TEST_CASE("Redis breaker store: seed writes a replica's state into an empty store, its cooldown on Redis's clock") {
  RedisServer redis;
  Replica a(redis), b(redis);
  Admin admin(redis);
  const SharedBreakerState local{.state = BreakerState::open,
                                 .consecutive_failures = 5,
                                 .cooldown_left_ms = 12000,
                                 .open_events = 2,
                                 .generation = 40};  // a replica's own generation is not the store's
  const std::int64_t before = admin.now_ms();
  CHECK(a.store.seed(local));
  const std::int64_t after = admin.now_ms();
  const std::int64_t opened_until = std::stoll(admin.field("", "opened_until"));
  CHECK(opened_until >= before + 12000);
  CHECK(opened_until <= after + 12000);
  const SharedBreakerState seeded = peek(b.store);
  CHECK(seeded.state == BreakerState::open);
  CHECK(seeded.consecutive_failures == 5);
  CHECK(seeded.open_events == 2);
  CHECK(seeded.generation == 1);
  const long long ttl = admin.run({"TTL", RedisBreakerStore::key_prefix("") + "breaker"}).integer;
  CHECK(ttl > RedisBreakerStore::kIdleTtlS - 60);  // idle keys expire; 60 s of slack for a slow machine
  CHECK(ttl <= RedisBreakerStore::kIdleTtlS);
  // A store that has state keeps it: a second replica's seed answers true and writes nothing.
  CHECK(b.store.seed(SharedBreakerState{.state = BreakerState::closed}));
  const SharedBreakerState kept = peek(a.store);
  CHECK(kept.state == BreakerState::open);
  CHECK(kept.consecutive_failures == 5);
  CHECK(kept.open_events == 2);
  CHECK(kept.generation == 1);
  CHECK(admin.field("", "opened_until") == std::to_string(opened_until));
  // So does an open store seeded open by another replica: its own cooldown stands.
  CHECK(b.store.seed(SharedBreakerState{.state = BreakerState::open, .cooldown_left_ms = 60000, .open_events = 9}));
  CHECK(admin.field("", "opened_until") == std::to_string(opened_until));
  CHECK(peek(a.store).open_events == 2);
}

TEST_CASE("Redis breaker store: a replica's open breaker opens a restarted store that another replica seeded closed") {
  RedisServer redis;
  Replica closed_one(redis), open_one(redis);
  Admin admin(redis);
  // Redis came back empty; the first replica to reach it had a closed breaker.
  CHECK(closed_one.store.seed(SharedBreakerState{.state = BreakerState::closed}));
  const std::int64_t before = admin.now_ms();
  CHECK(open_one.store.seed(SharedBreakerState{.state = BreakerState::open, .consecutive_failures = 2,
                                                .cooldown_left_ms = 20000, .open_events = 3}));
  const std::int64_t after = admin.now_ms();
  const SharedBreakerState s = peek(closed_one.store);
  CHECK(s.state == BreakerState::open);
  CHECK(s.consecutive_failures == 2);
  CHECK(s.open_events == 3);
  CHECK(s.generation == 2);  // permits given while it was closed are stale now
  const std::int64_t opened_until = std::stoll(admin.field("", "opened_until"));
  CHECK(opened_until >= before + 20000);
  CHECK(opened_until <= after + 20000);
  CHECK(admit(closed_one.store).verdict == SharedVerdict::open);
  // An open seed whose cooldown has passed changes nothing: the store's half-open probe stands.
  admin.end_cooldown();
  CHECK(admit(closed_one.store).verdict == SharedVerdict::probe);
  CHECK(open_one.store.seed(SharedBreakerState{.state = BreakerState::open, .cooldown_left_ms = 0, .open_events = 3}));
  CHECK(admit(open_one.store).verdict == SharedVerdict::probe_busy);
}

TEST_CASE("Redis breaker store: a seed whose cooldown has passed is half-open at once, and no store answers false") {
  RedisServer redis;
  Replica a(redis);
  Admin admin(redis);
  const std::int64_t before = admin.now_ms();
  CHECK(a.store.seed(SharedBreakerState{.state = BreakerState::open, .consecutive_failures = 3,
                                         .cooldown_left_ms = -5000, .open_events = 1}));
  const std::int64_t after = admin.now_ms();
  const std::int64_t opened_until = std::stoll(admin.field("", "opened_until"));
  CHECK(opened_until >= before);  // a negative cooldown left is written as 0: it ends now
  CHECK(opened_until <= after);
  const SharedBreakerState s = peek(a.store);
  CHECK(s.state == BreakerState::half_open);
  CHECK(s.generation == 2);
  const SharedAdmission probe = admit(a.store);
  CHECK(probe.verdict == SharedVerdict::probe);
  CHECK(probe.state.generation == 3);
  redis.kill();
  CHECK_FALSE(a.store.seed(SharedBreakerState{}));
  CHECK_FALSE(a.store.acquire().has_value());
}

TEST_CASE("Redis breaker store: reset closes it with zero counters, frees the probe, and the generation keeps growing") {
  RedisServer redis;
  Replica a(redis), b(redis);
  Admin admin(redis);
  const SharedAdmission probe = first_probe(a.store, a.store, admin);
  b.store.reset();
  CHECK_FALSE(admin.probe_held());
  const SharedBreakerState s = peek(a.store);
  CHECK(s.state == BreakerState::closed);
  CHECK(s.consecutive_failures == 0);
  CHECK(s.open_events == 0);
  CHECK(s.cooldown_left_ms <= 0);
  CHECK(s.generation == 4);  // never back to 0: every permit from before the reset is stale
  const SharedRecord old_probe = record(a.store, probe.state.generation, true, true);
  CHECK_FALSE(old_probe.opened_now);
  CHECK(old_probe.state.state == BreakerState::closed);
  CHECK(old_probe.state.consecutive_failures == 0);
  CHECK(old_probe.state.generation == 4);
  CHECK(record(a.store, 0, false, true).state.consecutive_failures == 0);  // the first permits, too
  const SharedAdmission fresh = admit(b.store);
  CHECK(fresh.verdict == SharedVerdict::call);
  CHECK(fresh.state.generation == 4);
  CHECK(record(b.store, fresh.state.generation, false, true).state.consecutive_failures == 1);
}

TEST_CASE("Redis breaker store: each lab has its own keys, and a reset of an empty store starts at generation 1") {
  RedisServer redis;
  Replica teacher(redis), student(redis, "ana");
  Admin admin(redis);
  CHECK(RedisBreakerStore::key_prefix("") == "quote-lab:{_}:");
  CHECK(RedisBreakerStore::key_prefix("ana") == "quote-lab:{ana}:");
  open_it(student.store, 0);
  CHECK(admit(student.store).verdict == SharedVerdict::open);
  CHECK(admit(teacher.store).verdict == SharedVerdict::call);
  CHECK(admin.field("ana", "state") == "open");
  CHECK(admin.field("", "state") == "closed");
  admin.run({"DEL", RedisBreakerStore::key_prefix("") + "breaker"});
  teacher.store.reset();
  CHECK(peek(teacher.store).generation == 1);
  CHECK(peek(student.store).state == BreakerState::open);  // another lab's reset is not this one's
}

TEST_CASE("Redis breaker store: a Redis that stops answering costs a caller one timeout, then the replica decides alone until it answers again") {
  RedisServer redis;
  Replica a(redis);  // the default bound, 50 ms per round trip
  CHECK(peek(a.store).state == BreakerState::closed);
  redis.pause();
  const auto started = std::chrono::steady_clock::now();
  CHECK_FALSE(a.store.acquire().has_value());
  // One 50 ms wait, with room for a loaded machine: a client without a bound would still
  // be waiting here, since the stopped server keeps the socket open.
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(2));
  const RedisHealth h = a.client.health();
  CHECK_FALSE(h.healthy);
  CHECK(h.error.find("no answer within 50 ms") != std::string::npos);
  redis.resume();
  // Answering again, but the replica waits for its reconnect schedule's next attempt.
  CHECK_FALSE(a.store.acquire().has_value());
  a.clock.advance(Millis(2000));  // past the longest reconnect wait
  CHECK(peek(a.store).state == BreakerState::closed);
  CHECK(a.client.health().healthy);
}

}  // namespace test_redis_breaker_store
