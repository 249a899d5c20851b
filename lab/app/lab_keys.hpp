#pragma once
// A student's lab belongs to the student (SPEC.md, last section: `lab_key`, `X-Lab-Key`).
// Every student lab has an owner, its name up to the first '-' (`ana`, `ana-paso3` and
// `ana-tail-2` are all ana's), and each owner one random key, handed out once: in the JSON
// answer of the first request that reaches a lab of an owner nobody has claimed yet.
// Changing a claimed owner's lab (reset, carrier mode, storms) then needs that key, in an
// `X-Lab-Key` header or a `lab_key=` parameter, or the teacher's token; reading never does.
//
// The keys live in the class's state file with the labs (a restart does not lock students
// out) and, with `--state-backend redis://…`, in one Redis key per owner claimed with
// SET NX, so two replicas never hand out two keys for one owner.

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "lab/base/clock.hpp"
#include "lab/base/random.hpp"
#include "lab/http/httplib_fwd.hpp"

namespace quote_lab {

class RedisClient;

/// The query parameter and the header that carry a lab key.
inline constexpr std::string_view kLabKeyParam = "lab_key";
inline constexpr std::string_view kLabKeyHeader = "X-Lab-Key";
/// Characters in a key: 20 base32 characters (a-z, 2-7) are 100 random bits.
inline constexpr std::size_t kLabKeyLength = 20;

/// The owner of student lab `lab_name` (a normalised name): the part before the first '-'
/// ("ana-paso3" → "ana"); a name that starts with '-' is its own owner.
std::string lab_owner(std::string_view lab_name);

/// Whether `key` has the shape of a key this lab hands out (kLabKeyLength characters of
/// a-z and 2-7): what the state file and Redis may hold.
bool well_formed_lab_key(std::string_view key);

/// The key a request presents: the X-Lab-Key header, else the first `lab_key` parameter;
/// "" when it presents none.
std::string presented_lab_key(const httplib::Request& req);

/// `body` (one JSON object, compact or pretty) with `"lab_key": key` as its first field, laid
/// out as it was; nullopt when `body` is not a JSON object (a page, Prometheus text).
std::optional<std::string> with_lab_key(const std::string& body, const std::string& key);

/// What a request that changes a lab may do, by the key it presents.
enum class LabKeyVerdict {
  unclaimed,  ///< the owner has no key yet: anyone may (their answer claims it)
  accepted,   ///< the owner's key
  missing,    ///< claimed, and no key was sent: 403 lab_key_required
  wrong,      ///< claimed, and another key was sent: 403 wrong_lab_key
};

/// Owner → key, for every owner of this lab. Thread-safe: one mutex guards the local map.
/// Redis round trips (with a backend) run outside it; each is bounded by the client's
/// timeout, and while Redis is unreachable this replica decides from its own map (a key it
/// claims meanwhile is pushed to Redis the next time the owner's key is checked).
class LabKeys {
 public:
  /// `random`: where keys come from. `shared`: the Redis of `--state-backend` (null: this
  /// process alone). `clock` paces the refresh of the Redis keys' time to live.
  /// `idle_expiry`: how long a Redis key outlives the owner's last request (a lab's idle
  /// expiry: a name free again in the file is free again in Redis).
  LabKeys(RandomSource& random, const Clock& clock, RedisClient* shared = nullptr,
          std::chrono::minutes idle_expiry = std::chrono::minutes(120));

  /// Claims `owner` when nobody has: returns the new key when this call claimed it, nullopt
  /// when the owner already had one (here or, with Redis, on another replica).
  std::optional<std::string> claim(const std::string& owner);
  /// Judges `presented` ("" for none) against `owner`'s key. Compared in constant time.
  LabKeyVerdict check(const std::string& owner, const std::string& presented);
  /// With Redis: the owner was active now; its key's time to live is renewed (at most once a
  /// minute per owner and replica). Nothing without Redis.
  void touch(const std::string& owner);

  /// Every owner's key (what the state file keeps).
  std::map<std::string, std::string> all() const;
  /// Puts keys read from the state file back (start-up); an owner claimed meanwhile keeps
  /// its key.
  void restore(const std::map<std::string, std::string>& keys);
  /// Forgets `owner`'s key here (its last lab was forgotten): the name is free again. Redis
  /// forgets it on its own once its time to live has passed.
  void forget(const std::string& owner);

  /// The Redis key of `owner`'s key: "quote-lab:lab-key:{OWNER}".
  static std::string redis_key(const std::string& owner);

 private:
  std::string new_key();
  std::optional<std::string> key_here(const std::string& owner) const;
  /// The owner's key in Redis, claiming it there with `ours` when Redis has none; nullopt
  /// when Redis cannot be reached.
  std::optional<std::string> key_in_redis(const std::string& owner, const std::string& ours);
  /// The owner's key as Redis holds it, read only (`reached` false: Redis unreachable).
  struct Shared {
    bool reached = false;
    std::optional<std::string> key;
  };
  Shared read_redis(const std::string& owner);

  RandomSource& random_;
  const Clock& clock_;
  RedisClient* shared_;
  const long long ttl_s_;
  mutable std::mutex mutex_;  // guards keys_ and refreshed_
  std::map<std::string, std::string> keys_;
  std::map<std::string, SteadyTime> refreshed_;  // last time to live renewal in Redis, per owner
};

}  // namespace quote_lab
