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

SimulationRunner::Admission SimulationRunner::submit(std::function<Delivery()> work, const std::string& asker) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || line_.size() >= kMaxWaiting) return Admission::line_full;
    if (!asker.empty()) {
      std::size_t& mine = in_line_[asker];
      if (mine >= kMaxPerAsker) return Admission::asker_full;
      ++mine;
    }
    line_.push_back(Job{std::move(work), asker});
  }
  wake_.notify_one();
  return Admission::queued;
}

std::size_t SimulationRunner::waiting() const {
  std::lock_guard lock(mutex_);
  return line_.size();
}

int SimulationRunner::retry_after_s() const {
  return 1 + static_cast<int>(waiting() / 8);
}

void SimulationRunner::loop() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !line_.empty(); });
      if (line_.empty()) return;  // stopping, and nothing left
      job = std::move(line_.front());
      line_.pop_front();
    }
    const Delivery deliver = job.work();
    if (!job.asker.empty()) {
      std::lock_guard lock(mutex_);
      if (auto it = in_line_.find(job.asker); it != in_line_.end() && --it->second == 0) in_line_.erase(it);
    }
    if (deliver) deliver();
  }
}

}  // namespace quote_lab
