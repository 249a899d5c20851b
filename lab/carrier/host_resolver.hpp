#pragma once
// The carrier's address, looked up off the quote path. getaddrinfo blocks with no deadline of
// its own: a DNS that is slow or gone (a container network whose resolver is still starting,
// resolv.conf's 5 s x 2 tries) held a 220 ms attempt for 10 s, and the watchdog cannot cut a
// lookup (it stops a socket, and there is none yet). So a thread of its own looks the name up
// at start and every `refresh` after, and an attempt connects to the last address found:
// a DNS that dies degrades nothing until the carrier moves; a name never found fails the
// attempt at once (connect_error), as a refused connection does.

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace quote_lab {

/// The host part of an http(s) URL ("http://carrier:8081/x" → "carrier"); empty when the
/// URL names none or an IPv6 literal ("[::1]", which needs no lookup).
std::string url_host(const std::string& url);

/// Whether `host` is an IPv4 or IPv6 literal (nothing to look up).
bool numeric_host(const std::string& host);

/// One numeric address of `host` from the system's resolver (getaddrinfo, TCP), IPv4 before
/// IPv6, or nullopt when it finds none. Blocks for as long as the resolver does.
std::optional<std::string> system_lookup(const std::string& host);

/// Looks one host name up on a thread of its own and keeps the last address found.
/// Thread-safe. A numeric host is its own address and starts no thread.
class HostResolver {
 public:
  using Lookup = std::function<std::optional<std::string>(const std::string& host)>;

  /// Looks `host` up once before returning (start-up waits for the resolver, a quote never
  /// does), then every `refresh_ms` (every `retry_ms` while nothing was ever found).
  explicit HostResolver(std::string host, Lookup lookup = system_lookup,
                        std::chrono::milliseconds refresh_ms = std::chrono::seconds(5),
                        std::chrono::milliseconds retry_ms = std::chrono::seconds(1));
  /// Returns at once: a lookup still blocked ends on its own thread, which then exits.
  ~HostResolver();
  HostResolver(const HostResolver&) = delete;
  HostResolver& operator=(const HostResolver&) = delete;

  const std::string& host() const { return host_; }
  /// The last address found; nullopt while none was ever found.
  std::optional<std::string> address() const;

 private:
  struct Shared;
  std::string host_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace quote_lab
