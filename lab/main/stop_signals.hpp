#pragma once
// How `quote-lab serve` and `quote-lab carrier` stop. SIGINT and SIGTERM are blocked in
// every thread and taken synchronously (sigwait), so no lab code runs in a signal handler
// and a signal that arrives while the lab is still starting stays pending instead of
// being lost. The first signal starts a graceful stop; a second one, while that stop is
// still waiting for something, ends the process at once.

#include <signal.h>

#include <functional>
#include <string>

namespace quote_lab {

class StopSignals {
 public:
  /// Blocks SIGINT and SIGTERM in the calling thread and in every thread it starts later
  /// (construct it before any thread starts), and ignores SIGPIPE: a client that hangs up
  /// must not kill the lab.
  StopSignals();

  /// Waits for SIGINT or SIGTERM (one already pending returns at once); returns its number.
  int wait() const;

  /// Runs `graceful` on a thread of its own and returns when it has returned (rethrowing
  /// what it threw). If SIGINT or SIGTERM arrives meanwhile, runs `urgent` on the calling
  /// thread — a last attempt that must not wait for anything `graceful` may hold — and
  /// ends the process at once with status 128 + the signal's number (130 for Ctrl-C,
  /// 143 for SIGTERM), running no destructor.
  void run_graceful(const std::function<void()>& graceful, const std::function<void(int signal)>& urgent) const;

 private:
  sigset_t set_;
};

/// "SIGINT (Ctrl-C)", "SIGTERM", or "signal N", for the log.
std::string signal_name(int signal);

}  // namespace quote_lab
