#include "lab/shared_state/reconnect_schedule.hpp"

#include "lab/resilience/backoff.hpp"

namespace quote_lab {

Millis ReconnectSchedule::delay(int failures, double u) const {
  RetryPolicy p;
  p.backoff_base_ms = base_ms;
  p.backoff_max_ms = max_ms;
  p.jitter = Jitter::equal;
  return backoff_delay(p, failures, u);
}

}  // namespace quote_lab
