#pragma once
// Checks a request must pass before any handler runs, as pure functions over the facts of
// the request: its framing (Content-Length, Transfer-Encoding, Host) and the security
// headers every answer carries. cpp-httplib 0.11.4 reads "Content-Length: abc" as 0 and
// runs the handler, ignores a second, different Content-Length, accepts any
// Transfer-Encoding and HTTP/1.1 without Host: each of
// those is a request two parties can read differently, so the lab refuses it instead.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace quote_lab {

/// A refusal: HTTP status (4xx), the lab's `error` code and a message saying what to fix.
struct GuardError {
  int status = 400;
  std::string error;
  std::string message;     ///< in English
  std::string message_es;  ///< the same in Spanish
};

/// What the framing check needs to know: the protocol version as sent ("HTTP/1.1") and
/// the values of Content-Length, Transfer-Encoding and Host by lower-case name (repeated
/// headers appear once per value; other headers may be left out).
struct RequestFacts {
  std::string version;
  std::multimap<std::string, std::string> headers;
};

/// Refuses a request whose body length is ambiguous or whose head is incomplete:
/// a Content-Length that is not a plain decimal number (or repeated with different
/// values), a Transfer-Encoding other than exactly "chunked", both headers at once,
/// or no (or more than one) Host header on HTTP/1.1. nullopt when the request is fine.
std::optional<GuardError> check_framing(const RequestFacts& request);

/// Who may change the lab: a teacher token, the names the lab
/// answers to (DNS rebinding defence) and which requests change it for everyone.
struct AccessPolicy {
  /// Empty: no token needed (the course's curl lines work as they are).
  std::string admin_token;
  /// Host names accepted besides IP literals and localhost (lower case, no port).
  std::vector<std::string> allowed_hosts;
};

/// What the access check needs to know about one request.
struct AccessFacts {
  bool changes_lab = false;     ///< a route that changes the lab for others (reset, mode, storm)
  std::string host;             ///< Host header as sent ("" when absent)
  std::string origin;           ///< Origin header ("" when absent)
  std::string sec_fetch_site;   ///< Sec-Fetch-Site header ("" when absent)
  std::string authorization;    ///< Authorization header ("" when absent)
  /// The request names a student's lab (`?lab=NAME`): what it changes is that student's
  /// own, so the teacher token is not needed (the same-site check still applies).
  bool student_lab = false;
};

/// Whether `a` equals `b`, in a time that depends on their lengths only (a token
/// compared byte by byte with an early exit leaks its prefix through timing).
bool constant_time_equal(const std::string& a, const std::string& b);

/// True for "localhost", an IPv4 literal, or a bracketed IPv6 literal, with or without
/// ":port", or for a name (port stripped, any case) listed in `allowed`.
bool host_allowed(const std::string& host, const std::vector<std::string>& allowed);

/// Refuses, in this order: a Host the lab does not answer to (403 host_not_allowed, any
/// route); on routes that change the lab, a cross-site request (403 cross_site_request:
/// Sec-Fetch-Site "cross-site", or an Origin that is not http(s)://Host), then a missing
/// or wrong teacher token when one is set (401 admin_token_required; never for a student's
/// own lab). nullopt: allowed.
std::optional<GuardError> check_access(const AccessFacts& request, const AccessPolicy& policy);

/// What the lab tells a client about the teacher token (header X-Admin-Token on every
/// answer, so the page knows what to show without trying a change): "" when no token is
/// set, "accepted" when `authorization` carries it, else "required".
std::string admin_token_status(const std::string& authorization, const AccessPolicy& policy);

/// Headers every answer carries: `nosniff` (a JSON error echoing input is never run as
/// a script), and a Content-Security-Policy that allows only the lab's own scripts,
/// styles and connections and only the lab itself to frame it (the Reset and Storm
/// buttons cannot be clickjacked); X-Frame-Options for browsers without CSP 2.
const std::vector<std::pair<std::string, std::string>>& security_headers();

}  // namespace quote_lab
