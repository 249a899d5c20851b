// A paused Redis costs a request one bound, not one per round trip: inside a
// RedisClient::RequestScope, once a call failed, the request's later calls answer at once,
// even when a reconnect is due; outside a scope (or in the next request) they try again.
// Against a real redis-server stopped with SIGSTOP: its socket stays open, so only the
// client's timeout ends a call.
#include <doctest/doctest.h>

#include <chrono>

#include "lab/shared_state/redis_client.hpp"
#include "support/fake_clock.hpp"
#include "support/redis_server.hpp"

namespace test_redis_request_budget {

using namespace quote_lab;
using quote_lab::testing::FakeClock;
using quote_lab::testing::RedisServer;

namespace {

// A bound long enough that one wait more is unmistakable on a loaded machine.
constexpr Millis kBound{300};

struct Rig {
  explicit Rig(RedisServer& redis) : client({.endpoint = redis.endpoint(), .timeout = kBound}, clock, random) {
    client.connect_or_throw();
  }
  FakeClock clock;  // the reconnect schedule's; the waits themselves are real
  RandomSource random{7};
  RedisClient client;
};

// Four round trips, a reconnect due before each (the fake clock jumps past the longest
// reconnect wait): how long they took in real time.
Millis four_round_trips(Rig& rig) {
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < 4; ++i) {
    CHECK_FALSE(rig.client.command({"PING"}).has_value());
    rig.clock.advance(Millis(2500));
  }
  return std::chrono::duration_cast<Millis>(std::chrono::steady_clock::now() - started);
}

}  // namespace

TEST_CASE("paused Redis: a request pays one timeout for all its round trips") {
  RedisServer redis;
  Rig rig(redis);
  redis.pause();
  Millis took{};
  {
    const RedisClient::RequestScope request;
    took = four_round_trips(rig);
  }
  // One 300 ms bound; without the scope each due reconnect waits again (4 x 300 ms).
  CHECK(took >= kBound);
  CHECK(took < 2 * kBound);
  CHECK_FALSE(rig.client.healthy());

  // The next request may try again (its reconnect is due): it pays its own one bound.
  {
    const RedisClient::RequestScope request;
    const auto started = std::chrono::steady_clock::now();
    CHECK_FALSE(rig.client.command({"PING"}).has_value());
    CHECK(std::chrono::steady_clock::now() - started >= kBound);
  }
  redis.resume();
  rig.clock.advance(Millis(2500));
  const RedisClient::RequestScope after;
  CHECK(rig.client.command({"PING"}).has_value());
  CHECK(rig.client.healthy());
}

TEST_CASE("paused Redis: without a request scope (the class log's threads) every due reconnect is tried") {
  RedisServer redis;
  Rig rig(redis);
  redis.pause();
  const Millis took = four_round_trips(rig);
  CHECK(took >= 4 * kBound);
  redis.resume();
}

}  // namespace test_redis_request_budget
