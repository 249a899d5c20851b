// The breaker's transition table (support/breaker_transition_table.hpp) against the store
// replicas share: its Lua scripts on a real redis-server. Time moves the way the scripts
// see it (test_redis_breaker_store.cpp says why): the cooldown ends by writing
// `opened_until` into the past on Redis's clock, a probe lapses by deleting its permit as
// its PX would. The same rows run once more against the breaker the lab serves with
// `--state-backend redis://…`: the local breaker following that store (ReplicatedBreaker).
#include <doctest/doctest.h>

#include "lab/shared_state/redis_breaker_store.hpp"
#include "lab/shared_state/replicated_breaker.hpp"
#include "support/breaker_transition_table.hpp"
#include "support/fake_clock.hpp"
#include "support/redis_server.hpp"

namespace test_breaker_transition_table_redis {

using namespace quote_lab;
using namespace quote_lab::testing;

namespace {

class RedisBreaker final : public BreakerDriver {
 public:
  RedisBreaker(const RedisServer& redis, const std::string& lab)
      : client_({redis.endpoint()}, clock_, random_), store_(client_, lab, kPolicy), lab_(lab) {
    client_.connect_or_throw();
  }
  std::string acquire() override {
    const auto a = store_.acquire();
    REQUIRE(a.has_value());
    generation_ = a->state.generation;
    probe_ = a->verdict == SharedVerdict::probe;
    switch (a->verdict) {
      case SharedVerdict::call: return "call";
      case SharedVerdict::probe: return "probe";
      case SharedVerdict::open: return "open";
      case SharedVerdict::probe_busy: return "probe_busy";
    }
    return "?";
  }
  void record(bool failure) override { REQUIRE(store_.record(generation_, probe_, failure).has_value()); }
  void end_cooldown() override {
    const RedisValue t = command({"TIME"});
    const long long now_ms = std::stoll(t.elements.at(0).text) * 1000 + std::stoll(t.elements.at(1).text) / 1000;
    command({"HSET", key("breaker"), "opened_until", std::to_string(now_ms)});
  }
  void expire_probe() override { command({"DEL", key("probe")}); }
  void reset() override { store_.reset(); }
  void hold() override { held_ = {generation_, probe_}; }
  void record_held(bool failure) override {
    REQUIRE(store_.record(held_.first, held_.second, failure).has_value());
  }
  std::string state() override { return std::string(to_string(peek().state)); }
  int failures() override { return peek().consecutive_failures; }

 private:
  static constexpr BreakerPolicy kPolicy{.failure_threshold = kTableThreshold, .open_duration_s = 30};
  SharedBreakerState peek() {
    const auto s = store_.peek();
    REQUIRE(s.has_value());
    return *s;
  }
  RedisValue command(const std::vector<std::string>& argv) {
    const auto v = client_.command(argv);
    REQUIRE(v.has_value());
    return *v;
  }
  std::string key(const char* name) const { return RedisBreakerStore::key_prefix(lab_) + name; }

  FakeClock clock_;
  RandomSource random_{7};
  RedisClient client_;
  RedisBreakerStore store_;
  std::string lab_;
  std::uint64_t generation_ = 0;
  bool probe_ = false;
  std::pair<std::uint64_t, bool> held_{0, false};
};

// The lab's own breaker over the store: admissions and outcomes go to Redis, the local
// breaker follows them, and its fake clock ends its cooldown when Redis's does.
class LabBreakerOverRedis final : public BreakerInterfaceDriver {
 public:
  LabBreakerOverRedis(const RedisServer& redis, const std::string& lab)
      : client_({redis.endpoint()}, clock_, random_), store_(client_, lab, kPolicy), lab_(lab) {
    client_.connect_or_throw();
    breaker_.join();
  }
  std::string acquire() override {
    const std::string verdict = BreakerInterfaceDriver::acquire();
    // Every admission here is the store's, never the local breaker's alone.
    if (verdict == "call" || verdict == "probe") REQUIRE(permit()->shared_generation.has_value());
    return verdict;
  }
  void end_cooldown() override {
    const RedisValue t = command({"TIME"});
    const long long now_ms = std::stoll(t.elements.at(0).text) * 1000 + std::stoll(t.elements.at(1).text) / 1000;
    command({"HSET", RedisBreakerStore::key_prefix(lab_) + "breaker", "opened_until", std::to_string(now_ms)});
    clock_.advance(std::chrono::seconds(30));
  }
  void expire_probe() override {
    command({"DEL", RedisBreakerStore::key_prefix(lab_) + "probe"});
    clock_.advance(std::chrono::seconds(30));
  }

 private:
  static constexpr BreakerPolicy kPolicy{.failure_threshold = kTableThreshold, .open_duration_s = 30};
  Breaker& breaker() override { return breaker_; }
  RedisValue command(const std::vector<std::string>& argv) {
    const auto v = client_.command(argv);
    REQUIRE(v.has_value());
    return *v;
  }

  FakeClock clock_;
  RandomSource random_{7};
  RedisClient client_;
  RedisBreakerStore store_;
  std::string lab_;
  CircuitBreaker local_{"carrier", kPolicy, clock_};
  ReplicatedBreaker breaker_{local_, store_, clock_};
};

}  // namespace

TEST_CASE("breaker_transition_table: the lab's breaker over the Redis store (ReplicatedBreaker)") {
  RedisServer redis;
  int row = 0;
  run_transition_table([&] { return std::make_unique<LabBreakerOverRedis>(redis, "lab" + std::to_string(++row)); });
}

TEST_CASE("breaker_transition_table: the Redis store replicas share") {
  RedisServer redis;
  int row = 0;  // each row on a lab of its own: a fresh breaker without restarting Redis
  run_transition_table([&] { return std::make_unique<RedisBreaker>(redis, "row" + std::to_string(++row)); });
}

}  // namespace test_breaker_transition_table_redis
