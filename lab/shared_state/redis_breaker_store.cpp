#include "lab/shared_state/redis_breaker_store.hpp"

#include <algorithm>
#include <cmath>

namespace quote_lab {
namespace {

// Shared by every script: the breaker hash as a Lua table, Redis TIME in ms, the
// time-driven open → half_open step, and the reply {tag, state, failures,
// opened_until − now, open_events, gen}.
const std::string kPrelude = R"lua(
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function load(key)
  local h = redis.call('HMGET', key, 'state', 'failures', 'opened_until', 'open_events', 'gen')
  return {state = h[1] or 'closed', failures = tonumber(h[2]) or 0, opened_until = tonumber(h[3]) or 0,
          open_events = tonumber(h[4]) or 0, gen = tonumber(h[5]) or 0}
end
local function refresh(b, now)
  if b.state == 'open' and now >= b.opened_until then
    b.state = 'half_open'
    b.gen = b.gen + 1
  end
end
local function open(b, now, duration)
  b.state = 'open'
  b.opened_until = now + duration
  b.open_events = b.open_events + 1
  b.gen = b.gen + 1
end
local function save(key, b, ttl)
  redis.call('HSET', key, 'state', b.state, 'failures', b.failures, 'opened_until', b.opened_until,
             'open_events', b.open_events, 'gen', b.gen)
  redis.call('EXPIRE', key, ttl)
end
local function reply(tag, b, now)
  return {tag, b.state, b.failures, b.opened_until - now, b.open_events, b.gen}
end
)lua";

// KEYS: breaker, probe. ARGV: cooldown ms, idle ttl s.
const std::string kAcquire = kPrelude + R"lua(
local now = now_ms()
local b = load(KEYS[1])
refresh(b, now)
local verdict = 'call'
if b.state == 'open' then
  verdict = 'open'
elseif b.state == 'half_open' then
  if redis.call('SET', KEYS[2], b.gen + 1, 'NX', 'PX', ARGV[1]) then
    b.gen = b.gen + 1  -- the probe's own generation: a probe whose permit expired is stale
    verdict = 'probe'
  else
    verdict = 'probe_busy'
  end
end
save(KEYS[1], b, ARGV[2])
return reply(verdict, b, now)
)lua";

// KEYS: breaker, probe. ARGV: generation, probe (0/1), failure (0/1), threshold, cooldown ms, ttl s.
const std::string kRecord = kPrelude + R"lua(
local now = now_ms()
local b = load(KEYS[1])
refresh(b, now)
local opened = 'kept'
if tonumber(ARGV[1]) == b.gen then
  if b.state == 'half_open' and ARGV[2] == '1' then
    redis.call('DEL', KEYS[2])
    if ARGV[3] == '1' then
      b.failures = b.failures + 1
      open(b, now, tonumber(ARGV[5]))
      opened = 'opened'
    else
      b.state = 'closed'
      b.failures = 0
      b.gen = b.gen + 1
    end
  elseif b.state == 'closed' then
    if ARGV[3] == '1' then
      b.failures = b.failures + 1
      if b.failures >= tonumber(ARGV[4]) then
        open(b, now, tonumber(ARGV[5]))
        opened = 'opened'
      end
    else
      b.failures = 0
    end
  end
end
save(KEYS[1], b, ARGV[6])
return reply(opened, b, now)
)lua";

// KEYS: breaker. Reads only.
const std::string kPeek = kPrelude + R"lua(
local now = now_ms()
local b = load(KEYS[1])
refresh(b, now)
return reply('peek', b, now)
)lua";

// KEYS: breaker, probe. ARGV: state, failures, cooldown left ms, open_events, ttl s. An
// empty store (a restarted Redis) takes the replica's state. A store that has state keeps
// it, except that a replica's breaker open with cooldown left opens a store that is not
// open: a breaker open on any replica is open for all again, whichever replica reached
// the restarted Redis first (its generation grows, so permits given before are stale).
const std::string kSeed = kPrelude + R"lua(
local now = now_ms()
if redis.call('EXISTS', KEYS[1]) == 0 then
  save(KEYS[1], {state = ARGV[1], failures = tonumber(ARGV[2]), opened_until = now + tonumber(ARGV[3]),
                 open_events = tonumber(ARGV[4]), gen = 1}, ARGV[5])
  return 1
