#include "lab/shared_state/redis_lab_snapshots.hpp"

namespace quote_lab {
namespace {

// KEYS: snapshots, positions. ARGV: lab, position ("MS-SEQ"), text. Stream ids compare as
// two numbers; Lua's doubles hold a millisecond clock exactly.
const std::string kWrite = R"lua(
local stored = redis.call('HGET', KEYS[2], ARGV[1])
if stored then
  local sm, ss = string.match(stored, '^(%d+)-(%d+)$')
  local nm, ns = string.match(ARGV[2], '^(%d+)-(%d+)$')
  sm, ss, nm, ns = tonumber(sm), tonumber(ss), tonumber(nm), tonumber(ns)
  if sm and nm and (sm > nm or (sm == nm and ss >= ns)) then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
)lua";

// KEYS: positions. ARGV: lab, stored, to, lab, stored, to, ...
const std::string kAdvance = R"lua(
for i = 1, #ARGV, 3 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2]) end
end
return 1
)lua";

}  // namespace

bool RedisLabSnapshots::advance(const std::vector<Advance>& labs) {
  if (labs.empty()) return true;
  std::vector<std::string> args;
  for (const Advance& a : labs) {
    args.push_back(a.lab);
    args.push_back(a.stored);
    args.push_back(a.to);
  }
  return redis_.eval(kAdvance, {kPositionsKey}, args).has_value();
}

std::optional<std::map<std::string, std::string>> RedisLabSnapshots::positions() {
  const auto r = redis_.command({"HGETALL", kPositionsKey});
  if (!r || r->type != RedisValue::Type::array) return std::nullopt;
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i + 1 < r->elements.size(); i += 2) out[r->elements[i].text] = r->elements[i + 1].text;
  return out;
}

std::optional<std::string> RedisLabSnapshots::read(const std::string& lab) {
  const auto r = redis_.command({"HGET", kSnapshotsKey, lab});
  if (!r || r->type != RedisValue::Type::string) return std::nullopt;
  return r->text;
}

bool RedisLabSnapshots::write(const std::string& lab, const std::string& position, const std::string& text) {
  const auto r = redis_.eval(kWrite, {kSnapshotsKey, kPositionsKey}, {lab, position, text});
  return r && r->type == RedisValue::Type::integer && r->integer == 1;
}

}  // namespace quote_lab
