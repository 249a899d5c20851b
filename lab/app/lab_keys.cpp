#include "lab/app/lab_keys.hpp"


#include <algorithm>

#include "lab/http/request_guard.hpp"
#include "lab/shared_state/redis_client.hpp"

namespace quote_lab {
namespace {

constexpr std::string_view kBase32 = "abcdefghijklmnopqrstuvwxyz234567";

// The owner's key, claimed with ARGV[1] when it has none, its time to live renewed either
// way: one atomic round trip, so two replicas claiming at once agree on one key.
const std::string kClaimScript = R"lua(
local current = redis.call('GET', KEYS[1])
if current then
  redis.call('EXPIRE', KEYS[1], ARGV[2])
  return current
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return ARGV[1]
)lua";

// A Redis key's time to live is renewed at most this often per owner and replica: a
// student's every request must not cost a round trip, and a minute is nothing against
// an idle expiry of hours.
constexpr std::chrono::seconds kRefreshEvery{60};

}  // namespace

bool owns(std::string_view owner, std::string_view lab_name) {
  return !owner.empty() && lab_name.starts_with(owner) &&
         (lab_name.size() == owner.size() || lab_name[owner.size()] == '-');
}

std::vector<std::string> possible_owners(std::string_view lab_name) {
  std::vector<std::string> out;
  if (lab_name.empty()) return out;
  out.emplace_back(lab_name);
  for (auto dash = lab_name.rfind('-'); dash != std::string_view::npos && dash > 0; dash = lab_name.rfind('-', dash - 1))
    out.emplace_back(lab_name.substr(0, dash));
  return out;
}

bool well_formed_lab_key(std::string_view key) {
  return key.size() == kLabKeyLength &&
         std::all_of(key.begin(), key.end(), [](char c) { return kBase32.find(c) != std::string_view::npos; });
}

std::string presented_lab_key(std::string_view header, std::string_view param) {
  std::string key(header.empty() ? param : header);
  // Pasted keys come with spaces or a newline; keys have none.
  key.erase(std::remove_if(key.begin(), key.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }),
            key.end());
  return key;
}

LabKeys::LabKeys(RandomSource& random, const Clock& clock, RedisClient* shared, std::chrono::minutes idle_expiry)
    : random_(random),
      clock_(clock),
      shared_(shared),
      ttl_s_(std::chrono::duration_cast<std::chrono::seconds>(idle_expiry).count()) {}

std::string LabKeys::new_key() {
  // 20 characters of 5 bits each from two 64-bit draws (100 bits).
  const std::uint64_t high = random_.bits(), low = random_.bits();
  std::string key;
  for (std::size_t i = 0; i < kLabKeyLength; ++i) {
    const std::uint64_t word = i < 10 ? high : low;
    key += kBase32[(word >> (5 * (i % 10))) & 31];
  }
  return key;
}

std::optional<std::string> LabKeys::key_here(const std::string& owner) const {
  std::lock_guard lock(mutex_);
  const auto it = keys_.find(owner);
  return it == keys_.end() ? std::nullopt : std::optional<std::string>(it->second);
}

std::optional<std::string> LabKeys::key_in_redis(const std::string& owner, const std::string& ours) {
  if (shared_ == nullptr) return std::nullopt;
  const auto v = shared_->eval(kClaimScript, {redis_key(owner)}, {ours, std::to_string(ttl_s_)});
  if (!v || v->type != RedisValue::Type::string || !well_formed_lab_key(v->text)) return std::nullopt;
  std::lock_guard lock(mutex_);
  keys_[owner] = v->text;  // Redis decides: another replica may have claimed it first
  refreshed_[owner] = clock_.now();
  return v->text;
}

LabKeys::Shared LabKeys::read_redis(const std::string& owner) {
  if (shared_ == nullptr) return {};
  const auto v = shared_->command({"GET", redis_key(owner)});
  if (!v) return {};
  Shared out{true, std::nullopt};
  if (v->type == RedisValue::Type::string && well_formed_lab_key(v->text)) {
    out.key = v->text;
    std::lock_guard lock(mutex_);
    keys_[owner] = v->text;
  }
  return out;
}

