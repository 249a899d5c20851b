#include "lab/simulation/sim_hedged_caller.hpp"

#include "lab/resilience/overload/hedge_race.hpp"

namespace quote_lab {

HedgedCaller::Result SimHedgedCaller::call(const CarrierRequest& request, Millis delay,
                                           const std::function<bool()>& may_hedge,
                                           std::function<void(double)> first_took_ms) {
  return race_hedged(carrier_, clock_, [this](std::function<void()> work) { scheduler_.spawn(std::move(work)); },
                     request, delay, may_hedge, std::move(first_took_ms));
}

}  // namespace quote_lab
