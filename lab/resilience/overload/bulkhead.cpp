#include "lab/resilience/overload/bulkhead.hpp"

#include <stdexcept>
#include <utility>

namespace quote_lab {

namespace {

BulkheadSettings validated(BulkheadSettings s) {
  if (s.max_concurrent < 1) throw std::invalid_argument("bulkhead: max_concurrent must be ≥ 1");
  if (s.max_queued < 0) throw std::invalid_argument("bulkhead: max_queued must be ≥ 0");
  return s;
}

}  // namespace

BulkheadPermit::BulkheadPermit(BulkheadPermit&& other) noexcept : owner_(std::exchange(other.owner_, nullptr)) {}

BulkheadPermit& BulkheadPermit::operator=(BulkheadPermit&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = std::exchange(other.owner_, nullptr);
  }
  return *this;
}

void BulkheadPermit::release() {
  if (owner_ != nullptr) std::exchange(owner_, nullptr)->leave();
}

Bulkhead::Bulkhead(BulkheadSettings settings, Clock& clock)
    : settings_(validated(settings)), clock_(clock), slot_freed_(clock.make_condition()) {}

BulkheadEntry Bulkhead::enter(Millis max_wait, std::stop_token stop) {
  std::unique_lock lock(mutex_);
  if (stats_.active < settings_.max_concurrent && stats_.queued == 0) {
    ++stats_.active;
    ++stats_.admitted;
    return {BulkheadPermit(this), BulkheadRefusal::none};
  }
  if (stats_.queued >= settings_.max_queued) {
    ++stats_.refused_full;
    return {std::nullopt, BulkheadRefusal::full};
  }
  ++stats_.queued;
  const bool got_slot = slot_freed_->wait_until(lock, clock_.now() + max_wait, stop,
                                                 [this] { return stats_.active < settings_.max_concurrent; });
  --stats_.queued;
  if (got_slot) {
    ++stats_.active;
    ++stats_.admitted;
    ++stats_.admitted_after_wait;
    return {BulkheadPermit(this), BulkheadRefusal::none};
  }
  // Another waiter may take the slot this one did not.
  if (stats_.queued > 0 && stats_.active < settings_.max_concurrent) slot_freed_->notify_one();
  if (stop.stop_requested()) {
    ++stats_.stopped;
    return {std::nullopt, BulkheadRefusal::stopped};
  }
  ++stats_.timed_out;
  return {std::nullopt, BulkheadRefusal::wait_timed_out};
}

void Bulkhead::leave() {
  {
    std::lock_guard lock(mutex_);
    --stats_.active;
    if (stats_.queued == 0) return;
  }
  slot_freed_->notify_one();
}

BulkheadStats Bulkhead::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace quote_lab
