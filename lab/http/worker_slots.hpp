#pragma once
// How many requests the lab serves at once (--workers). cpp-httplib's pool has more
// threads than that (open event streams get threads of their own), so handlers take one
// of these slots first. Unlike a std::counting_semaphore, a wait for a slot ends when
// shutdown begins: a request that has not started yet must not hold the stop.

#include <condition_variable>
#include <mutex>
#include <stop_token>

namespace quote_lab {

class WorkerSlots {
 public:
  /// `slots` requests at once (at least 1).
  explicit WorkerSlots(int slots);
  WorkerSlots(const WorkerSlots&) = delete;
  WorkerSlots& operator=(const WorkerSlots&) = delete;

  /// Waits for a free slot and takes it. Returns false, holding no slot, once `shutdown`
  /// is requested (before or during the wait): the caller answers 503 instead.
  [[nodiscard]] bool acquire(std::stop_token shutdown);
  /// Gives back a slot taken by a successful acquire().
  void release();

 private:
  std::mutex mutex_;  // guards free_
  std::condition_variable_any freed_;
  int free_;
};

}  // namespace quote_lab
