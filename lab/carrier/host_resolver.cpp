#include "lab/carrier/host_resolver.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <condition_variable>
#include <mutex>
#include <thread>

namespace quote_lab {

std::string url_host(const std::string& url) {
  const auto scheme = url.find("://");
  const std::size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  if (start >= url.size() || url[start] == '[') return {};
  const auto end = url.find_first_of(":/?#", start);
  return url.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

bool numeric_host(const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

std::optional<std::string> system_lookup(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) return std::nullopt;
  std::optional<std::string> address;
  char text[INET6_ADDRSTRLEN] = {};
  // IPv4 first: "localhost" lists ::1 first on Debian, and a carrier bound to 127.0.0.1 (the
  // lab's default) does not answer there; the client connects to this one address only.
  for (const int family : {AF_INET, AF_INET6}) {
    for (const addrinfo* a = found; a != nullptr && !address; a = a->ai_next) {
      if (a->ai_family != family) continue;
      if (getnameinfo(a->ai_addr, a->ai_addrlen, text, sizeof text, nullptr, 0, NI_NUMERICHOST) == 0) address = text;
    }
  }
  freeaddrinfo(found);
  return address;
}

// Owned by the resolver and its thread together: the thread may outlive the resolver while a
// lookup blocks, and then only touches this.
struct HostResolver::Shared {
  std::mutex mutex;
  std::condition_variable wake;
  std::optional<std::string> address;
  bool stopping = false;
};

HostResolver::HostResolver(std::string host, Lookup lookup, std::chrono::milliseconds refresh_ms,
                           std::chrono::milliseconds retry_ms)
    : host_(std::move(host)), shared_(std::make_shared<Shared>()) {
  if (numeric_host(host_)) {
    shared_->address = host_;
    return;
  }
  shared_->address = lookup(host_);
  std::thread([shared = shared_, host = host_, lookup = std::move(lookup), refresh_ms, retry_ms] {
    std::unique_lock lock(shared->mutex);
    while (!shared->stopping) {
      shared->wake.wait_for(lock, shared->address ? refresh_ms : retry_ms, [&] { return shared->stopping; });
      if (shared->stopping) break;
      lock.unlock();
      auto found = lookup(host);
      lock.lock();
      if (found) shared->address = std::move(found);  // a failed lookup keeps the last address
    }
  }).detach();
}

HostResolver::~HostResolver() {
  {
    std::lock_guard lock(shared_->mutex);
    shared_->stopping = true;
  }
  shared_->wake.notify_all();
}

std::optional<std::string> HostResolver::address() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->address;
}

}  // namespace quote_lab
