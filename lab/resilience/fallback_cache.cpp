#include "lab/resilience/fallback_cache.hpp"

#include <algorithm>
#include <cmath>

#include "lab/resilience/pricing.hpp"

namespace quote_lab {

double CachedQuote::age_s(WallTime now) const {
  const double s = std::chrono::duration<double>(now - cached_at).count();
  return std::max(0.0, std::round(s * 10.0) / 10.0);
}

FallbackCache::FallbackCache(const Clock& clock) : clock_(clock), seeded_at_(clock.wall_now()) {}

void FallbackCache::insert_locked(const CachedQuote& entry) {
  entries_[{entry.customer_id, entry.items}] = entry;
  if (entries_.size() > kMaxEntries) {
    auto oldest = std::min_element(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
      return a.second.cached_at < b.second.cached_at;
    });
    entries_.erase(oldest);
  }
}

void FallbackCache::remember(int customer_id, int items, const Quote& quote) {
  const WallTime now = clock_.wall_now();
  std::lock_guard lock(mutex_);
  insert_locked(CachedQuote{customer_id, items, quote, now, false});
}

CachedQuote FallbackCache::lookup(int customer_id, int items) const {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find({customer_id, items});
  if (it != entries_.end()) return it->second;
  Quote seed{"SEED-" + std::to_string(customer_id) + "-" + std::to_string(items),
             price_quote_usd(customer_id, items, seeded_at_), "USD", seeded_at_};
  return CachedQuote{customer_id, items, seed, seeded_at_, true};
}

std::optional<CachedQuote> FallbackCache::latest() const {
  std::lock_guard lock(mutex_);
  const auto it = std::max_element(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
    return a.second.cached_at < b.second.cached_at;
  });
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

std::vector<CachedQuote> FallbackCache::entries() const {
  std::lock_guard lock(mutex_);
  std::vector<CachedQuote> out;
  for (const auto& [_, e] : entries_) out.push_back(e);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.cached_at < b.cached_at; });
  return out;
}

WallTime FallbackCache::seeded_at() const {
  std::lock_guard lock(mutex_);
  return seeded_at_;
}

void FallbackCache::reset() {
  const WallTime now = clock_.wall_now();
  std::lock_guard lock(mutex_);
  entries_.clear();
  seeded_at_ = now;
}

void FallbackCache::restore(WallTime seeded_at, const std::vector<CachedQuote>& entries) {
  std::lock_guard lock(mutex_);
  entries_.clear();
  seeded_at_ = seeded_at;
  for (const auto& e : entries) insert_locked(e);
}

}  // namespace quote_lab
