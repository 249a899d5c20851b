#pragma once
// One accepted connection as the lab serves it, replacing cpp-httplib 0.11.4's own loop
// (measured here): its loop reads a request head with a per-read timeout only, so a
// client that sends a header line every 2 s holds a thread for ever; it reads the whole
// head into memory whatever its size (50 MB of headers -> 762 MB); and it builds a new
// stream, with a new read-ahead buffer, for each request, so pipelined requests after the
// first are silently lost. This stream keeps one buffer per connection and bounds the
// head in time (from its first byte) and in bytes; the server's loop around it
// (HttpServer) bounds how many connections are open at once.

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace quote_lab {

/// Bounds for every connection a server accepts. Defaults are the lab's `serve` defaults.
struct ConnectionLimits {
  static constexpr int kDefaultHeadTimeoutMs = 3000;
  static constexpr std::size_t kDefaultMaxHeadBytes = 64 * 1024;

  /// Connections open at once; past it a new connection gets a 503 JSON answer and is
  /// closed. 0: no bound (each connection still needs a worker thread to be served).
  int max_connections = 0;
  /// A request head must be complete this long after its first byte arrived, else the
  /// connection is closed (a slowly trickled head must not hold a thread).
  int head_timeout_ms = kDefaultHeadTimeoutMs;
  /// A request head larger than this (request line + headers) is refused with a 400 and
  /// the connection closed, before it can fill memory.
  std::size_t max_head_bytes = kDefaultMaxHeadBytes;
  static constexpr int kDefaultKeepAliveTimeoutMs = 5000;
  static constexpr int kDefaultKeepAliveMaxRequests = 1000;
  /// How long an idle keep-alive connection waits for its next request (whole seconds:
  /// cpp-httplib announces it in `Keep-Alive: timeout=N`). Clients reuse a connection for
  /// as long as the server keeps it: a page that refreshes every 2 s stays on one.
  int keep_alive_timeout_ms = kDefaultKeepAliveTimeoutMs;
  /// Requests served on one connection before it is closed (cpp-httplib's default is 5,
  /// which made wrk and dashboards reconnect every 5 requests: 46k vs 73k req/s measured).
  int keep_alive_max_requests = kDefaultKeepAliveMaxRequests;
  /// Per-read and per-write timeouts once the head has arrived (body, streaming answers).
  int read_timeout_ms = 5000;
  int write_timeout_ms = 5000;
};

/// Whether the peer of connected socket `sock` has closed its side (or the socket failed),
/// given what poll() answered for it with POLLIN | POLLRDHUP: readable with data waiting is
/// a peer still there (a pipelined next request). Peeks at most one byte; never blocks.
bool peer_gone(socket_t sock, short revents);

/// httplib::Stream over one connected socket for the connection's whole life: one
/// read-ahead buffer kept across requests (pipelined requests are answered in order),
/// a head bound in time and bytes, and writes that notice a peer that has gone. Not
/// thread-safe: used by the one thread serving the connection. Does not own the socket.
class ConnectionStream final : public httplib::Stream {
 public:
  using SteadyTime = std::chrono::steady_clock::time_point;

  ConnectionStream(socket_t sock, const ConnectionLimits& limits);

  /// Waits up to the keep-alive timeout for the next request's first byte (at once if it
  /// is already buffered), checking `stopping` every 100 ms. True when a request begins:
  /// its head must then be complete within the head timeout and byte bound.
  bool wait_for_request(const std::function<bool()>& stopping);
  /// The head was parsed (the server calls it before routing): reads are no longer
  /// bounded by the head deadline and size.
  void end_head() { in_head_ = false; }
  /// Whether the last request's head was parsed (end_head() called). When it was not
  /// (too slow, too large, malformed) the connection must close: what follows on it
  /// cannot be trusted to start a request.
  bool head_complete() const { return !in_head_; }
  /// Whether the last request head went over the byte bound.
  bool head_too_large() const { return head_too_large_; }
  /// True once the peer has closed its side (or the socket failed): an answer being
  /// streamed to it (live events) can stop at once instead of at its next write.
  bool peer_closed() const;

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  /// Writes all of `ptr` (waiting up to the write timeout whenever the socket buffer is
  /// full); -1 when the peer is gone or the timeout passed. A response head announcing a
  /// fixed-length body is held back and sent with that body in one send(): one packet and
  /// one system call per answer instead of two (bench/changes.md), and a client reading the
  /// answer wakes once.
  ssize_t write(const char* ptr, size_t size) override;
  /// Sends a head still held back (an answer to HEAD has no body to carry it). Called
  /// before waiting for the next request and before the connection closes.
  bool flush();
  /// The peer's and the lab's address of this connection, asked of the kernel on the
  /// first request and kept: they cannot change while the socket lives, and httplib asks
  /// for both on every request (two system calls per request saved, bench/changes.md).
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return sock_; }

 private:
  // Waits until the socket is readable, for the read timeout or, while a head is being
  // read, until the head deadline, whichever is first.
  bool wait_readable();
  bool send_all(const char* ptr, std::size_t size);

  const socket_t sock_;
  const ConnectionLimits limits_;
  char buffer_[4096];
  std::size_t begin_ = 0, end_ = 0;  // unread bytes are buffer_[begin_, end_)
  bool in_head_ = false;
  SteadyTime head_deadline_{};
  std::size_t head_bytes_ = 0;
  bool head_too_large_ = false;
  struct Endpoint {
    bool known = false;
    std::string ip;
    int port = 0;
  };
  mutable Endpoint remote_, local_;  // filled on first use (the getters are const in httplib::Stream)
  // `cached`, asked of the kernel with `ask` (getpeername or getsockname) the first time.
  void endpoint(Endpoint& cached, int (*ask)(int, sockaddr*, socklen_t*), std::string& ip, int& port) const;
  std::string pending_head_;  // a response head waiting for its body (see write())
};

/// The answer a connection past `max_connections` gets before it is closed: a complete
/// HTTP/1.1 503 with the lab's JSON error shape (written raw: no request was read).
std::string connection_refused_response(int max_connections);

}  // namespace quote_lab
