// Lab keys shared by replicas (lab/app/lab_keys.hpp) on a real Debian redis-server: one key
// per owner whichever replica claims first, a key claimed while Redis was away offered to it
// afterwards, a key the teacher issues anew replacing the old on every replica, the longer
// claimed name owning a lab on all, and the time to live that frees a name once nobody uses it.
#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "lab/app/lab_keys.hpp"
#include "support/fake_clock.hpp"
#include "support/redis_server.hpp"

namespace test_lab_keys_redis {

using namespace quote_lab;
using quote_lab::testing::FakeClock;
using quote_lab::testing::RedisServer;

namespace {

// One replica: its own connection pool and its own keys on the shared Redis.
struct Replica {
  explicit Replica(const RedisServer& redis, std::uint64_t seed)
      : random(seed), client(redis.patient_client(), clock, random), keys(random, clock, &client) {
    client.connect_or_throw();
  }
  FakeClock clock;
  RandomSource random;
  RedisClient client;
  LabKeys keys;
};

}  // namespace

TEST_CASE("two replicas claiming one owner at once hand out one key, and both accept it") {
  RedisServer redis;
  Replica a(redis, 1), b(redis, 2);
  for (int round = 0; round < 20; ++round) {
    const std::string owner = "s" + std::to_string(round);
    std::optional<std::string> from_a, from_b;
    std::thread ta([&] { from_a = a.keys.claim(owner); });
    std::thread tb([&] { from_b = b.keys.claim(owner); });
    ta.join();
    tb.join();
    CAPTURE(owner);
    REQUIRE(from_a.has_value() != from_b.has_value());  // exactly one replica handed out a key
    const std::string key = from_a ? *from_a : *from_b;
    CHECK(a.keys.check(owner, key) == LabKeyVerdict::accepted);
    CHECK(b.keys.check(owner, key) == LabKeyVerdict::accepted);
    CHECK(b.keys.check(owner, "") == LabKeyVerdict::missing);
  }
  // A replica that never saw the owner reads its key from Redis, and claims nothing.
  Replica c(redis, 3);
  CHECK(c.keys.check("s0", "") == LabKeyVerdict::missing);
  CHECK_FALSE(c.keys.claim("s0"));
  CHECK(c.keys.check("nobody", "") == LabKeyVerdict::unclaimed);
  CHECK(c.keys.claim("nobody"));
}

TEST_CASE("a key the teacher issues on one replica replaces the old one on every replica, and the longer claimed name owns a lab on all") {
  RedisServer redis;
  Replica a(redis, 1), b(redis, 2);
  const auto old = a.keys.claim("ana");
  REQUIRE(old);
  REQUIRE(b.keys.check("ana", *old) == LabKeyVerdict::accepted);  // b has it now
  const std::string fresh = a.keys.reissue("ana");
  CHECK(fresh != *old);
  CHECK(b.keys.check("ana", *old) == LabKeyVerdict::wrong);
  CHECK(b.keys.check("ana", fresh) == LabKeyVerdict::accepted);
  CHECK_FALSE(b.keys.claim("ana"));

  CHECK(b.keys.owner_of("ana-maria-paso1") == "ana");
  const auto maria = a.keys.claim("ana-maria");
  REQUIRE(maria);
  CHECK(b.keys.owner_of("ana-maria-paso1") == "ana-maria");
  CHECK(b.keys.owner_of("ana-paso1") == "ana");
  CHECK(b.keys.check("ana-maria", *maria) == LabKeyVerdict::accepted);
  CHECK(b.keys.check("ana-maria", fresh) == LabKeyVerdict::wrong);
}

TEST_CASE("a key in Redis lives as long as the idle expiry, renewed while its owner is active") {
  RedisServer redis;
  Replica a(redis, 1);
  REQUIRE(a.keys.claim("ana"));
  const auto ttl = a.client.command({"TTL", LabKeys::redis_key("ana")});
  REQUIRE(ttl);
  CHECK(ttl->integer > 119 * 60);
  CHECK(ttl->integer <= 120 * 60);
  a.client.command({"EXPIRE", LabKeys::redis_key("ana"), "100"});
  a.clock.advance(std::chrono::minutes(2));
  a.keys.touch("ana");  // active again: renewed
  CHECK(a.client.command({"TTL", LabKeys::redis_key("ana")})->integer > 119 * 60);
}

}  // namespace test_lab_keys_redis
