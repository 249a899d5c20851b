#pragma once
// The rate limiter replicas share: the same sliding log as the in-process one
// (lab/resilience/rate_limiter.hpp), kept in Redis as one sorted set per client key —
//   quote-lab:rate:{KEY}   members: one per admitted request (unique), scores: Redis TIME ms
// changed by one Lua script (ZREMRANGEBYSCORE, ZCARD, ZADD, PEXPIRE), so two replicas can
// never both count N−1 and both admit, and the server's clock is the only clock. The set
// expires one window after its last admitted request. When Redis cannot answer in time
// the local limiter decides (fail-soft: a Redis outage must not turn into 429s or errors).

#include <atomic>
#include <cstdint>
#include <memory>

#include "lab/resilience/rate_limiter.hpp"
#include "lab/shared_state/redis_client.hpp"

namespace quote_lab {

class RedisRateLimiter final : public RateLimiter {
 public:
  /// `settings` as InProcessRateLimiter takes them; `local` decides while Redis is down
  /// (an InProcessRateLimiter with the same settings). `client` outlives the limiter.
  RedisRateLimiter(RedisClient& client, RateLimitSettings settings,
                   std::unique_ptr<RateLimiter> local);

  RateDecision admit(std::string_view key) override;
  RateLimitSettings settings() const override { return settings_; }

  /// The Redis key of a client key: "quote-lab:rate:{KEY}".
  static std::string redis_key(std::string_view key);

 private:
  RedisClient& client_;
  // Each logged request needs a member no other request of any replica has: a ZADD of an
  // existing member counts nothing (the seed's timestamp members lost requests that way).
  // "instance:sequence", the instance drawn from the OS once (replicas started with the
  // same --seed must still differ).
  const std::string instance_;
  std::atomic<std::uint64_t> sequence_{0};
  const RateLimitSettings settings_;
  const std::unique_ptr<RateLimiter> local_;
};

}  // namespace quote_lab
