#pragma once
// Wakes the carrier threads whose calls wait at a shedding station (shedding_station.hpp):
// each change that may give a waiting call its turn (a call ended, left, or displaced
// another) bumps a generation count; a waiter that read the count before asking for its
// turn sleeps only while the count is unchanged, so no wake-up is lost between the two.

#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "lab/base/clock.hpp"

namespace quote_lab {

class StationSignal {
 public:
  /// The count to pass to wait(): read it before asking the station for a turn.
  std::uint64_t generation();
  /// Something changed at a station: every waiter asks again.
  void notify();
  /// Sleeps until the count differs from `seen` or real time reaches `until`. False once
  /// interrupt() was called (before or during): the carrier is stopping.
  bool wait(std::uint64_t seen, SteadyTime until);
  /// Wakes every waiter now and makes later waits return false at once.
  void interrupt();
  /// Waits work again (a carrier that restarts).
  void rearm();

 private:
  std::mutex mutex_;  // guards generation_ and interrupted_
  std::condition_variable changed_;
  std::uint64_t generation_ = 0;
  bool interrupted_ = false;
};

}  // namespace quote_lab
