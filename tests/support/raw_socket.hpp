#pragma once
// A raw TCP connection to a local server, for what an HTTP client cannot send or observe:
// malformed framing, pipelined requests, heads that trickle in, whether the server closed.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

namespace quote_lab::testing {

class RawConnection {
 public:
  /// Connects to 127.0.0.1:`port`; connected() says whether it worked.
  explicit RawConnection(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return connected_; }
  /// Sends all of `bytes`; false if the server has closed or reset the connection.
  bool send(const std::string& bytes) const {
    return connected_ && ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
  }
  /// Sends FIN: the server reads the end of the request stream (the client is gone for
  /// writing) while this side can still read what it answers and see it close.
  void shutdown_write() const {
    if (connected_) ::shutdown(fd_, SHUT_WR);
  }
  /// Everything received until the server closes the connection or `quiet` passes with
  /// nothing new (at most `limit` in all).
  std::string receive(std::chrono::milliseconds quiet = std::chrono::milliseconds(1000),
                      std::chrono::milliseconds limit = std::chrono::milliseconds(10000)) {
    std::string out;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(quiet.count())) <= 0) break;
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = true;
        break;
      }
      out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
  }
  /// Whether the server has closed the connection (waits up to `wait` for it).
  bool closed_by_server(std::chrono::milliseconds wait) {
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (!closed_ && std::chrono::steady_clock::now() < deadline) receive(std::chrono::milliseconds(50), wait);
    return closed_;
  }
  /// The status code of the first answer in `reply` ("HTTP/1.1 400 ..." -> 400), or 0.
  static int status_of(const std::string& reply) {
    return reply.rfind("HTTP/1.", 0) == 0 && reply.size() > 12 ? std::atoi(reply.c_str() + 9) : 0;
  }

 private:
  int fd_;
  bool connected_ = false;
  bool closed_ = false;
};

}  // namespace quote_lab::testing
