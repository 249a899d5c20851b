#include "lab/http/client_watch.hpp"
#include "lab/http/connection_limits.hpp"

#include <poll.h>

#include <utility>
#include <vector>

namespace quote_lab {

ClientWatch::~ClientWatch() {
  if (thread_.joinable()) {
    thread_.request_stop();
    wake_.notify_all();
  }
}

ClientWatch::Registration::Registration(Registration&& other) noexcept
    : watch_(std::exchange(other.watch_, nullptr)), id_(other.id_), token_(std::move(other.token_)) {}

ClientWatch::Registration::~Registration() {
  if (watch_ != nullptr) watch_->unwatch(id_);
}

ClientWatch::Registration ClientWatch::watch(int fd) {
  if (fd < 0) return unwatched();
  std::lock_guard lock(mutex_);
  const std::uint64_t id = next_id_++;
  std::stop_source gone;
  std::stop_token token = gone.get_token();
  watched_.emplace(id, Watched{fd, std::move(gone)});
  if (!thread_.joinable()) thread_ = std::jthread([this](std::stop_token stop) { run(std::move(stop)); });
  return Registration(this, id, std::move(token));
}

std::size_t ClientWatch::watched() const {
  std::lock_guard lock(mutex_);
  return watched_.size();
}

void ClientWatch::unwatch(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  watched_.erase(id);
}

void ClientWatch::run(std::stop_token stop) {
  std::vector<pollfd> fds;
  std::vector<std::uint64_t> ids;
  std::unique_lock lock(mutex_);
  while (!stop.stop_requested()) {
    fds.clear();
    ids.clear();
    for (const auto& [id, w] : watched_) {
      if (w.gone.stop_requested()) continue;
      fds.push_back({w.fd, POLLIN | POLLRDHUP, 0});
      ids.push_back(id);
    }
    // Under the lock: no registration ends, so no fd polled here is closed meanwhile
    // (a registration ends before its socket closes). poll with a 0 timeout does not block.
    if (!fds.empty() && ::poll(fds.data(), fds.size(), 0) > 0) {
      for (std::size_t i = 0; i < fds.size(); ++i)
        if (peer_gone(fds[i].fd, fds[i].revents)) watched_.at(ids[i]).gone.request_stop();
    }
    wake_.wait_for(lock, stop, every_, [] { return false; });
  }
}

}  // namespace quote_lab