std::optional<std::string> LabKeys::claim(const std::string& owner) {
  if (key_here(owner)) return std::nullopt;  // the usual case: no round trip
  const std::string candidate = new_key();
  if (const auto decided = key_in_redis(owner, candidate))
    return *decided == candidate ? std::optional<std::string>(candidate) : std::nullopt;
  // No Redis, or Redis unreachable: this process decides.
  std::lock_guard lock(mutex_);
  const auto [it, inserted] = keys_.emplace(owner, candidate);
  return inserted ? std::optional<std::string>(candidate) : std::nullopt;
}

std::string LabKeys::reissue(const std::string& owner) {
  const std::string key = new_key();
  if (shared_ != nullptr) shared_->command({"SET", redis_key(owner), key, "EX", std::to_string(ttl_s_)});
  std::lock_guard lock(mutex_);
  keys_[owner] = key;
  refreshed_[owner] = clock_.now();
  return key;
}

std::optional<std::string> LabKeys::owner_of(const std::string& lab_name) {
  const std::vector<std::string> candidates = possible_owners(lab_name);
  std::vector<bool> in_redis(candidates.size(), false);
  if (shared_ != nullptr && !candidates.empty()) {
    std::vector<std::string> argv{"MGET"};
    for (const auto& c : candidates) argv.push_back(redis_key(c));
    if (const auto v = shared_->command(argv); v && v->type == RedisValue::Type::array) {
      std::lock_guard lock(mutex_);
      for (std::size_t i = 0; i < candidates.size() && i < v->elements.size(); ++i) {
        const RedisValue& e = v->elements[i];
        if (e.type != RedisValue::Type::string || !well_formed_lab_key(e.text)) continue;
        in_redis[i] = true;
        keys_[candidates[i]] = e.text;  // Redis decides: another replica may have claimed it
      }
    }
  }
  // A key this replica claimed while Redis was away counts too (check() offers it to Redis).
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (in_redis[i] || keys_.count(candidates[i])) return candidates[i];
  return std::nullopt;
}

std::optional<std::string> LabKeys::key_for(const std::string& lab_name) const {
  std::lock_guard lock(mutex_);
  for (const std::string& candidate : possible_owners(lab_name))
    if (const auto it = keys_.find(candidate); it != keys_.end()) return it->second;
  return std::nullopt;
}

LabKeyVerdict LabKeys::check(const std::string& owner, const std::string& presented) {
  std::optional<std::string> key = key_here(owner);
  // With Redis its answer wins (another replica may have claimed the owner first). A key
  // this replica claimed while Redis was away is offered to it now; without one, Redis is
  // only read: a key nobody was given must never be claimed here.
  if (shared_ != nullptr) {
    if (key) {
      if (const auto shared = key_in_redis(owner, *key)) key = shared;
    } else if (const Shared shared = read_redis(owner); shared.reached) {
      key = shared.key;
    }
  }
  if (!key) return LabKeyVerdict::unclaimed;
  if (presented.empty()) return LabKeyVerdict::missing;
  return constant_time_equal(presented, *key) ? LabKeyVerdict::accepted : LabKeyVerdict::wrong;
}

void LabKeys::touch(const std::string& lab_name) {
  if (shared_ == nullptr) return;
  const SteadyTime now = clock_.now();
  std::optional<std::string> key;
  std::string owner;
  {
    std::lock_guard lock(mutex_);
    auto it = keys_.end();
    for (const std::string& candidate : possible_owners(lab_name))
      if ((it = keys_.find(candidate)) != keys_.end()) break;
    if (it == keys_.end()) return;
    owner = it->first;
    auto& last = refreshed_[owner];
    if (last != SteadyTime{} && now - last < kRefreshEvery) return;
    last = now;
    key = it->second;
  }
  key_in_redis(owner, *key);
}

std::map<std::string, std::string> LabKeys::all() const {
  std::lock_guard lock(mutex_);
  return keys_;
}

void LabKeys::restore(const std::map<std::string, std::string>& keys) {
  std::lock_guard lock(mutex_);
  for (const auto& [owner, key] : keys) keys_.emplace(owner, key);
}

void LabKeys::forget(const std::string& owner) {
  std::lock_guard lock(mutex_);
  keys_.erase(owner);
  refreshed_.erase(owner);
}

std::string LabKeys::redis_key(const std::string& owner) { return "quote-lab:lab-key:{" + owner + "}"; }

}  // namespace quote_lab
