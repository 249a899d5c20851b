#pragma once
// A discrete-event scheduler over fibers (fiber.hpp): simulated time stands still while a
// fiber runs and jumps to the next event when every fiber waits. An event resumes one fiber
// at one instant; events of the same instant run in the order they were made, so a run is one
// interleaving, decided by the seed alone: the same seed, the same run, byte for byte.
// Discrete-event simulation as FoundationDB's deterministic simulation and TigerBeetle's VOPR
// run their real code: one thread, virtual time, every wait an event.
//
// Not thread-safe: one thread runs the scheduler and all its fibers.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <vector>

#include "lab/base/clock.hpp"
#include "lab/simulation/fiber.hpp"

namespace quote_lab {

class SimScheduler {
 public:
  /// Simulated time starts at `start`.
  explicit SimScheduler(SteadyTime start) : now_(start) {}
  /// unwind()s.
  ~SimScheduler();
  SimScheduler(const SimScheduler&) = delete;
  SimScheduler& operator=(const SimScheduler&) = delete;

  /// Simulated now.
  SteadyTime now() const { return now_; }

  /// `body` will run on a fiber of its own, starting at the current instant after what is
  /// already due then. Callable from a fiber or before run().
  void spawn(std::function<void()> body);
  /// Runs events until none is left. Rethrows the first exception a fiber let out. Throws
  /// std::logic_error if fibers are still waiting with no event to wake them (a wait
  /// without a deadline that nobody ended): a run must end by itself.
  void run();

  /// Identifies one wait of one fiber: wake() with it ends that wait, and nothing later.
  struct Waker {
    std::size_t slot = 0;
    std::uint64_t wait = 0;
  };
  /// From a fiber: the waker of the wait it is about to start (park_until).
  Waker waker() const;
  /// From a fiber: waits until `deadline` (none: until woken) or until wake() is called
  /// with this wait's waker. True when woken, false at the deadline.
  bool park_until(std::optional<SteadyTime> deadline);
  /// From a fiber: waits until `at`.
  void sleep_until(SteadyTime at) { park_until(at); }
  /// Ends the wait `w` names at the current instant; false if that wait is over already.
  bool wake(const Waker& w);
  /// True inside one of this scheduler's fibers.
  bool in_fiber() const { return current_.has_value(); }
  /// Ends the fibers a run left waiting (one cut short by an exception): each one's wait throws
  /// inside it, so whatever its stack holds is destroyed. Call it while what those fibers use
  /// is still alive; from outside the fibers only.
  void unwind();
  /// Fibers started and not ended.
  std::size_t live_fibers() const { return live_; }

 private:
  struct Slot {
    std::unique_ptr<Fiber> fiber;
    std::uint64_t wait = 0;  // the current wait's number; an event for another is stale
    bool woken = false;      // how the last wait ended
    bool free = true;
  };
  struct Event {
    SteadyTime at;
    std::uint64_t order;  // ties at one instant: first made, first run
    std::size_t slot;
    std::uint64_t wait;
    bool woken;
    bool operator>(const Event& o) const { return at != o.at ? at > o.at : order > o.order; }
  };
  void push(SteadyTime at, std::size_t slot, std::uint64_t wait, bool woken);
  Slot& current_slot();

  SteadyTime now_;
  std::uint64_t next_order_ = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::vector<Slot> slots_;
  std::vector<std::size_t> free_slots_;
  std::optional<std::size_t> current_;
  std::size_t live_ = 0;
  bool aborting_ = false;  // the destructor is unwinding the fibers left waiting
};

}  // namespace quote_lab
