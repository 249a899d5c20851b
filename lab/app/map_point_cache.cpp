#include "lab/app/map_point_cache.hpp"

namespace quote_lab {

MapPointCache::Claim MapPointCache::find_or_start(const std::string& key) {
  std::lock_guard lock(mutex_);
  if (const auto it = index_.find(key); it != index_.end()) {
    order_.splice(order_.begin(), order_, it->second);
    return {it->second->answer, false};
  }
  order_.emplace_front();
  Entry& e = order_.front();
  e.key = key;
  e.answer = e.promise.get_future().share();
  index_[key] = order_.begin();
  drop_oldest_finished();
  return {e.answer, true};
}

void MapPointCache::finish(const std::string& key, std::string answer) {
  std::lock_guard lock(mutex_);
  const auto it = index_.find(key);
  if (it == index_.end() || !it->second->running) return;
  it->second->running = false;
  it->second->promise.set_value(std::move(answer));
}

void MapPointCache::fail(const std::string& key, std::exception_ptr why) {
  std::lock_guard lock(mutex_);
  const auto it = index_.find(key);
  if (it == index_.end() || !it->second->running) return;
  it->second->promise.set_exception(std::move(why));
  order_.erase(it->second);
  index_.erase(it);
}

std::size_t MapPointCache::size() const {
  std::lock_guard lock(mutex_);
  return order_.size();
}

void MapPointCache::drop_oldest_finished() {
  if (order_.size() <= kCapacity) return;
  // Running points are never dropped (their starter will finish them); they are few, bounded
  // by the simulation runner's line.
  for (auto it = std::prev(order_.end());; --it) {
    if (!it->running) {
      index_.erase(it->key);
      order_.erase(it);
      return;
    }
    if (it == order_.begin()) return;
  }
}

}  // namespace quote_lab
