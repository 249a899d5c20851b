#pragma once
// The carrier's bookings: what makes a retry safe or costly. A priced quote is a booking.
// Like Stripe's Idempotency-Key, the carrier keeps the booking made under each key for a
// while (kIdempotencyTtl, at most kMaxKeys, oldest forgotten first) and replays it to a
// later call with the same key instead of booking twice — whichever of two concurrent
// calls with one key finishes first books, the other replays. It also counts bookings per
// logical quote (trace id): every booking of a trace after its first is a duplicate (what a
// policy without keys, or with a new key per attempt, costs when a slow attempt succeeds
// after its caller gave up and the retry booked too). Not thread-safe: its owner
// (CarrierSimulator) holds its mutex around every call.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "lab/base/clock.hpp"
#include "lab/resilience/quote.hpp"

namespace quote_lab {

class BookingLedger {
 public:
  static constexpr std::size_t kMaxKeys = 20000;
  static constexpr Millis kIdempotencyTtl = std::chrono::minutes(10);

  /// The booking stored under `idempotency_key` at `now`, if any and not expired.
  std::optional<Quote> replay(std::string_view idempotency_key, SteadyTime now);

  /// Records a new booking of `trace_id` (may be empty: not counted per quote) under
  /// `idempotency_key` (may be empty: nothing kept to replay). Returns true when it is a
  /// duplicate: the trace had been booked before.
  bool book(const Quote& quote, std::string_view trace_id, std::string_view idempotency_key, SteadyTime now);

  std::uint64_t bookings() const { return bookings_; }
  std::uint64_t duplicates() const { return duplicates_; }
  std::uint64_t replays() const { return replays_; }
  void clear();

 private:
  void forget_old(SteadyTime now);

  struct Kept {
    Quote quote;
    SteadyTime at;
  };
  std::unordered_map<std::string, Kept> by_key_;
  std::deque<std::string> key_order_;  // FIFO of by_key_
  std::unordered_map<std::string, int> by_trace_;
  std::deque<std::string> trace_order_;  // FIFO of by_trace_
  std::uint64_t bookings_ = 0;
  std::uint64_t duplicates_ = 0;
  std::uint64_t replays_ = 0;
};

}  // namespace quote_lab
