#pragma once
// Where replicas keep one breaker: the interface the Redis store implements
// (redis_breaker_store.hpp) and the replicated breaker asks (replicated_breaker.hpp). The
// store decides every transition atomically on the server with the server's clock; each
// replica's local CircuitBreaker follows what it answers (SharedBreakerState,
// circuit_breaker.hpp).
// Standard library and the breaker's vocabulary only.

#include <cstdint>
#include <optional>

#include "lab/resilience/circuit_breaker.hpp"

namespace quote_lab {

/// The store's answer to "may I call?".
enum class SharedVerdict {
  call,        ///< closed: call
  probe,       ///< half-open and this caller holds the one probe permit of all replicas
  open,        ///< open: refuse (circuit_open)
  probe_busy,  ///< half-open and another caller (any replica) holds the probe
};

struct SharedAdmission {
  SharedVerdict verdict = SharedVerdict::call;
  SharedBreakerState state;  ///< after the admission (a probe grant bumps the generation)
};

struct SharedRecord {
  bool opened_now = false;   ///< this outcome opened (or reopened) the shared breaker
  SharedBreakerState state;  ///< after the outcome
};

/// Where replicas keep one breaker. Every call is one atomic step on the store and
/// returns nullopt when the store cannot answer in time (down, slow, restarting): the
/// caller then decides locally. Implementations are thread-safe and never throw.
class SharedBreakerStore {
 public:
  virtual ~SharedBreakerStore() = default;
  /// Admission: open → half_open once the cooldown has passed; in half-open only one
  /// caller across all replicas gets the probe (freed by its outcome, or after one cooldown
  /// if its caller died).
  virtual std::optional<SharedAdmission> acquire() = 0;
  /// The outcome of a call admitted with `generation` (ignored when stale). `probe`: the
  /// call held the probe permit; `failure`: a carrier failure.
  virtual std::optional<SharedRecord> record(std::uint64_t generation, bool probe, bool failure) = 0;
  /// The state now, changing nothing.
  virtual std::optional<SharedBreakerState> peek() = 0;
  /// Resyncs the store from a replica after a (re)connect: an empty store takes `local`; a
  /// store that has state keeps it, unless `local` is open with cooldown left and the store
  /// is not open — then the store opens for that cooldown (a breaker open on any replica is
  /// open for all again). False if unreachable.
  virtual bool seed(const SharedBreakerState& local) = 0;
  /// Forgets the shared state (the lab's reset). Best effort.
  virtual void reset() = 0;
  /// Changes whenever the store has (re)connected: the breaker seeds it again then.
  virtual std::uint64_t epoch() const = 0;
  /// False since the store last failed, until it answers again (no round trip).
  virtual bool healthy() const = 0;
};

}  // namespace quote_lab
