#pragma once
// How many requests the lab serves at once (--workers). cpp-httplib's pool has more
// threads than that (open event streams get threads of their own), so handlers take one
// of these slots first. Unlike a std::counting_semaphore, a wait for a slot ends when
// shutdown begins: a request that has not started yet must not hold the stop. And slots
// are given in arrival order: a slot given back goes straight to the longest waiter (each
// waits on its own condition variable, so one release wakes one thread, however long the
// line during a storm). A student's quote during a storm waits its turn behind the storm's
// requests and its waterfall shows the wait, instead of sometimes taking a slot that came
// free at the right moment ahead of everyone waiting.

#include <condition_variable>
#include <deque>
#include <mutex>
#include <stop_token>

namespace quote_lab {

class WorkerSlots {
 public:
  /// `slots` requests at once (at least 1).
  explicit WorkerSlots(int slots);
  WorkerSlots(const WorkerSlots&) = delete;
  WorkerSlots& operator=(const WorkerSlots&) = delete;

  /// Waits for a free slot, first come first served, and takes it. Returns false, holding
  /// no slot, once `shutdown` is requested (before or during the wait): the caller answers
  /// 503 instead.
  [[nodiscard]] bool acquire(std::stop_token shutdown);
  /// Gives back a slot taken by a successful acquire().
  void release();
  /// Requests waiting for a slot now.
  int waiting();

 private:
  struct Waiter {
    std::condition_variable_any handed;
    bool granted = false;  // the slot is this waiter's (handed over by release())
  };
  void give_back_locked();

  std::mutex mutex_;  // guards the fields below
  int free_;                   // slots nobody holds and nobody waits for
  std::deque<Waiter*> line_;   // waiting requests, oldest first (each on its own stack)
};

}  // namespace quote_lab
