#pragma once
// Fallback quotes shared by replicas: a live quote one replica cached can be the
// fallback of another. The FallbackCache writes through to the store and asks it only when
// it has no live quote of its own for the key (at most once a second per key), so the
// short-circuit path stays local. Standard library only: the store lives outside the core.

#include <optional>

#include "lab/resilience/fallback_cache.hpp"

namespace quote_lab {

/// Thread-safe, never throws; every call is best effort (an unreachable store answers
/// nothing and the local cache goes on alone).
class SharedFallbackStore {
 public:
  virtual ~SharedFallbackStore() = default;
  /// Stores a live quote for its key (customer_id, items).
  virtual void remember(const CachedQuote& entry) = 0;
  /// The live quote some replica stored for the key; nullopt if none or unreachable.
  virtual std::optional<CachedQuote> lookup(int customer_id, int items) = 0;
  /// Forgets every shared quote of this lab (the lab's reset).
  virtual void reset() = 0;
};

}  // namespace quote_lab
