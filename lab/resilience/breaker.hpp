#pragma once
// What the quote flow asks of a circuit breaker (SPEC.md, "Breaker semantics"): may I call
// (`try_acquire`), how did it go (`record`), what does it look like (`snapshot`), start again
// (`reset`) — as sony/gobreaker splits beforeRequest from afterRequest. The executor, the
// lab's views and the state file see only this, whether the breaker is the local state
// machine (circuit_breaker.hpp) or one several replicas share.
// Standard library, clock and vocabulary only.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lab/base/clock.hpp"
#include "lab/resilience/vocabulary.hpp"

namespace quote_lab {

enum class BreakerState { closed, open, half_open };

/// "closed", "open" or "half_open".
std::string_view to_string(BreakerState s);
/// Parses the names above; false if unknown.
bool parse_breaker_state(std::string_view text, BreakerState& out);

/// One state change, as told to the listener.
struct BreakerTransition {
  std::string upstream;
  BreakerState from;
  BreakerState to;
  int consecutive_failures;  ///< at the moment of the change
  WallTime at;               ///< when it happened: for open → half_open, when the cooldown ended
  std::uint64_t generation;  ///< the generation this change started; grows with every change
};

/// Leave to make one call to the upstream. `probe` is true for the single half-open probe.
struct BreakerPermit {
  std::uint64_t generation;
  bool probe;
  /// Set when the shared store admitted the call: its generation, to record the outcome there.
  std::optional<std::uint64_t> shared_generation = std::nullopt;
};

/// The breaker's answer to "may I call?": a permit, or why not, decided under one lock
/// (as gobreaker's beforeRequest returns the generation or ErrOpenState /
/// ErrTooManyRequests), so the reason given always matches the decision taken.
struct Admission {
  std::optional<BreakerPermit> permit;    ///< the breaker's leave: record the call's outcome with it
  bool refused = false;                   ///< no call may be made
  Reason refusal = Reason::circuit_open;  ///< when refused: circuit_open, or probe_in_flight
                                          ///< (half-open and another caller holds the probe)

  bool admitted() const { return !refused; }
  /// A call that no breaker guards (a policy without one): admitted, with no permit to record.
  static Admission unguarded() { return {}; }
};

/// What a caller and the persisted state see of a breaker at one instant.
struct BreakerSnapshot {
  std::string name;
  BreakerState state = BreakerState::closed;
  int consecutive_failures = 0;
  std::optional<WallTime> opened_until;  ///< wall clock; set while open or half-open
  std::int64_t cooldown_left_ms = 0;     ///< 0 unless open
  std::uint64_t open_events = 0;         ///< times it has opened
  std::uint64_t short_circuit_count = 0; ///< calls refused
  std::string last_outcome;              ///< "success", "timeout", ... or "" before any call
  std::optional<double> last_latency_ms; ///< of the last recorded call
};

/// What recording one call did.
struct BreakerRecord {
  BreakerState state = BreakerState::closed;  ///< the state after recording
  bool opened_now = false;  ///< this call's failure opened (or reopened) the breaker
  /// The breaker as this record left it: what the answer shows, with no second read (for a
  /// breaker shared by replicas, no further round trip).
  BreakerSnapshot snapshot;
};

/// A circuit breaker as the quote flow uses it. Implementations are thread-safe.
class Breaker {
 public:
  virtual ~Breaker() = default;

  /// A permit if a call may go to the upstream now: always when closed, only the first
  /// caller when half-open (others are refused with probe_in_flight until the probe is
  /// recorded), never when open (refused with circuit_open). A refusal counts as a short
  /// circuit and does not extend the cooldown.
  virtual Admission try_acquire() = 0;

  /// Records how a permitted call went. `failure` is true for a carrier failure (timeout,
  /// connection error, 5xx, 429); a 4xx or a cancelled call should not be recorded at
  /// all. Stale permits are ignored (their latency is still shown as the last outcome).
  virtual BreakerRecord record(const BreakerPermit& permit, bool failure, std::string_view outcome,
                               double latency_ms) = 0;

  /// The state now; an open breaker whose cooldown has passed reports half_open.
  virtual BreakerSnapshot snapshot() = 0;

  /// Back to closed with every counter at zero (the lab's reset).
  virtual void reset() = 0;
};

}  // namespace quote_lab
