#pragma once
// The breaker several replicas share, behind the same Breaker interface as the local one:
// a decorator over this replica's CircuitBreaker. The store (shared_breaker_store.hpp)
// decides every admission and outcome; the local breaker follows each answer, so its
// listener (logs, metrics, events) and the state file see one breaker, shared or not.
//
// Round trips: a quote flow makes at most two (admission, outcome) — the outcome's answer is
// the snapshot the quote shows. An open local breaker short-circuits without asking the
// store until its cooldown ends, except for one seed a second (kOpenResyncEvery): an open
// breaker here opens the store's again if Redis came back empty or closed. Whenever the store cannot answer (down, paused, slow), the
// local breaker decides alone (fail-soft, ADR-0005); after the store (re)connects it is
// seeded from this replica once, and a store that already has state keeps its own.

#include <cstdint>
#include <mutex>
#include <optional>
#include <string_view>

#include "lab/resilience/breaker.hpp"
#include "lab/resilience/circuit_breaker.hpp"
#include "lab/shared_state/shared_breaker_store.hpp"

namespace quote_lab {

class ReplicatedBreaker final : public Breaker {
 public:
  /// `local`, `store` and `clock` are not owned and outlive this breaker. Nothing is read
  /// from the store until join() or the first call.
  ReplicatedBreaker(CircuitBreaker& local, SharedBreakerStore& store, const Clock& clock);

  /// While the local breaker is open, how often a short circuit tells the store so (one
  /// seed): a replica that stopped asking the store cannot otherwise notice that Redis
  /// restarted empty meanwhile.
  static constexpr Millis kOpenResyncEvery{1000};

  /// Seeds an empty store from the local breaker, then takes the store's state: a replica
  /// that (re)starts follows the others at once, even over an open breaker restored from
  /// its own file. Call once the local breaker has been restored.
  void join();
  /// join() when the store (re)connected since this replica last seeded it, else nothing
  /// (no round trip): run often, so that a Redis that came back empty takes a breaker open
  /// here even when no quote or view reaches this replica.
  void rejoin_if_reconnected();

  Admission try_acquire() override;
  BreakerRecord record(const BreakerPermit& permit, bool failure, std::string_view outcome,
                       double latency_ms) override;
  /// Reads the store unless the local breaker is open (then nothing can have changed it
  /// before the cooldown ends but a reset).
  BreakerSnapshot snapshot() override;
  /// Clears the shared state and the local breaker.
  void reset() override;

 private:
  // Seeds the store from the local breaker when the store reconnected since the last seed
  // (its epoch changed) or is away (the seed's call is then what reconnects it, when due).
  // Returns whether it seeded the store now.
  bool resync(bool even_if_synced = false);
  // True at most once per kOpenResyncEvery.
  bool open_resync_due();
  // Follows `decided` unless an answer with a newer generation was followed already
  // (concurrent round trips answer out of order). Returns the local generation.
  std::uint64_t follow(const SharedBreakerState& decided);

  CircuitBreaker& local_;
  SharedBreakerStore& store_;
  std::mutex mutex_;  // orders follow(); guards the two below
  std::uint64_t synced_epoch_ = 0;        // the store's epoch this replica last seeded
  std::uint64_t followed_generation_ = 0; // the newest store generation followed
  SteadyTime next_open_resync_{};         // see kOpenResyncEvery
  const Clock& clock_;
};

}  // namespace quote_lab
