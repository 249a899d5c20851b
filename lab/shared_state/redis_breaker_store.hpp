#pragma once
// The breaker that replicas share, kept in Redis. Keys, per lab
// (`{lab}` is the lab's name, `_` for the teacher's; the braces are a Redis Cluster hash
// tag, so both keys of a script live on one node):
//   quote-lab:{lab}:breaker  hash: state, failures, opened_until (ms of Redis TIME),
//                            open_events, gen
//   quote-lab:{lab}:probe    the one half-open probe permit: SET NX PX (one cooldown),
//                            so a replica that dies mid-probe frees it
// Each operation is one Lua script (EVALSHA): read, decide and write happen atomically on
// the server, with Redis's TIME as the only clock — never a replica's wall clock — so two
// replicas cannot both see the cooldown end and both probe. An outcome carries the
// generation its admission returned; a stale one changes nothing. Keys expire after
// kIdleTtlS without use (and never before an open breaker's cooldown is over).

#include <string>

#include "lab/resilience/policy.hpp"
#include "lab/shared_state/shared_breaker_store.hpp"
#include "lab/shared_state/redis_client.hpp"

namespace quote_lab {

class RedisBreakerStore final : public SharedBreakerStore {
 public:
  /// Idle keys expire after two hours, like an idle student lab (--lab-idle-minutes' default).
  static constexpr long long kIdleTtlS = 7200;

  /// `lab_name`: "" for the teacher's lab. `client` outlives the store.
  RedisBreakerStore(RedisClient& client, const std::string& lab_name, const BreakerPolicy& policy);

  std::optional<SharedAdmission> acquire() override;
  std::optional<SharedRecord> record(std::uint64_t generation, bool probe, bool failure) override;
  std::optional<SharedBreakerState> peek() override;
  bool seed(const SharedBreakerState& local) override;
  void reset() override;
  std::uint64_t epoch() const override { return client_.epoch(); }
  bool healthy() const override { return client_.healthy(); }

  /// The key prefix of a lab: "quote-lab:{_}:" or "quote-lab:{NAME}:".
  static std::string key_prefix(const std::string& lab_name);

 private:
  RedisClient& client_;
  const std::vector<std::string> keys_;  // breaker hash, probe permit
  const std::string duration_ms_;        // the cooldown, ms
  const std::string threshold_;
  const std::string ttl_s_;
};

}  // namespace quote_lab
