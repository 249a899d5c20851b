#pragma once
// The race of one hedged attempt (hedged_call.hpp's rules), whatever runs its calls: the lab
// launches each on a thread of its own (carrier/threaded_hedged_caller.hpp), a simulation on
// a fiber of its own (simulation/sim_hedged_caller.hpp). The caller waits on its clock's
// condition (Clock::make_condition), so the race runs in real time live and in simulated time
// in a simulation, by the same rules.

#include <functional>

#include "lab/base/clock.hpp"
#include "lab/resilience/carrier_call.hpp"
#include "lab/resilience/overload/hedged_call.hpp"

namespace quote_lab {

/// Starts `work` apart from its caller and returns at once.
using CallLauncher = std::function<void(std::function<void()> work)>;

/// One hedged attempt (HedgedCaller::call): `request` goes to `carrier` through `launch`; after
/// `delay` without an answer, `may_hedge()` is asked and, if true, a second call goes with the
/// time left of the request's timeout. Returns the first live answer, or when every call sent
/// has ended the first call's. A loser is abandoned, not stopped: it runs to its own end and
/// its answer is dropped (the carrier served it all the same). `first_took_ms` (may be empty)
/// is told how long the first call took when it ends. `carrier` and `clock` outlive every call
/// launched.
HedgedCaller::Result race_hedged(CarrierCaller& carrier, Clock& clock, const CallLauncher& launch,
                                 const CarrierRequest& request, Millis delay, const std::function<bool()>& may_hedge,
                                 std::function<void(double)> first_took_ms);

}  // namespace quote_lab
