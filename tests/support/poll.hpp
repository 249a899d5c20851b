#pragma once
// Waiting in tests: poll a condition until it holds or a deadline passes, never a fixed
// sleep. A fixed sleep is either too short on a busy machine (a flaky test) or too long
// everywhere else (a slow suite); a poll returns as soon as the condition holds.

#include <chrono>
#include <thread>

namespace quote_lab::testing {

/// Calls `condition` every `every` until it returns true or `limit` has passed; returns
/// its last answer (checked once more at the deadline, so a slow machine is not a failure
/// when the condition came true during the last interval).
template <typename Condition>
bool eventually(Condition condition, std::chrono::milliseconds limit,
                std::chrono::milliseconds every = std::chrono::milliseconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(every);
  }
  return condition();
}

}  // namespace quote_lab::testing
