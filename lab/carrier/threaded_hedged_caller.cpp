#include "lab/carrier/threaded_hedged_caller.hpp"

#include "lab/resilience/overload/hedge_race.hpp"

namespace quote_lab {

ThreadedHedgedCaller::~ThreadedHedgedCaller() {
  std::lock_guard lock(mutex_);
  for (Running& r : calls_) r.thread.join();
}

void ThreadedHedgedCaller::launch(std::function<void()> work) {
  std::lock_guard lock(mutex_);
  for (auto it = calls_.begin(); it != calls_.end();) {  // the threads whose call is over
    if (!it->ended->load()) {
      ++it;
      continue;
    }
    it->thread.join();
    it = calls_.erase(it);
  }
  auto ended = std::make_shared<std::atomic<bool>>(false);
  calls_.push_back({std::thread([work = std::move(work), ended] {
                      work();
                      ended->store(true);
                    }),
                    ended});
}

HedgedCaller::Result ThreadedHedgedCaller::call(const CarrierRequest& request, Millis delay,
                                                const std::function<bool()>& may_hedge,
                                                std::function<void(double)> first_took_ms) {
  return race_hedged(carrier_, clock_, [this](std::function<void()> work) { launch(std::move(work)); }, request, delay,
                     may_hedge, std::move(first_took_ms));
}

}  // namespace quote_lab
