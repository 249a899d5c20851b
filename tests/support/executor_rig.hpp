#pragma once
// One quote executor on a fake clock with a scripted carrier (or a carrier of the test's own)
// and the course's policies: the rig the executor's tests share. FixedRandom 0.5 makes
// resilient's jitter 15 + floor(0.5 x 31) = 30 ms, so its first backoff is exactly 110 ms.
// Each test file adds its own run().

#include <string>
#include <type_traits>
#include <vector>

#include "lab/resilience/circuit_breaker.hpp"
#include "lab/resilience/quote_executor.hpp"
#include "support/fixed_random.hpp"
#include "support/scripted_carrier.hpp"

namespace quote_lab::testing {

/// A `Carrier` for a rig: built on the rig's fake clock when it takes one (ScriptedCarrier
/// advances it by each call), else by default.
template <class Carrier>
Carrier carrier_on(FakeClock& clock) {
  if constexpr (std::is_constructible_v<Carrier, FakeClock&>) return Carrier(clock);
  else return Carrier();
}

/// The executor, its breaker (the course's), fallback cache and random draw around `Carrier`.
template <class Carrier>
struct ExecutorRigWith {
  FakeClock clock;
  Carrier carrier = carrier_on<Carrier>(clock);
  Policies policies = default_policies();
  CircuitBreaker breaker{"carrier", policies.breaker, clock};
  FallbackCache cache{clock};
  FixedRandom random{0.5};
  QuoteExecutor executor{carrier, breaker, cache, clock, random};
};

using ExecutorRig = ExecutorRigWith<ScriptedCarrier>;

/// The step names of a trace, in order.
inline std::vector<std::string> event_names(const QuoteTrace& t) {
  std::vector<std::string> names;
  for (const auto& e : t.events) names.emplace_back(to_string(e.step));
  return names;
}

}  // namespace quote_lab::testing
