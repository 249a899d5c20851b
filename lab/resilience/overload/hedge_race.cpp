#include "lab/resilience/overload/hedge_race.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <mutex>
#include <optional>

namespace quote_lab {
namespace {

// What the calls of one race share with its caller; the last call to end frees it.
struct Race {
  explicit Race(Clock& clock) : answered(clock.make_condition()) {}
  std::mutex mutex;
  std::unique_ptr<ClockCondition> answered;
  std::array<std::optional<CallOutcome>, 2> answers;  // [0] the first call, [1] the hedge
};

void start(CarrierCaller& carrier, const CallLauncher& launch, const std::shared_ptr<Race>& race, int slot,
           CarrierRequest request, std::function<void(double)> took_ms) {
  launch([&carrier, race, slot, request = std::move(request), took_ms = std::move(took_ms)] {
    CallOutcome outcome = carrier.call(request);
    if (took_ms) took_ms(outcome.elapsed_ms);
    std::lock_guard lock(race->mutex);
    race->answers[static_cast<std::size_t>(slot)] = std::move(outcome);
    race->answered->notify_one();  // one caller waits on a race
  });
}

// A wait for an answer has no deadline of its own (every call sent ends by its own timeout);
// this one only keeps the clocks' arithmetic finite.
constexpr std::chrono::hours kAnswerWaitBound{24};

}  // namespace

HedgedCaller::Result race_hedged(CarrierCaller& carrier, Clock& clock, const CallLauncher& launch,
                                 const CarrierRequest& request, Millis delay, const std::function<bool()>& may_hedge,
                                 std::function<void(double)> first_took_ms) {
  const SteadyTime started = clock.now();
  auto race = std::make_shared<Race>(clock);
  start(carrier, launch, race, 0, request, std::move(first_took_ms));
  HedgedCaller::Result result;
  std::unique_lock lock(race->mutex);
  auto decide = [&](int slot) {
    result.outcome = *race->answers[static_cast<std::size_t>(slot)];
    result.hedge_won = slot == 1;
    if (result.hedge_won) result.outcome.elapsed_ms += result.delay_ms;  // the attempt began with the first call
    return result;
  };
  const auto first_answered = [&] { return race->answers[0].has_value(); };
  if (race->answered->wait_until(lock, started + delay, {}, first_answered)) return decide(0);
  lock.unlock();
  const SteadyTime hedge_at = clock.now();
  result.delay_ms = elapsed_ms(started, hedge_at);
  if (!may_hedge()) {
    result.hedge_refused = true;
    lock.lock();
    race->answered->wait_until(lock, clock.now() + kAnswerWaitBound, {}, first_answered);
    return decide(0);
  }
  result.hedged = true;
  CarrierRequest hedge = request;
  // The attempt's timeout is the attempt's, whichever call answers: the hedge gets what is left.
  hedge.timeout = std::max(Millis(1), request.timeout - std::chrono::duration_cast<Millis>(hedge_at - started));
  start(carrier, launch, race, 1, std::move(hedge), {});
  lock.lock();
  const auto live = [&](int slot) {
    const auto& a = race->answers[static_cast<std::size_t>(slot)];
    return a && a->ok();
  };
  race->answered->wait_until(lock, clock.now() + kAnswerWaitBound, {},
                             [&] { return live(0) || live(1) || (race->answers[0] && race->answers[1]); });
  if (live(0)) return decide(0);
  if (live(1)) return decide(1);
  return decide(0);
}

}  // namespace quote_lab
