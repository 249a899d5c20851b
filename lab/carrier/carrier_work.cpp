#include "lab/carrier/carrier_work.hpp"

#include <algorithm>

namespace quote_lab {

CarrierWork plan_work(const CarrierCall& call, std::optional<long long> attempt_deadline_ms,
                      std::optional<long long> request_deadline_ms, long long now_ms) {
  using Kind = AttemptBehaviour::Kind;
  CarrierWork work{call.delay, false};
  if (call.behaviour.kind == Kind::timeout && attempt_deadline_ms) {
    // "Hangs until the caller gives up": hold the connection until the caller's deadline
    // (plus a little, so the caller's own timeout fires first), not a fixed time that
    // would keep carrier workers busy long after every caller has left.
    work.delay = std::clamp(Millis(*attempt_deadline_ms - now_ms + kHangGraceMs), Millis::zero(), call.delay);
  }
  if (request_deadline_ms && Millis(*request_deadline_ms - now_ms) < work.delay) {
    work.delay = std::max(Millis::zero(), Millis(*request_deadline_ms - now_ms));
    work.dropped = true;
  }
  return work;
}

bool books_quote(const AttemptBehaviour& b) {
  using Kind = AttemptBehaviour::Kind;
  return b.kind != Kind::timeout && !(b.kind == Kind::answer && b.status != 200) && b.kind != Kind::malformed;
}

long long unix_ms(WallTime t) { return std::chrono::duration_cast<Millis>(t.time_since_epoch()).count(); }

}  // namespace quote_lab
