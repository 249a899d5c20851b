#pragma once
// Notices that a client has gone while its request is still being worked on, and says so
// through a std::stop_token: a quote queued in a bulkhead, waiting out a backoff or calling
// the carrier for a client that hung up stops there (Polly's cancelQueuing, gRPC's
// cancellation on a closed stream), instead of taking its place and calling the carrier
// for nobody.
//
// One thread watches every registered connection: every `every` it polls their sockets
// (POLLRDHUP, or readable with nothing left to read: the peer's FIN) and requests the stop
// of each that closed. The thread starts with the first registration and stops with the
// watch. A client that half-closes its side after sending the request (shutdown(SHUT_WR))
// is indistinguishable from one that left, and is taken as gone; HTTP clients do not.
//
// Thread-safe. A registration must end before its socket is closed (the server closes a
// connection only after its handler returns).

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <stop_token>
#include <thread>

namespace quote_lab {

class ClientWatch {
 public:
  explicit ClientWatch(std::chrono::milliseconds every = std::chrono::milliseconds(50)) : every_(every) {}
  ~ClientWatch();
  ClientWatch(const ClientWatch&) = delete;
  ClientWatch& operator=(const ClientWatch&) = delete;

  /// One watched connection, until destroyed. Move-only.
  class Registration {
   public:
    Registration(Registration&& other) noexcept;
    Registration& operator=(Registration&&) = delete;
    Registration(const Registration&) = delete;
    ~Registration();
    /// Stopped once the client is seen gone (never, for an empty registration).
    std::stop_token token() const { return token_; }

   private:
    friend class ClientWatch;
    Registration(ClientWatch* watch, std::uint64_t id, std::stop_token token)
        : watch_(watch), id_(id), token_(std::move(token)) {}
    ClientWatch* watch_;
    std::uint64_t id_;
    std::stop_token token_;
  };

  /// Watches connected socket `fd` (a negative fd: unwatched()).
  Registration watch(int fd);
  /// A registration of nothing: its token never stops.
  static Registration unwatched() { return Registration(nullptr, 0, {}); }
  /// Connections watched now.
  std::size_t watched() const;

 private:
  struct Watched {
    int fd;
    std::stop_source gone;
  };
  void unwatch(std::uint64_t id);
  void run(std::stop_token stop);

  const std::chrono::milliseconds every_;
  mutable std::mutex mutex_;
  std::condition_variable_any wake_;
  std::map<std::uint64_t, Watched> watched_;
  std::uint64_t next_id_ = 1;
  std::jthread thread_;  // last: stopped and joined first
};

}  // namespace quote_lab
