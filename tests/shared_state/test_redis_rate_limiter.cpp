#include <doctest/doctest.h>

#include <memory>

#include "lab/shared_state/redis_rate_limiter.hpp"
#include "support/redis_server.hpp"

namespace test_redis_rate_limiter {

using namespace quote_lab;
using quote_lab::testing::RedisServer;

namespace {

// One replica's limiter on `redis`: its own connection pool and its own local fallback.
struct Replica {
  Replica(const RedisServer& redis, RateLimitSettings s)
      : client({redis.endpoint()}, clock, random),
        limiter(client, s, std::make_unique<InProcessRateLimiter>(clock, s)) {
    client.connect_or_throw();
  }
  SystemClock clock;
  RandomSource random{7};  // the same --seed on every replica
  RedisClient client;
  RedisRateLimiter limiter;
};

}  // namespace

TEST_CASE("Redis rate limiter: the limit is one count across replicas, the last one gets Retry-After") {
  RedisServer redis;
  const RateLimitSettings s{3, 60};
  Replica a(redis, s), b(redis, s), c(redis, s);
  CHECK(a.limiter.admit("_|10.0.0.1").remaining == 2);
  CHECK(b.limiter.admit("_|10.0.0.1").remaining == 1);
  CHECK(c.limiter.admit("_|10.0.0.1").remaining == 0);
  const RateDecision refused = a.limiter.admit("_|10.0.0.1");  // the 4th, on any replica
  CHECK_FALSE(refused.allowed);
  CHECK(refused.limit == 3);
  CHECK(refused.window_s == 60);
  CHECK(refused.retry_after_s >= 59);
  CHECK(refused.retry_after_s <= 60);
  CHECK(b.limiter.admit("_|10.0.0.2").allowed);  // another client has its own count
}

TEST_CASE("Redis rate limiter: with Redis gone the local limiter decides, quickly and without errors") {
  RedisServer redis;
  const RateLimitSettings s{2, 60};
  Replica a(redis, s);
  CHECK(a.limiter.admit("_|10.0.0.9").allowed);
  redis.kill();
  const auto started = std::chrono::steady_clock::now();
  CHECK(a.limiter.admit("_|10.0.0.9").allowed);   // local: first of 2
  CHECK(a.limiter.admit("_|10.0.0.9").allowed);   // local: second of 2
  CHECK_FALSE(a.limiter.admit("_|10.0.0.9").allowed);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(1));
  const RedisHealth h = a.client.health();
  CHECK_FALSE(h.healthy);
  CHECK_FALSE(h.error.empty());
  CHECK(h.errors_total >= 1);
}

}  // namespace test_redis_rate_limiter
