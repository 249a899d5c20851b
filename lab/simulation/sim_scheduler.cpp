#include "lab/simulation/sim_scheduler.hpp"

#include <stdexcept>
#include <string>

namespace quote_lab {

SimScheduler::~SimScheduler() {
  // A fiber still suspended owns objects on its stack that would never be destroyed; run()
  // refuses to end that way, so only a run cut by an exception gets here with some.
  for (auto& s : slots_)
    if (!s.free && s.fiber && !s.fiber->ended()) s.fiber.release();  // leaked on purpose: unmapping would be worse
}

void SimScheduler::push(SteadyTime at, std::size_t slot, std::uint64_t wait, bool woken) {
  events_.push(Event{at, next_order_++, slot, wait, woken});
}

SimScheduler::Slot& SimScheduler::current_slot() {
  if (!current_) throw std::logic_error("simulation: a wait outside the scheduler's fibers");
  return slots_[*current_];
}

void SimScheduler::spawn(std::function<void()> body) {
  std::size_t slot = 0;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
    slots_[slot].fiber->reset(std::move(body));
  } else {
    slot = slots_.size();
    slots_.push_back(Slot{std::make_unique<Fiber>(std::move(body))});
  }
  slots_[slot].free = false;
  ++live_;
  push(now_, slot, slots_[slot].wait, false);
}

SimScheduler::Waker SimScheduler::waker() const {
  if (!current_) throw std::logic_error("simulation: a wait outside the scheduler's fibers");
  return {*current_, slots_[*current_].wait};
}

bool SimScheduler::park_until(std::optional<SteadyTime> deadline) {
  Slot& s = current_slot();
  if (deadline) push(std::max(*deadline, now_), *current_, s.wait, false);
  Fiber& fiber = *s.fiber;
  fiber.suspend();
  return current_slot().woken;
}

bool SimScheduler::wake(const Waker& w) {
  if (w.slot >= slots_.size() || slots_[w.slot].free || slots_[w.slot].wait != w.wait) return false;
  push(now_, w.slot, w.wait, true);
  return true;
}

void SimScheduler::run() {
  if (current_) throw std::logic_error("simulation: run() from inside a fiber");
  while (!events_.empty()) {
    const Event e = events_.top();
    events_.pop();
    Slot& s = slots_[e.slot];
    if (s.free || s.wait != e.wait) continue;  // that wait ended another way
    ++s.wait;
    s.woken = e.woken;
    now_ = e.at;
    current_ = e.slot;
    try {
      s.fiber->resume();
    } catch (...) {
      current_.reset();
      --live_;
      slots_[e.slot].free = true;
      throw;
    }
    current_.reset();
    Slot& after = slots_[e.slot];  // spawn() may have grown the vector
    if (after.fiber->ended()) {
      after.free = true;
      ++after.wait;  // events still queued for it are stale
      free_slots_.push_back(e.slot);
      --live_;
    }
  }
  if (live_ > 0)
    throw std::logic_error("simulation: " + std::to_string(live_) + " fibers wait with nothing to wake them");
}

}  // namespace quote_lab
