#include "lab/shared_state/redis_rate_limiter.hpp"

#include <algorithm>
#include <random>

namespace quote_lab {
namespace {

// KEYS: the client's sorted set. ARGV: limit, window ms, a member unique to this request.
// Reply: {admitted 1/0, remaining, ms until the oldest logged time leaves the window}.
// Logged times t with now − t < window count; a refused request is not logged.
const std::string kAdmit = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, limit - count - 1, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, 0, tonumber(oldest[2]) + window - now}
)lua";

}  // namespace

RedisRateLimiter::RedisRateLimiter(RedisClient& client, RateLimitSettings settings, std::unique_ptr<RateLimiter> local)
    : client_(client),
      instance_(std::to_string(std::random_device{}()) + std::to_string(std::random_device{}())),
      settings_(settings),
      local_(std::move(local)) {}

std::string RedisRateLimiter::redis_key(std::string_view key) { return "quote-lab:rate:{" + std::string(key) + "}"; }

RateDecision RedisRateLimiter::admit(std::string_view key) {
  const auto v = client_.eval(kAdmit, {redis_key(key)},
                              {std::to_string(settings_.limit), std::to_string(std::int64_t{settings_.window_s} * 1000),
                               instance_ + ":" + std::to_string(sequence_.fetch_add(1))});
  if (!v || v->type != RedisValue::Type::array || v->elements.size() != 3) return local_->admit(key);
  RateDecision d;
  d.allowed = v->elements[0].integer == 1;
  d.limit = settings_.limit;
  d.window_s = settings_.window_s;
  d.remaining = static_cast<int>(std::max(0LL, v->elements[1].integer));
  // Whole seconds, rounded up, at least 1: the Retry-After header.
  if (!d.allowed) d.retry_after_s = std::max<std::int64_t>(1, (v->elements[2].integer + 999) / 1000);
  return d;
}

}  // namespace quote_lab
