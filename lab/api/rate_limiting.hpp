#pragma once
// The quote routes' rate limit per client (SPEC.md, `--rate-limit N`,
// `--rate-window-s S`; the flags are declared with the classroom's, classroom.hpp): who the client is, the limiter's key, the 429, and
// the seam where a state backend plugs in its own limiter. Off unless --rate-limit is set,
// so the course's curl lines never meet the lab's 429. /health, scrapes, /events, pages and the
// teacher's routes are never limited (route_table.hpp marks the limited routes).

#include <functional>
#include <memory>
#include <string>

#include "lab/app/options.hpp"
#include "lab/base/clock.hpp"
#include "lab/http/httplib_fwd.hpp"
#include "lab/resilience/rate_limiter.hpp"

namespace quote_lab {

/// Builds the limiter for enabled settings. THE SEAM for state backends: the default
/// (in_process_rate_limiters) counts in this process; the Redis backend passes a factory
/// that builds its shared limiter (one count across replicas) and falls back to an
/// in-process one while Redis is unreachable.
using RateLimiterFactory = std::function<std::shared_ptr<RateLimiter>(const RateLimitSettings&)>;

/// The default factory: an InProcessRateLimiter on `clock` (which must outlive it).
RateLimiterFactory in_process_rate_limiters(const Clock& clock);

/// What the routes consult before a limited route: `limiter` is null when the limit is off.
struct RateLimitGate {
  std::shared_ptr<RateLimiter> limiter;
  std::string trusted_proxy_header;
};

/// The gate `options` ask for, its limiter built by `factory` (not called when off).
RateLimitGate make_rate_limit_gate(const RateLimitOptions& options, const RateLimiterFactory& factory);

/// The client a request counts for: the last comma-separated entry of the trusted header
/// when one is configured and present (the address the proxy itself appended: entries before
/// it were written by the client), else the peer address. At most 64 characters.
std::string client_address(const httplib::Request& req, const std::string& trusted_proxy_header);

/// The limiter's key: the lab ("" is the teacher's) and the client, e.g. "-|127.0.0.1" or
/// "ana|10.0.0.7". Lab names never contain '|' (lab_name.hpp), so keys never collide.
std::string rate_limit_key(const std::string& lab_name, const std::string& client);

/// Answers a refused request: 429, `Retry-After: <seconds>`, and
/// {"error": "rate_limited", "message", "limit", "window_s", "retry_after_s"} with the
/// message in the request's language (Accept-Language, else `serve --language`).
void send_rate_limited(const httplib::Request& req, httplib::Response& res, const RateDecision& decision);

}  // namespace quote_lab
