#include "lab/carrier/threaded_hedged_caller.hpp"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <optional>

namespace quote_lab {

struct ThreadedHedgedCaller::Race {
  std::mutex mutex;
  std::condition_variable answered;
  std::array<std::optional<CallOutcome>, 2> answers;  // [0] the first call, [1] the hedge
  bool decided = false;  // the caller has its answer: what is still running is abandoned
};

ThreadedHedgedCaller::~ThreadedHedgedCaller() {
  std::lock_guard lock(mutex_);
  for (Running& r : calls_) r.thread.join();
}

void ThreadedHedgedCaller::reap_locked() {
  for (auto it = calls_.begin(); it != calls_.end();) {
    bool done = false;
    {
      std::lock_guard race(it->race->mutex);
      done = it->race->answers[static_cast<std::size_t>(it->slot)].has_value();
    }
    if (!done) {
      ++it;
      continue;
    }
    it->thread.join();  // its answer is in: the thread is ending
    it = calls_.erase(it);
  }
}

void ThreadedHedgedCaller::launch(std::shared_ptr<Race> race, int slot, CarrierRequest request,
                          std::function<void(double)> took_ms) {
  std::lock_guard lock(mutex_);
  reap_locked();
  calls_.push_back({std::thread([this, race, slot, request = std::move(request), took_ms = std::move(took_ms)] {
                      CallOutcome outcome = carrier_.call(request);
                      if (took_ms) took_ms(outcome.elapsed_ms);
                      std::lock_guard l(race->mutex);
                      race->answers[static_cast<std::size_t>(slot)] = std::move(outcome);
                      race->answered.notify_all();
                    }),
                    race, slot});
}

std::size_t ThreadedHedgedCaller::abandoned() const {
  std::lock_guard lock(mutex_);
  return static_cast<std::size_t>(std::count_if(calls_.begin(), calls_.end(), [](const Running& r) {
    std::lock_guard race(r.race->mutex);
    return r.race->decided && !r.race->answers[static_cast<std::size_t>(r.slot)];
  }));
}

HedgedCaller::Result ThreadedHedgedCaller::call(const CarrierRequest& request, Millis delay,
                                        const std::function<bool()>& may_hedge,
                                        std::function<void(double)> first_took_ms) {
  const auto started = std::chrono::steady_clock::now();
  auto race = std::make_shared<Race>();
  launch(race, 0, request, std::move(first_took_ms));
  Result result;
  std::unique_lock lock(race->mutex);
  auto decide = [&](int slot) {
    result.outcome = *race->answers[static_cast<std::size_t>(slot)];
    result.hedge_won = slot == 1;
    if (result.hedge_won) result.outcome.elapsed_ms += result.delay_ms;  // the attempt began with the first call
    race->decided = true;
    return result;
  };
  if (race->answered.wait_for(lock, delay, [&] { return race->answers[0].has_value(); })) return decide(0);
  lock.unlock();
  const auto waited = std::chrono::steady_clock::now() - started;
  result.delay_ms = std::chrono::duration<double, std::milli>(waited).count();
  if (!may_hedge()) {
    result.hedge_refused = true;
    lock.lock();
    race->answered.wait(lock, [&] { return race->answers[0].has_value(); });
    return decide(0);
  }
  result.hedged = true;
  CarrierRequest hedge = request;
  // The attempt's timeout is the attempt's, whichever call answers: the hedge gets what is left.
  hedge.timeout = std::max(Millis(1), request.timeout - std::chrono::duration_cast<Millis>(waited));
  launch(race, 1, std::move(hedge), {});
  lock.lock();
  const auto live = [&](int slot) {
    const auto& a = race->answers[static_cast<std::size_t>(slot)];
    return a && a->ok();
  };
  race->answered.wait(lock, [&] { return live(0) || live(1) || (race->answers[0] && race->answers[1]); });
  if (live(0)) return decide(0);
  if (live(1)) return decide(1);
  return decide(0);
}

}  // namespace quote_lab
