#pragma once
// How long the carrier works on one call and whether that work books a quote: the rules the
// carrier's HTTP server (carrier_server.cpp) and the simulation (simulation/sim_carrier.cpp)
// both play, so a call lasts as long in simulated time as on a real carrier thread.

#include <optional>

#include "lab/base/clock.hpp"
#include "lab/carrier/carrier_simulator.hpp"

namespace quote_lab {

/// How long a hung call outlives its caller's deadline: enough for the caller's own
/// timeout to fire first, short enough that the carrier recovers right after a storm. On a
/// loaded 2-core classroom machine the lab's timeout fired up to 140 ms late, and with 50 ms
/// one attempt in 20 of a provider_down lesson ended as the carrier's 504 (http_5xx) instead
/// of the timeout the lesson teaches.
inline constexpr long long kHangGraceMs = 250;

/// The carrier's work on one call, decided as it starts (after any wait at a station).
struct CarrierWork {
  Millis delay{0};       ///< how long the call holds a carrier worker
  bool dropped = false;  ///< cut at the flow's total deadline: it books nothing and answers 504
};

/// The work of `call` at `now_ms` (Unix ms). `attempt_deadline_ms`: the caller's deadline for
/// this attempt (X-Deadline-Unix-Ms); a hung call holds on until it plus kHangGraceMs, never
/// longer than its own hang time. `request_deadline_ms`: the flow's total deadline
/// (X-Request-Deadline-Unix-Ms); work that would outlive it stops at it and is dropped.
CarrierWork plan_work(const CarrierCall& call, std::optional<long long> attempt_deadline_ms,
                      std::optional<long long> request_deadline_ms, long long now_ms);

/// Whether a call whose work ran to its end books (prices) a quote: a 200 answer, a truncated,
/// sliced or reset answer of a priced quote; not a hang, another status or a malformed page.
bool books_quote(const AttemptBehaviour& b);

/// Unix milliseconds of `t`.
long long unix_ms(WallTime t);

}  // namespace quote_lab
