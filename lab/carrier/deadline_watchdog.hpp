#pragma once
// A total deadline for blocking calls. cpp-httplib 0.11.4 only has per-recv timeouts, so
// a server that trickles a byte every 150 ms keeps a "220 ms" call alive for seconds
// (measured on cpp-httplib 0.11.4, see docs/stack-notes.md). The watchdog runs the cancel action (Client::stop()) when the
// deadline passes, from one background thread shared by all calls.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "lab/base/clock.hpp"

namespace quote_lab {

class DeadlineWatchdog {
 public:
  DeadlineWatchdog();
  ~DeadlineWatchdog();
  DeadlineWatchdog(const DeadlineWatchdog&) = delete;
  DeadlineWatchdog& operator=(const DeadlineWatchdog&) = delete;

  /// Keeps one deadline armed while it lives; destroying it disarms it. `fired()` tells
  /// whether the cancel action ran.
  class Guard {
   public:
    Guard(DeadlineWatchdog& owner, std::uint64_t id) : owner_(&owner), id_(id) {}
    Guard(Guard&& other) noexcept : owner_(other.owner_), id_(other.id_) { other.owner_ = nullptr; }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    Guard& operator=(Guard&&) = delete;
    ~Guard();
    /// True once the deadline passed and the cancel action was run.
    bool fired() const;

   private:
    DeadlineWatchdog* owner_;
    std::uint64_t id_;
  };

  /// Runs `cancel` at `deadline` (real steady time) unless the guard is destroyed first.
  /// `cancel` runs on the watchdog thread, under the watchdog's lock (so a guard cannot be
  /// destroyed between the decision and the call): it must be quick and thread-safe, and must
  /// not take a lock that its caller holds while calling into the watchdog (ThreadSanitizer
  /// reports that lock-order inversion).
  [[nodiscard]] Guard arm(SteadyTime deadline, std::function<void()> cancel);

 private:
  void run();

  struct Entry {
    SteadyTime deadline;
    std::function<void()> cancel;
  };
  std::mutex mutex_;  // guards entries_, fired_, next_id_, stopping_
  std::condition_variable changed_;
  std::map<std::uint64_t, Entry> entries_;
  std::map<std::uint64_t, bool> fired_;
  std::uint64_t next_id_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace quote_lab
