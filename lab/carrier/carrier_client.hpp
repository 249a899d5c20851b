#pragma once
// Calling the carrier over real HTTP: the adapter behind the CarrierCaller port
// (carrier_call.hpp), with a real connect/read timeout and a total deadline; the outcome
// is a value, never an exception.

#include <functional>
#include <optional>
#include <string>

#include "lab/base/clock.hpp"
#include "lab/carrier/deadline_watchdog.hpp"
#include "lab/carrier/host_resolver.hpp"
#include "lab/resilience/carrier_call.hpp"

namespace quote_lab {

/// The largest carrier answer the lab reads; beyond it the answer is a bad_response.
inline constexpr std::size_t kMaxCarrierBodyBytes = 64 * 1024;

/// The real caller: GET {base_url}/quote with the headers Idempotency-Key (when the request
/// has one), X-Attempt, X-Deadline-Unix-Ms (when this attempt gives up),
/// X-Request-Deadline-Unix-Ms (the flow's total deadline, when set), X-Quote-Lab (a student
/// lab's name, when set), X-Priority (`critical` or `sheddable`, always) and traceparent, over a
/// fresh connection per attempt, so a hung connection is never reused. TCP_NODELAY is on
/// (Nagle adds ~44 ms, see docs/stack-notes.md).
/// Classification: no answer by the attempt's timeout (a slow or trickling carrier) is a
/// timeout; a refused connect or a reset before it is a connect_error (cpp-httplib reports
/// a timeout and a reset alike, so they are told apart by the deadline); 429 → http_429,
/// 5xx → http_5xx, other 4xx → http_4xx; a 200 that is not a quote (malformed, truncated,
/// over 64 KiB) is a bad_response. A Retry-After (seconds or HTTP-date) fills retry_after.
/// base_url's host name is looked up off the quote path (host_resolver.hpp): an attempt
/// never waits for DNS, and while the name was never found it fails at once (connect_error).
class HttpCarrierClient final : public CarrierCaller {
 public:
  /// Where one attempt connects instead of base_url (nullopt: base_url); see refusing_route.
  using Route = std::function<std::optional<std::string>(const CarrierRequest&)>;

  /// `base_url` like "http://127.0.0.1:8081". Thread-safe: each call uses its own Client.
  /// `lookup` finds base_url's host (the system's resolver unless a test gives its own).
  HttpCarrierClient(std::string base_url, const Clock& clock, Route route = {},
                    HostResolver::Lookup lookup = system_lookup);
  CallOutcome call(const CarrierRequest& request) override;
  const std::string& base_url() const { return base_url_; }

 private:
  std::string base_url_;
  const Clock& clock_;
  Route route_;
  std::unique_ptr<HostResolver> resolver_;  // null when base_url names no host
  DeadlineWatchdog watchdog_;
};

}  // namespace quote_lab
