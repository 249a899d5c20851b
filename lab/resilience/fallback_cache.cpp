#include "lab/resilience/fallback_cache.hpp"

#include <algorithm>
#include <cmath>

#include "lab/resilience/pricing.hpp"
#include "lab/resilience/shared_fallback.hpp"

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
  const CachedQuote entry{customer_id, items, quote, now, false};
  {
    std::lock_guard lock(mutex_);
    insert_locked(entry);
  }
  if (shared_) shared_->remember(entry);
}

CachedQuote FallbackCache::lookup(int customer_id, int items) {
  const std::pair key{customer_id, items};
  std::unique_lock lock(mutex_);
  if (const auto it = entries_.find(key); it != entries_.end()) return it->second;
  if (shared_) {
    const SteadyTime now = clock_.now();
    const auto asked = asked_.find(key);
    if (asked == asked_.end() || now - asked->second >= std::chrono::seconds(1)) {
      lock.unlock();  // no lock held over a round trip
      const auto found = shared_->lookup(customer_id, items);
      lock.lock();
      if (found) {
        insert_locked(*found);
        asked_.erase(key);
        return *found;
      }
      if (asked_.size() >= kMaxEntries) asked_.clear();
      asked_[key] = now;
    }
  }
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

void FallbackCache::reset(bool shared) {
  const WallTime now = clock_.wall_now();
  if (shared && shared_) shared_->reset();
  std::lock_guard lock(mutex_);
  entries_.clear();
  asked_.clear();
  seeded_at_ = now;
}

void FallbackCache::restore(WallTime seeded_at, const std::vector<CachedQuote>& entries) {
  std::lock_guard lock(mutex_);
  entries_.clear();
  seeded_at_ = seeded_at;
  for (const auto& e : entries) insert_locked(e);
}

}  // namespace quote_lab
