#include "lab/shared_state/redis_storm_leases.hpp"

namespace quote_lab {
namespace {

std::string member(const std::string& lab) { return lab.empty() ? "_" : lab; }

// KEYS: the leases. ARGV: member, lease ms, student cap (0: none).
const std::string kTake = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 'lab_busy' end
local cap = tonumber(ARGV[3])
if cap > 0 then
  local students = 0
  for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    if string.sub(m, 1, 1) ~= '_' then students = students + 1 end
  end
  if students >= cap then return 'class_full' end
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
return 'granted'
)lua";

}  // namespace

std::optional<RedisStormLeases::Lease> RedisStormLeases::take(const std::string& lab, long long duration_ms,
                                                              std::size_t student_cap) {
  const auto v = client_.eval(kTake, {kKey},
                              {member(lab), std::to_string(duration_ms + kLeaseMarginMs), std::to_string(student_cap)});
  if (!v) return std::nullopt;
  if (v->text == "lab_busy") return Lease::lab_busy;
  if (v->text == "class_full") return Lease::class_full;
  return Lease::granted;
}

void RedisStormLeases::give_back(const std::vector<std::string>& labs) {
  std::vector<std::string> argv{"ZREM", kKey};
  for (const auto& lab : labs) argv.push_back(member(lab));
  client_.command(argv);
}

}  // namespace quote_lab
