#pragma once
// The lab's hedged calls (resilience/overload/hedged_call.hpp) on threads of their own: each
// call of a race (resilience/overload/hedge_race.hpp) runs on a thread, and the caller waits
// for the first live answer in real time, whatever clock the lab reads (a test's fake clock
// cannot drive two threads' race).
//
// The loser is abandoned, not stopped: a blocking HTTP call cannot be cut short here, so it
// runs on to its own timeout on its thread and its answer is dropped. The carrier served it
// all the same: every hedge is one more carrier call (the cost the budget bounds). Both
// calls carry the same Idempotency-Key, so the carrier books once and replays to the other.
// Thread-safe.

#include <atomic>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

#include "lab/resilience/overload/hedged_call.hpp"

namespace quote_lab {

class ThreadedHedgedCaller final : public HedgedCaller {
 public:
  /// `carrier` is not owned and outlives this.
  explicit ThreadedHedgedCaller(CarrierCaller& carrier) : carrier_(carrier) {}
  /// Waits for the abandoned calls still running (each ends by its own timeout).
  ~ThreadedHedgedCaller() override;
  ThreadedHedgedCaller(const ThreadedHedgedCaller&) = delete;
  ThreadedHedgedCaller& operator=(const ThreadedHedgedCaller&) = delete;

  Result call(const CarrierRequest& request, Millis delay, const std::function<bool()>& may_hedge,
              std::function<void(double)> first_took_ms) override;

 private:
  // Runs `work` on a thread of its own, joined once it has ended (or by the destructor).
  void launch(std::function<void()> work);

  CarrierCaller& carrier_;
  SystemClock clock_;
  std::mutex mutex_;  // guards calls_
  struct Running {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> ended;
  };
  std::list<Running> calls_;
};

}  // namespace quote_lab
