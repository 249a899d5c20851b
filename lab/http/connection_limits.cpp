#include "lab/http/connection_limits.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <nlohmann/json.hpp>

#include "lab/http/request_guard.hpp"

namespace quote_lab {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kStopCheckMs = 100;

int poll_for(socket_t sock, short events, int timeout_ms) {
  pollfd p{sock, events, 0};
  int rc;
  do rc = ::poll(&p, 1, std::max(0, timeout_ms));
  while (rc < 0 && errno == EINTR);
  return rc > 0 ? p.revents : (rc == 0 ? 0 : POLLERR);
}

void ip_and_port(const sockaddr_storage& addr, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(addr);
    ::inet_ntop(AF_INET, &a.sin_addr, text, sizeof text);
    port = ntohs(a.sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(addr);
    ::inet_ntop(AF_INET6, &a.sin6_addr, text, sizeof text);
    port = ntohs(a.sin6_port);
  }
  ip = text;
}

// A response head announcing a body of fixed, non-zero length: cpp-httplib writes such a
// head and then, at once, its body (or nothing, for HEAD: the server loop flushes then).
bool is_head_of_fixed_body(const char* data, std::size_t size) {
  const std::string_view text(data, size);
  if (!text.starts_with("HTTP/1.") || !text.ends_with("\r\n\r\n")) return false;
  const auto at = text.find("\r\nContent-Length: ");
  if (at == std::string_view::npos) return false;
  const auto digits = at + std::string_view("\r\nContent-Length: ").size();
  return digits < text.size() && text[digits] >= '1' && text[digits] <= '9';
}

}  // namespace

ConnectionStream::ConnectionStream(socket_t sock, const ConnectionLimits& limits) : sock_(sock), limits_(limits) {}

bool ConnectionStream::wait_for_request(const std::function<bool()>& stopping) {
  if (!flush()) return false;
  head_too_large_ = false;
  bool ready = begin_ < end_;
  for (int waited = 0; !ready && waited < limits_.keep_alive_timeout_ms; waited += kStopCheckMs) {
    if (stopping()) return false;
    const int revents = poll_for(sock_, POLLIN, std::min(kStopCheckMs, limits_.keep_alive_timeout_ms - waited));
    if (revents & (POLLERR | POLLNVAL)) return false;
    ready = revents != 0;  // readable, or hung up (the read then sees the end)
  }
  if (!ready || stopping()) return false;
  in_head_ = true;
  head_bytes_ = 0;
  head_deadline_ = Clock::now() + std::chrono::milliseconds(limits_.head_timeout_ms);
  return true;
}

bool peer_gone(socket_t sock, short revents) {
  if (revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) return true;
  if (!(revents & POLLIN)) return false;
  char byte;
  return ::recv(sock, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

bool ConnectionStream::peer_closed() const {
  return peer_gone(sock_, static_cast<short>(poll_for(sock_, POLLIN | POLLRDHUP, 0)));
}

bool ConnectionStream::wait_readable() {
  int timeout_ms = limits_.read_timeout_ms;
  if (in_head_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(head_deadline_ - Clock::now()).count();
    if (left <= 0) return false;
    timeout_ms = static_cast<int>(std::min<long long>(timeout_ms, left));
  }
  const int revents = poll_for(sock_, POLLIN, timeout_ms);
  return revents != 0 && !(revents & POLLNVAL);
}

bool ConnectionStream::is_readable() const {
  return begin_ < end_ || poll_for(sock_, POLLIN, limits_.read_timeout_ms) != 0;
}

bool ConnectionStream::is_writable() const {
  return (poll_for(sock_, POLLOUT, limits_.write_timeout_ms) & POLLOUT) && !peer_closed();
}

ssize_t ConnectionStream::read(char* ptr, size_t size) {
  if (in_head_ && head_bytes_ >= limits_.max_head_bytes) {
    head_too_large_ = true;
    return -1;
  }
  if (begin_ == end_) {
    // The bytes are usually there already (wait_for_request saw them arrive): read them
    // without a poll first, and wait only when there is nothing yet. The head deadline is
    // checked either way, so a head cannot outlive it by always having a byte ready.
    if (in_head_ && Clock::now() >= head_deadline_) return -1;
    ssize_t n;
    do n = ::recv(sock_, buffer_, sizeof buffer_, MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_readable()) return -1;
      do n = ::recv(sock_, buffer_, sizeof buffer_, MSG_DONTWAIT);
      while (n < 0 && errno == EINTR);
    }
    if (n <= 0) return n;
    begin_ = 0;
    end_ = static_cast<std::size_t>(n);
  }
  std::size_t n = std::min(size, end_ - begin_);
  if (in_head_) {
    n = std::min(n, limits_.max_head_bytes - head_bytes_);
    head_bytes_ += n;
  }
  // httplib reads a request head one byte per call: such a byte needs no memcpy call.
  if (n == 1) *ptr = buffer_[begin_];
  else std::memcpy(ptr, buffer_ + begin_, n);
  begin_ += n;
  return static_cast<ssize_t>(n);
}

ssize_t ConnectionStream::write(const char* ptr, size_t size) {
  if (pending_head_.empty() && is_head_of_fixed_body(ptr, size)) {
    pending_head_.assign(ptr, size);
    return static_cast<ssize_t>(size);
  }
  if (!pending_head_.empty()) {
    pending_head_.append(ptr, size);
    const bool ok = flush();
    return ok ? static_cast<ssize_t>(size) : -1;
  }
  return send_all(ptr, size) ? static_cast<ssize_t>(size) : -1;
}

bool ConnectionStream::flush() {
  if (pending_head_.empty()) return true;
  const bool ok = send_all(pending_head_.data(), pending_head_.size());
  pending_head_.clear();
  return ok;
}

bool ConnectionStream::send_all(const char* ptr, std::size_t size) {
  std::size_t sent = 0;
  while (sent < size) {
    // Send first and poll only when the socket buffer is full: the common answer fits.
    const ssize_t n = ::send(sock_, ptr + sent, size - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!(poll_for(sock_, POLLOUT, limits_.write_timeout_ms) & POLLOUT)) return false;
      continue;
    }
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

void ConnectionStream::endpoint(Endpoint& cached, int (*ask)(int, sockaddr*, socklen_t*), std::string& ip,
                                int& port) const {
  if (!cached.known) {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    if (ask(sock_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) ip_and_port(addr, cached.ip, cached.port);
    cached.known = true;
  }
  ip = cached.ip;
  port = cached.port;
}

void ConnectionStream::get_remote_ip_and_port(std::string& ip, int& port) const { endpoint(remote_, ::getpeername, ip, port); }

void ConnectionStream::get_local_ip_and_port(std::string& ip, int& port) const { endpoint(local_, ::getsockname, ip, port); }

std::string connection_refused_response(int max_connections) {
  const std::string body =
      nlohmann::ordered_json{{"error", "too_many_connections"},
                             {"message", "the lab already holds its " + std::to_string(max_connections) +
                                             " connections (--max-connections); close idle tabs or retry in a moment"}}
          .dump(2) +
      "\n";
  std::string out = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\nRetry-After: 1\r\n";
  for (const auto& [name, value] : security_headers()) out += name + ": " + value + "\r\n";
  return out + "\r\n" + body;
}

}  // namespace quote_lab
