#pragma once
// The fallback quotes replicas share, in one Redis hash per lab:
//   quote-lab:{lab}:fallback   field "CUSTOMER:ITEMS" → the cached quote as JSON
// written through on every live quote (HSET + EXPIRE in one script), read on a local miss.
// Expires after RedisBreakerStore::kIdleTtlS without a new quote.

#include <string>

#include "lab/resilience/shared_fallback.hpp"
#include "lab/shared_state/redis_client.hpp"

namespace quote_lab {

class RedisFallbackStore final : public SharedFallbackStore {
 public:
  /// `lab_name`: "" for the teacher's lab. `client` outlives the store.
  RedisFallbackStore(RedisClient& client, const std::string& lab_name);

  void remember(const CachedQuote& entry) override;
  std::optional<CachedQuote> lookup(int customer_id, int items) override;
  void reset() override;

 private:
  RedisClient& client_;
  const std::string key_;
};

}  // namespace quote_lab