end
if ARGV[1] ~= 'open' or tonumber(ARGV[3]) <= 0 then return 0 end
local b = load(KEYS[1])
refresh(b, now)
if b.state == 'open' then return 0 end
redis.call('DEL', KEYS[2])
b.state = 'open'
b.failures = tonumber(ARGV[2])
b.opened_until = now + tonumber(ARGV[3])
b.open_events = math.max(b.open_events, tonumber(ARGV[4]))
b.gen = b.gen + 1
save(KEYS[1], b, ARGV[5])
return 1
)lua";

// KEYS: breaker, probe. ARGV: ttl s. Back to closed with zero counters; the generation
// keeps growing, so no replica mistakes the reset for an old answer.
const std::string kReset = kPrelude + R"lua(
local b = load(KEYS[1])
redis.call('DEL', KEYS[2])
save(KEYS[1], {state = 'closed', failures = 0, opened_until = 0, open_events = 0, gen = b.gen + 1}, ARGV[1])
return 1
)lua";

std::optional<SharedBreakerState> state_of(const RedisValue& v) {
  if (v.type != RedisValue::Type::array || v.elements.size() != 6) return std::nullopt;
  SharedBreakerState s;
  if (!parse_breaker_state(v.elements[1].text, s.state)) return std::nullopt;
  s.consecutive_failures = static_cast<int>(v.elements[2].integer);
  s.cooldown_left_ms = v.elements[3].integer;
  s.open_events = static_cast<std::uint64_t>(std::max(0LL, v.elements[4].integer));
  s.generation = static_cast<std::uint64_t>(std::max(0LL, v.elements[5].integer));
  return s;
}

}  // namespace

std::string RedisBreakerStore::key_prefix(const std::string& lab_name) {
  return "quote-lab:{" + (lab_name.empty() ? std::string("_") : lab_name) + "}:";
}

RedisBreakerStore::RedisBreakerStore(RedisClient& client, const std::string& lab_name, const BreakerPolicy& policy)
    : client_(client),
      keys_{key_prefix(lab_name) + "breaker", key_prefix(lab_name) + "probe"},
      duration_ms_(std::to_string(std::max(1LL, std::llround(policy.open_duration_s * 1000)))),
      threshold_(std::to_string(policy.failure_threshold)),
      // Never expire an open breaker before its cooldown is over.
      ttl_s_(std::to_string(std::max(kIdleTtlS, std::llround(policy.open_duration_s) * 2))) {}

std::optional<SharedAdmission> RedisBreakerStore::acquire() {
  const auto v = client_.eval(kAcquire, keys_, {duration_ms_, ttl_s_});
  if (!v) return std::nullopt;
  const auto state = state_of(*v);
  if (!state) return std::nullopt;
  SharedAdmission a{SharedVerdict::call, *state};
  const std::string& tag = v->elements[0].text;
  if (tag == "probe") a.verdict = SharedVerdict::probe;
  else if (tag == "open") a.verdict = SharedVerdict::open;
  else if (tag == "probe_busy") a.verdict = SharedVerdict::probe_busy;
  return a;
}

std::optional<SharedRecord> RedisBreakerStore::record(std::uint64_t generation, bool probe, bool failure) {
  const auto v = client_.eval(kRecord, keys_,
                              {std::to_string(generation), probe ? "1" : "0", failure ? "1" : "0", threshold_,
                               duration_ms_, ttl_s_});
  if (!v) return std::nullopt;
  const auto state = state_of(*v);
  if (!state) return std::nullopt;
  return SharedRecord{v->elements[0].text == "opened", *state};
}

std::optional<SharedBreakerState> RedisBreakerStore::peek() {
  const auto v = client_.eval(kPeek, {keys_[0]}, {});
  return v ? state_of(*v) : std::nullopt;
}

bool RedisBreakerStore::seed(const SharedBreakerState& local) {
  const auto v = client_.eval(kSeed, keys_,
                              {std::string(to_string(local.state)), std::to_string(local.consecutive_failures),
                               std::to_string(std::max<std::int64_t>(0, local.cooldown_left_ms)),
                               std::to_string(local.open_events), ttl_s_});
  return v.has_value();
}

void RedisBreakerStore::reset() { client_.eval(kReset, keys_, {ttl_s_}); }

}  // namespace quote_lab
