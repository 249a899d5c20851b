#include "lab/resilience/overload/hedge_budget.hpp"

#include <stdexcept>

namespace quote_lab {

namespace {

HedgeBudgetSettings validated(HedgeBudgetSettings s) {
  if (!(s.share >= 0.0 && s.share <= 1.0)) throw std::invalid_argument("hedge budget: share must be 0–1");
  if (s.min_per_s < 0) throw std::invalid_argument("hedge budget: min_per_s must be ≥ 0");
  return s;
}

}  // namespace

HedgeBudget::HedgeBudget(Clock& clock, HedgeBudgetSettings settings) : settings_(validated(settings)), budget_(clock) {}

void HedgeBudget::on_request() { budget_.deposit(); }

bool HedgeBudget::try_hedge() {
  if (budget_.try_withdraw(settings_.share, settings_.min_per_s)) return true;
  refused_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

void HedgeBudget::reset() {
  budget_.reset();
  refused_.store(0, std::memory_order_relaxed);
}

HedgeBudgetStats HedgeBudget::stats() const {
  const RetryBudget::Counts c = budget_.window();
  const double budget = settings_.share * static_cast<double>(c.requests) + settings_.min_per_s * kWindowS;
  return {c.requests, c.retries, refused_.load(std::memory_order_relaxed), budget};
}

}  // namespace quote_lab
