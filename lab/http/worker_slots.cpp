#include "lab/http/worker_slots.hpp"

#include <algorithm>

namespace quote_lab {

WorkerSlots::WorkerSlots(int slots) : free_(std::max(1, slots)) {}

bool WorkerSlots::acquire(std::stop_token shutdown) {
  std::unique_lock lock(mutex_);
  if (shutdown.stop_requested()) return false;  // no new work once stopping
  if (free_ > 0 && line_.empty()) {
    --free_;
    return true;
  }
  Waiter me;
  line_.push_back(&me);
  // wait() returns when the slot is handed over or the stop is requested, whichever first.
  me.handed.wait(lock, shutdown, [&] { return me.granted; });
  if (!me.granted) {
    line_.erase(std::find(line_.begin(), line_.end(), &me));
    return false;
  }
  if (shutdown.stop_requested()) {  // handed a slot, but stopping: pass it on
    give_back_locked();
    return false;
  }
  return true;
}

void WorkerSlots::give_back_locked() {
  if (line_.empty()) {
    ++free_;
    return;
  }
  Waiter* next = line_.front();
  line_.pop_front();
  next->granted = true;
  next->handed.notify_one();  // under the lock: `next` lives until its owner re-takes it
}

void WorkerSlots::release() {
  std::lock_guard lock(mutex_);
  give_back_locked();
}

int WorkerSlots::waiting() {
  std::lock_guard lock(mutex_);
  return static_cast<int>(line_.size());
}

}  // namespace quote_lab
