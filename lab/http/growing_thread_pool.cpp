#include "lab/http/growing_thread_pool.hpp"

#include <algorithm>

namespace quote_lab {

GrowingThreadPool::GrowingThreadPool(std::size_t max_threads) : max_threads_(std::max<std::size_t>(1, max_threads)) {}

GrowingThreadPool::~GrowingThreadPool() { shutdown(); }

void GrowingThreadPool::enqueue(std::function<void()> job) {
  {
    std::unique_lock lock(mutex_);
    if (stopping_) {  // httplib stops enqueuing before shutdown; a late job still runs, here
      lock.unlock();
      job();
      return;
    }
    jobs_.push_back(std::move(job));
    // Every queued job needs a thread of its own: start one when the idle ones are all spoken for.
    if (jobs_.size() > idle_ && threads_.size() < max_threads_) threads_.emplace_back([this] { work(); });
  }
  wake_.notify_one();
}

void GrowingThreadPool::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    ++idle_;
    wake_.wait(lock, [this] { return !jobs_.empty() || stopping_; });
    --idle_;
    if (jobs_.empty()) return;  // stopping, and nothing left to run
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    lock.lock();
  }
}

void GrowingThreadPool::shutdown() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    threads.swap(threads_);  // no thread starts after this (enqueue checks stopping_)
  }
  wake_.notify_all();
  for (auto& t : threads) t.join();
}

std::size_t GrowingThreadPool::started() const {
  std::lock_guard lock(mutex_);
  return threads_.size();
}

}  // namespace quote_lab
