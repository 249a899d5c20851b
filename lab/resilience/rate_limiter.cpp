#include "lab/resilience/rate_limiter.hpp"

#include <algorithm>
#include <stdexcept>

namespace quote_lab {

InProcessRateLimiter::InProcessRateLimiter(const Clock& clock, RateLimitSettings settings,
                                           std::size_t max_clients, std::size_t max_logged)
    : clock_(clock),
      settings_(settings),
      max_clients_(std::max<std::size_t>(1, max_clients)),
      max_logged_(std::max<std::size_t>(1, max_logged)) {
  if (settings.limit < 1 || settings.limit > RateLimitSettings::kMaxLimit || settings.window_s < 1 ||
      settings.window_s > RateLimitSettings::kMaxWindowS) {
    throw std::invalid_argument("rate limiter: limit must be in [1, " + std::to_string(RateLimitSettings::kMaxLimit) +
                                "] and window_s in [1, " + std::to_string(RateLimitSettings::kMaxWindowS) + "]");
  }
}

void InProcessRateLimiter::drop_times_before_locked(Entry& entry, std::int64_t horizon_ms) {
  while (!entry.times_ms.empty() && entry.times_ms.front() <= horizon_ms) {
    entry.times_ms.pop_front();
    --logged_;
  }
}

void InProcessRateLimiter::forget_idle_locked(std::int64_t horizon_ms) {
  // order_ runs from the most to the least recently seen, so idle clients gather at its
  // back; stopping at the first busy one keeps each call O(1) amortised.
  while (!order_.empty()) {
    auto it = entries_.find(order_.back());
    if (!it->second.times_ms.empty() && it->second.times_ms.back() > horizon_ms) break;
    logged_ -= it->second.times_ms.size();
    entries_.erase(it);
    order_.pop_back();
  }
}

void InProcessRateLimiter::evict_beyond_bounds_locked(const std::string& keep) {
  while ((entries_.size() > max_clients_ || logged_ > max_logged_) && order_.back() != keep) {
    auto it = entries_.find(order_.back());
    logged_ -= it->second.times_ms.size();
    entries_.erase(it);
    order_.pop_back();
  }
}

RateDecision InProcessRateLimiter::admit(std::string_view key) {
  const std::int64_t now_ms = std::chrono::duration_cast<Millis>(clock_.now().time_since_epoch()).count();
  const std::int64_t window_ms = std::int64_t{settings_.window_s} * 1000;
  const std::int64_t horizon_ms = now_ms - window_ms;  // a time t counts while t > horizon

  std::lock_guard lock(mutex_);
  forget_idle_locked(horizon_ms);
  auto [it, inserted] = entries_.try_emplace(std::string(key));
  Entry& entry = it->second;
  if (inserted) {
    order_.push_front(it->first);
    entry.order = order_.begin();
  } else {
    order_.splice(order_.begin(), order_, entry.order);
  }
  drop_times_before_locked(entry, horizon_ms);

  RateDecision d;
  d.limit = settings_.limit;
  d.window_s = settings_.window_s;
  const auto in_window = static_cast<std::int64_t>(entry.times_ms.size());
  if (in_window < settings_.limit) {
    entry.times_ms.push_back(now_ms);
    ++logged_;
    d.allowed = true;
    d.remaining = static_cast<int>(settings_.limit - in_window - 1);
    evict_beyond_bounds_locked(it->first);
    return d;
  }
  d.allowed = false;
  d.remaining = 0;
  // The oldest logged time leaves the window at oldest + window; a whole second, rounded
  // up, so a client that waits exactly Retry-After is admitted.
  const std::int64_t wait_ms = entry.times_ms.front() + window_ms - now_ms;
  d.retry_after_s = std::max<std::int64_t>(1, (wait_ms + 999) / 1000);
  return d;
}

std::size_t InProcessRateLimiter::tracked_clients() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

std::size_t InProcessRateLimiter::logged_times() const {
  std::lock_guard lock(mutex_);
  return logged_;
}

}  // namespace quote_lab
