#include "lab/http/request_guard.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

#include "lab/http/api_error.hpp"

namespace quote_lab {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// RFC 9110 §8.6: 1*DIGIT. Anything else ("abc", "-1", "+5", "1e3", "") is not a length.
bool is_decimal(const std::string& s) {
  return !s.empty() && s.size() <= 18 && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// A refusal whose message comes from the one table (api_error.hpp), in both languages.
GuardError refusal(int status, std::string error, MessageId id, const MessageArgs& args = {}) {
  return {status, std::move(error), message_text(id, Language::en, args), message_text(id, Language::es, args)};
}

GuardError bad(std::string error, MessageId id, const MessageArgs& args = {}) {
  return refusal(400, std::move(error), id, args);
}

}  // namespace

std::optional<GuardError> check_framing(const RequestFacts& request) {
  const auto [cl_first, cl_last] = request.headers.equal_range("content-length");
  std::optional<std::string> length;
  for (auto it = cl_first; it != cl_last; ++it) {
    // "Content-Length: 5, 5" is one header listing two values: each must agree too.
    std::string rest = it->second;
    while (true) {
      const auto comma = rest.find(',');
      const std::string value = trimmed(rest.substr(0, comma));
      if (!is_decimal(value))
        return bad("invalid_content_length", MessageId::invalid_content_length, {{"got", value.substr(0, 20)}});
      if (length && *length != value)
        return bad("conflicting_content_length", MessageId::conflicting_content_length);
      length = value;
      if (comma == std::string::npos) break;
      rest = rest.substr(comma + 1);
    }
  }
  const auto te_count = request.headers.count("transfer-encoding");
  if (te_count > 0) {
    if (te_count > 1 || lower(trimmed(request.headers.find("transfer-encoding")->second)) != "chunked")
      return bad("unsupported_transfer_encoding", MessageId::unsupported_transfer_encoding);
    if (length)
      return bad("conflicting_framing", MessageId::conflicting_framing);
    if (request.version != "HTTP/1.1")
      return bad("unsupported_transfer_encoding", MessageId::transfer_encoding_needs_http11);
  }
  if (request.version == "HTTP/1.1") {
    const auto hosts = request.headers.count("host");
    if (hosts == 0) return bad("missing_host", MessageId::missing_host);
    if (hosts > 1) return bad("invalid_host", MessageId::invalid_host);
  }
  return std::nullopt;
}

bool constant_time_equal(const std::string& a, const std::string& b) {
  // Every byte of the longer string is looked at whatever the content; volatile keeps the
  // compiler from turning the loop back into an early-exit compare.
  const std::size_t n = std::max(a.size(), b.size());
  volatile unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff = static_cast<unsigned char>(diff | (x ^ y));
  }
  return diff == 0;
}

bool host_allowed(const std::string& host_header, const std::vector<std::string>& allowed) {
  std::string host = lower(trimmed(host_header));
  if (host.empty()) return false;
  if (host.front() == '[') {  // [IPv6]:port
    const auto close = host.find(']');
    if (close == std::string::npos) return false;
    const std::string literal = host.substr(1, close - 1);
    in6_addr addr{};
    return ::inet_pton(AF_INET6, literal.c_str(), &addr) == 1;
  }
  if (const auto colon = host.find(':'); colon != std::string::npos) host = host.substr(0, colon);
  if (!host.empty() && host.back() == '.') host.pop_back();  // "localhost." is the same name
  in_addr v4{};
  if (host == "localhost" || ::inet_pton(AF_INET, host.c_str(), &v4) == 1) return true;
  return std::any_of(allowed.begin(), allowed.end(), [&host](const std::string& name) { return lower(name) == host; });
}

std::optional<GuardError> check_access(const AccessFacts& request, const AccessPolicy& policy) {
  if (!host_allowed(request.host, policy.allowed_hosts))
    return refusal(403, "host_not_allowed", MessageId::host_not_allowed, {{"host", request.host.substr(0, 60)}});
  if (!request.changes_lab) return std::nullopt;
  const std::string site = lower(trimmed(request.sec_fetch_site));
  const std::string origin = lower(trimmed(request.origin));
  const std::string host = lower(trimmed(request.host));
  if (site == "cross-site" ||
      (!origin.empty() && origin != "http://" + host && origin != "https://" + host))
    return refusal(403, "cross_site_request", MessageId::cross_site_request);
  if (!policy.admin_token.empty() && !request.student_lab &&
      !constant_time_equal(request.authorization, "Bearer " + policy.admin_token)) {
    // A token that was sent but is not this lab's is a typo to fix, not a token to add.
    if (!trimmed(request.authorization).empty())
      return refusal(401, "wrong_teacher_token", MessageId::admin_token_wrong);
    return refusal(401, "admin_token_required", MessageId::admin_token_required);
  }
  return std::nullopt;
}

std::string admin_token_status(const std::string& authorization, const AccessPolicy& policy) {
  if (policy.admin_token.empty()) return {};
  return constant_time_equal(authorization, "Bearer " + policy.admin_token) ? "accepted" : "required";
}

const std::vector<std::pair<std::string, std::string>>& security_headers() {
  static const std::vector<std::pair<std::string, std::string>> headers{
      {"X-Content-Type-Options", "nosniff"},
      {"Content-Security-Policy",
       "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'"},
      {"X-Frame-Options", "SAMEORIGIN"},
      {"Referrer-Policy", "no-referrer"},
  };
  return headers;
}

}  // namespace quote_lab
