#include "lab/carrier/booking_ledger.hpp"

namespace quote_lab {

void BookingLedger::forget_old(SteadyTime now) {
  while (!key_order_.empty()) {
    const auto it = by_key_.find(key_order_.front());
    if (it != by_key_.end() && key_order_.size() <= kMaxKeys && now - it->second.at < kIdempotencyTtl) break;
    if (it != by_key_.end()) by_key_.erase(it);
    key_order_.pop_front();
  }
  while (trace_order_.size() > kMaxKeys) {
    by_trace_.erase(trace_order_.front());
    trace_order_.pop_front();
  }
}

std::optional<Quote> BookingLedger::replay(std::string_view idempotency_key, SteadyTime now) {
  forget_old(now);
  if (idempotency_key.empty()) return std::nullopt;
  const auto it = by_key_.find(std::string(idempotency_key));
  if (it == by_key_.end()) return std::nullopt;
  ++replays_;
  return it->second.quote;
}

bool BookingLedger::book(const Quote& quote, std::string_view trace_id, std::string_view idempotency_key,
                         SteadyTime now) {
  ++bookings_;
  if (!idempotency_key.empty()) {
    const auto [it, inserted] = by_key_.try_emplace(std::string(idempotency_key), Kept{quote, now});
    if (inserted) key_order_.push_back(it->first);
  }
  bool duplicate = false;
  if (!trace_id.empty()) {
    const auto [it, inserted] = by_trace_.try_emplace(std::string(trace_id), 0);
    if (inserted) trace_order_.push_back(it->first);
    duplicate = ++it->second > 1;
  }
  duplicates_ += duplicate;
  forget_old(now);
  return duplicate;
}

void BookingLedger::clear() {
  by_key_.clear();
  key_order_.clear();
  by_trace_.clear();
  trace_order_.clear();
  bookings_ = duplicates_ = replays_ = 0;
}

}  // namespace quote_lab
