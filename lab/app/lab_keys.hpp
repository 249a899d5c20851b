#pragma once
// A student's lab belongs to the student (SPEC.md, last section: `lab_key`, `X-Lab-Key`).
// A student claims a name once, at the lesson's step 0 (POST /claim?name=ana), and gets its
// one random key in that answer only; a read, a quote or a page load never hands out a key.
// The name then owns every lab called by it or starting with it and '-' (`ana`, `ana-paso3`,
// `ana-tail-2`); when two claimed names fit, the longer wins, so `ana-maria` and `ana` are
// two owners (`ana-maria-paso1` is ana-maria's). Changing a claimed owner's lab — quotes
// included, since they move its breaker — then needs that key, in an `X-Lab-Key` header or a
// `lab_key=` parameter, or the teacher's token, who may also issue the owner a new key.
// Reading never needs one.
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
#include <vector>

#include "lab/base/clock.hpp"
#include "lab/base/random.hpp"

namespace quote_lab {

class RedisClient;

/// The query parameter and the header that carry a lab key.
inline constexpr std::string_view kLabKeyParam = "lab_key";
inline constexpr std::string_view kLabKeyHeader = "X-Lab-Key";
/// Characters in a key: 20 base32 characters (a-z, 2-7) are 100 random bits.
inline constexpr std::size_t kLabKeyLength = 20;

/// Whether the name `owner` owns lab `lab_name` (normalised names): the lab is called
/// `owner`, or starts with `owner` and '-'.
bool owns(std::string_view owner, std::string_view lab_name);
/// The names that may own lab `lab_name`, longest first: the name itself and each part of it
/// before a '-' ("ana-maria-paso1" → "ana-maria-paso1", "ana-maria", "ana").
std::vector<std::string> possible_owners(std::string_view lab_name);

/// Whether `key` has the shape of a key this lab hands out (kLabKeyLength characters of
/// a-z and 2-7): what the state file and Redis may hold.
bool well_formed_lab_key(std::string_view key);

/// The key a request presents, from its X-Lab-Key header (`header`, "" when absent), else its
/// first `lab_key` parameter (`param`): without the blanks a paste brings; "" when it presents
/// none.
std::string presented_lab_key(std::string_view header, std::string_view param);


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
  /// A new key for `owner`, whether or not it had one (the old one opens nothing from now
  /// on): the teacher's answer to a lost key or a name taken by someone else.
  std::string reissue(const std::string& owner);
  /// The claimed owner of lab `lab_name`: the longest of possible_owners() that has a key
  /// (with Redis, as Redis or this replica holds them: one round trip); nullopt when none has.
  std::optional<std::string> owner_of(const std::string& lab_name);
  /// Judges `presented` ("" for none) against `owner`'s key. Compared in constant time.
  LabKeyVerdict check(const std::string& owner, const std::string& presented);
  /// Whether this replica knows `owner` as a claimed name (no Redis round trip).
  bool claimed_here(const std::string& owner) const { return key_here(owner).has_value(); }
  /// The key that opens lab `lab_name` as this replica knows it (its longest claimed owner's;
  /// owner_of() has read Redis for it): what the lab's own storm sends. nullopt: none.
  std::optional<std::string> key_for(const std::string& lab_name) const;
  /// With Redis: lab `lab_name` was active now; its owner's key's time to live is renewed
  /// (at most once a minute per owner and replica). Nothing without Redis, or when this
  /// replica knows no owner of the lab.
  void touch(const std::string& lab_name);

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
