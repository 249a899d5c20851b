#include "lab/http/worker_slots.hpp"

#include <algorithm>

namespace quote_lab {

WorkerSlots::WorkerSlots(int slots) : free_(std::max(1, slots)) {}

bool WorkerSlots::acquire(std::stop_token shutdown) {
  std::unique_lock lock(mutex_);
  // wait() returns false when the token was requested before a slot came free.
  if (!freed_.wait(lock, shutdown, [this] { return free_ > 0; })) return false;
  if (shutdown.stop_requested()) return false;  // a free slot, but no new work once stopping
  --free_;
  return true;
}

void WorkerSlots::release() {
  {
    std::lock_guard lock(mutex_);
    ++free_;
  }
  freed_.notify_one();
}

}  // namespace quote_lab
