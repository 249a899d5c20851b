#include "lab/carrier/deadline_watchdog.hpp"

#include <vector>

namespace quote_lab {

DeadlineWatchdog::DeadlineWatchdog() : thread_([this] { run(); }) {}

DeadlineWatchdog::~DeadlineWatchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

DeadlineWatchdog::Guard DeadlineWatchdog::arm(SteadyTime deadline, std::function<void()> cancel) {
  std::uint64_t id;
  {
    std::lock_guard lock(mutex_);
    id = ++next_id_;
    entries_.emplace(id, Entry{deadline, std::move(cancel)});
    fired_[id] = false;
  }
  changed_.notify_all();
  return Guard(*this, id);
}

DeadlineWatchdog::Guard::~Guard() {
  if (owner_ == nullptr) return;
  std::lock_guard lock(owner_->mutex_);
  owner_->entries_.erase(id_);
  owner_->fired_.erase(id_);
}

bool DeadlineWatchdog::Guard::fired() const {
  if (owner_ == nullptr) return false;
  std::lock_guard lock(owner_->mutex_);
  const auto it = owner_->fired_.find(id_);
  return it != owner_->fired_.end() && it->second;
}

void DeadlineWatchdog::run() {
  // The watchdog measures real time by nature: it cuts real sockets short.
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    SteadyTime next = SteadyTime::max();
    for (const auto& [_, e] : entries_) next = std::min(next, e.deadline);
    if (next == SteadyTime::max()) {
      changed_.wait(lock);
      continue;
    }
    changed_.wait_until(lock, next);
    const SteadyTime now = std::chrono::steady_clock::now();
    // Run cancel actions while holding the lock so a guard cannot be destroyed (and its
    // Client freed) between the decision and the call.
    for (auto it = entries_.begin(); it != entries_.end();) {
      if (it->second.deadline <= now) {
        it->second.cancel();
        fired_[it->first] = true;
        it = entries_.erase(it);
      } else {
        ++it;
      }
    }
  }
}

}  // namespace quote_lab
