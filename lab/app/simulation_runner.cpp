#include "lab/app/simulation_runner.hpp"

namespace quote_lab {

SimulationRunner::SimulationRunner() : thread_([this] { loop(); }) {}

SimulationRunner::~SimulationRunner() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

bool SimulationRunner::submit(std::function<void()> work) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || line_.size() >= kMaxWaiting) return false;
    line_.push_back(std::move(work));
  }
  wake_.notify_one();
  return true;
}

std::size_t SimulationRunner::waiting() const {
  std::lock_guard lock(mutex_);
  return line_.size();
}

void SimulationRunner::loop() {
  for (;;) {
    std::function<void()> work;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !line_.empty(); });
      if (line_.empty()) return;  // stopping, and nothing left
      work = std::move(line_.front());
      line_.pop_front();
    }
    work();
  }
}

}  // namespace quote_lab
