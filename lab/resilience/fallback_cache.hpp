#pragma once
// The resilient mode's fallback: the last good live quote per (customer_id, items), else
// a seed quote priced when the lab was seeded. Bounded in size; thread-safe.

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "lab/base/clock.hpp"
#include "lab/resilience/domain.hpp"
#include "lab/resilience/quote.hpp"

namespace quote_lab {

class SharedFallbackStore;

/// A quote as the cache hands it out.
struct CachedQuote {
  int customer_id = kCustomerId.fallback;
  int items = kItems.fallback;
  Quote quote;
  WallTime cached_at{};  ///< when the lab stored it (the seed time for a seed quote)
  bool seed = false;     ///< true: no live quote was ever seen for this key

  /// Seconds since `cached_at`, rounded to 0.1 s, never negative.
  double age_s(WallTime now) const;
};

class FallbackCache {
 public:
  /// At most this many keys are kept; the least recently stored is dropped first.
  static constexpr std::size_t kMaxEntries = 1000;

  explicit FallbackCache(const Clock& clock);

  /// Set before traffic starts: write live quotes through to `shared` (not owned) and ask
  /// it on a local miss (shared_fallback.hpp); null = local only.
  void set_shared(SharedFallbackStore* shared) { shared_ = shared; }

  /// Stores a live quote for its key, stamped with the current wall time.
  void remember(int customer_id, int items, const Quote& quote);
  /// The last live quote for the key (this replica's, else the shared store's), else the
  /// seed quote for it.
  CachedQuote lookup(int customer_id, int items);
  /// The most recently stored live quote, if any (for /dependency/state).
  std::optional<CachedQuote> latest() const;
  /// Every stored live quote, oldest first, and the seed time (for persistence).
  std::vector<CachedQuote> entries() const;
  WallTime seeded_at() const;

  /// Forgets every live quote and reseeds at the current time; `shared`: the shared store's
  /// quotes too (false: another replica reset the lab and cleared them already).
  void reset(bool shared = true);
  /// Replaces the contents with persisted ones (entries beyond the bound are dropped).
  void restore(WallTime seeded_at, const std::vector<CachedQuote>& entries);

 private:
  void insert_locked(const CachedQuote& entry);

  const Clock& clock_;
  SharedFallbackStore* shared_ = nullptr;  // set before traffic
  mutable std::mutex mutex_;  // guards entries_, seeded_at_ and asked_
  // Keys the shared store had no quote for, and when it was asked: not asked again for a
  // second, so repeated short circuits for a key nobody has priced make no round trips.
  std::map<std::pair<int, int>, SteadyTime> asked_;
  std::map<std::pair<int, int>, CachedQuote> entries_;
  WallTime seeded_at_;
};

}  // namespace quote_lab
