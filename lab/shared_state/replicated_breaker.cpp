#include "lab/shared_state/replicated_breaker.hpp"

#include <chrono>

namespace quote_lab {

ReplicatedBreaker::ReplicatedBreaker(CircuitBreaker& local, SharedBreakerStore& store, const Clock& clock)
    : local_(local), store_(store), clock_(clock) {}

bool ReplicatedBreaker::open_resync_due() {
  const SteadyTime now = clock_.now();
  std::lock_guard lock(mutex_);
  if (now < next_open_resync_) return false;
  next_open_resync_ = now + kOpenResyncEvery;
  return true;
}

bool ReplicatedBreaker::resync(bool even_if_synced) {
  {
    std::lock_guard lock(mutex_);
    if (!even_if_synced && store_.epoch() == synced_epoch_ && store_.healthy()) return false;
  }
  const BreakerSnapshot now = local_.snapshot();
  const SharedBreakerState seed{.state = now.state,
                                .consecutive_failures = now.consecutive_failures,
                                .cooldown_left_ms = now.cooldown_left_ms,
                                .open_events = now.open_events};
  // Through the pool: the caller due to reconnect does so here, bounded by the client's timeout;
  // the others are told at once that the store is still away.
  if (!store_.seed(seed)) return false;  // unreachable: try again on the next call
  std::lock_guard lock(mutex_);
  synced_epoch_ = store_.epoch();  // after the seed, which may have reconnected
  followed_generation_ = 0;  // a restarted store counts generations from 1 again
  return true;
}

std::uint64_t ReplicatedBreaker::follow(const SharedBreakerState& decided) {
  // Held while the local breaker follows, so two answers are followed in generation order.
  std::lock_guard lock(mutex_);
  if (decided.generation < followed_generation_) return local_.generation();
  followed_generation_ = decided.generation;
  return local_.follow(decided);
}

void ReplicatedBreaker::join() {
  resync();
  if (const auto decided = store_.peek()) follow(*decided);
}

void ReplicatedBreaker::rejoin_if_reconnected() {
  if (!resync()) return;
  if (const auto decided = store_.peek()) follow(*decided);
}

Admission ReplicatedBreaker::try_acquire() {
  // An open local breaker refuses without a round trip until its cooldown ends, except to
  // tell a store that came back (empty, or closed) that it is open here: at once after a
  // failure this replica saw, and once a second for one it could not see.
  if (local_.state() == BreakerState::open) {
    resync(open_resync_due());
    return local_.try_acquire();
  }
  resync();
  const auto shared = store_.acquire();
  if (!shared) return local_.try_acquire();  // fail-soft: the local breaker decides
  const std::uint64_t generation = follow(shared->state);
  Admission admission;
  switch (shared->verdict) {
    case SharedVerdict::call:
    case SharedVerdict::probe:
      admission.permit = BreakerPermit{generation, shared->verdict == SharedVerdict::probe, shared->state.generation};
      break;
    case SharedVerdict::open:
      admission.refusal = Reason::circuit_open;
      break;
    case SharedVerdict::probe_busy:
      admission.refusal = Reason::probe_in_flight;
      break;
  }
  admission.refused = !admission.permit;
  if (admission.refused) local_.count_short_circuit();
  return admission;
}

BreakerRecord ReplicatedBreaker::record(const BreakerPermit& permit, bool failure, std::string_view outcome,
                                        double latency_ms) {
  // A permit the store never gave (it was down at admission) is the local breaker's alone;
  // so is an outcome the store cannot take now.
  if (!permit.shared_generation) return local_.record(permit, failure, outcome, latency_ms);
  const auto shared = store_.record(*permit.shared_generation, permit.probe, failure);
  if (!shared) return local_.record(permit, failure, outcome, latency_ms);
  local_.show_outcome(outcome, latency_ms);
  follow(shared->state);
  BreakerRecord result;
  result.snapshot = local_.snapshot();
  result.state = result.snapshot.state;
  result.opened_now = shared->opened_now;
  return result;
}

BreakerSnapshot ReplicatedBreaker::snapshot() {
  if (local_.state() != BreakerState::open) join();
  return local_.snapshot();
}

void ReplicatedBreaker::reset() {
  store_.reset();
  local_.reset();
}

}  // namespace quote_lab
