#pragma once
// Hedged calls in a simulation: the race of resilience/overload/hedge_race.hpp with each call
// on a fiber of its own, waiting in simulated time. A loser runs on to its own end, as live.

#include "lab/resilience/overload/hedged_call.hpp"
#include "lab/simulation/sim_clock.hpp"

namespace quote_lab {

class SimHedgedCaller final : public HedgedCaller {
 public:
  /// `carrier`, `scheduler` and `clock` outlive this.
  SimHedgedCaller(CarrierCaller& carrier, SimScheduler& scheduler, SimClock& clock)
      : carrier_(carrier), scheduler_(scheduler), clock_(clock) {}

  /// From a fiber: HedgedCaller::call, in simulated time.
  Result call(const CarrierRequest& request, Millis delay, const std::function<bool()>& may_hedge,
              std::function<void(double)> first_took_ms) override;

 private:
  CarrierCaller& carrier_;
  SimScheduler& scheduler_;
  SimClock& clock_;
};

}  // namespace quote_lab
