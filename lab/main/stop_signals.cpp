#include "lab/main/stop_signals.hpp"

#include <pthread.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <thread>

namespace quote_lab {

StopSignals::StopSignals() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

int StopSignals::wait() const {
  int sig = 0;
  while (sigwait(&set_, &sig) != 0) {
  }
  return sig;
}

void StopSignals::run_graceful(const std::function<void()>& graceful,
                               const std::function<void(int)>& urgent) const {
  std::atomic<bool> done{false};
  std::exception_ptr failure;
  std::thread worker([&] {
    try {
      graceful();
    } catch (...) {
      failure = std::current_exception();
    }
    done = true;
  });
  // Waits for a second signal in short slices, so that the end of `graceful` is noticed
  // within a few milliseconds as well.
  const timespec slice{0, 10'000'000};
  while (!done) {
    const int sig = sigtimedwait(&set_, nullptr, &slice);
    if (sig == SIGINT || sig == SIGTERM) {
      urgent(sig);
      std::_Exit(128 + sig);
    }
  }
  worker.join();
  if (failure) std::rethrow_exception(failure);
}

std::string signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT (Ctrl-C)";
  if (signal == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(signal);
}

}  // namespace quote_lab
