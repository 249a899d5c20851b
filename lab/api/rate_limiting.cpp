#include "lab/api/rate_limiting.hpp"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "lab/http/accept.hpp"
#include "lab/http/api_error.hpp"
#include "lab/http/http_server.hpp"

namespace quote_lab {

RateLimiterFactory in_process_rate_limiters(const Clock& clock) {
  return [&clock](const RateLimitSettings& s) { return std::make_shared<InProcessRateLimiter>(clock, s); };
}

RateLimitGate make_rate_limit_gate(const RateLimitOptions& o, const RateLimiterFactory& factory) {
  RateLimitGate gate;
  gate.trusted_proxy_header = o.trusted_proxy_header;
  if (o.limit > 0) gate.limiter = factory(RateLimitSettings{o.limit, o.window_s});
  return gate;
}

std::string client_address(const httplib::Request& req, const std::string& trusted_proxy_header) {
  constexpr std::size_t kMaxClientLength = 64;  // an address; anything longer is cut, never stored whole
  if (!trusted_proxy_header.empty() && req.has_header(trusted_proxy_header)) {
    const std::string value = req.get_header_value(trusted_proxy_header);
    // Proxies append: "client-written, ..., what our proxy saw". Only the last is the proxy's.
    const auto comma = value.rfind(',');
    std::string_view last = comma == std::string::npos ? std::string_view(value) : std::string_view(value).substr(comma + 1);
    while (!last.empty() && (last.front() == ' ' || last.front() == '\t')) last.remove_prefix(1);
    while (!last.empty() && (last.back() == ' ' || last.back() == '\t')) last.remove_suffix(1);
    if (!last.empty()) return std::string(last.substr(0, kMaxClientLength));
  }
  return req.remote_addr.substr(0, kMaxClientLength);
}

std::string rate_limit_key(const std::string& lab_name, const std::string& client) {
  return (lab_name.empty() ? std::string("-") : lab_name) + "|" + client;
}

void send_rate_limited(const httplib::Request& req, httplib::Response& res, const RateDecision& d) {
  const Language language = message_language(req);
  const std::string message = message_text(MessageId::rate_limited, language,
                                           {{"limit", std::to_string(d.limit)},
                                            {"window_s", std::to_string(d.window_s)},
                                            {"retry_after_s", std::to_string(d.retry_after_s)}});
  send_json(res, 429,
            nlohmann::ordered_json{{"error", "rate_limited"},
                                   {"message", message},
                                   {"limit", d.limit},
                                   {"window_s", d.window_s},
                                   {"retry_after_s", d.retry_after_s}});
  res.set_header("Retry-After", std::to_string(d.retry_after_s));
  res.set_header("Vary", "Accept-Language");
}

}  // namespace quote_lab
