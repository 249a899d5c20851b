#include "lab/shared_state/redis_url.hpp"

#include <charconv>

namespace quote_lab {
namespace {

constexpr std::string_view kScheme = "redis://";
constexpr std::string_view kForm =
    "expected file or redis://[[USER]:PASSWORD@]HOST:PORT[/DB], e.g. redis://127.0.0.1:6379/0";

// A whole decimal number in [lo, hi]; nothing else (no sign, spaces or suffix).
std::optional<int> number_in(std::string_view s, int lo, int hi) {
  int value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size() || value < lo || value > hi) return std::nullopt;
  return value;
}

std::optional<StateBackendChoice> fail(std::string& problem, std::string text) {
  problem = std::move(text) + " (" + std::string(kForm) + ")";
  return std::nullopt;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// RFC 3986 percent-decoding of a URL's user or password (a user name holds ':' as %3A, and
// either holds '%' as %25). nullopt on a '%' not followed by two hex digits.
std::optional<std::string> percent_decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    const int hi = i + 1 < s.size() ? hex_value(s[i + 1]) : -1;
    const int lo = i + 2 < s.size() ? hex_value(s[i + 2]) : -1;
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

}  // namespace

std::string RedisEndpoint::url() const {
  const bool v6 = host.find(':') != std::string::npos;
  const std::string credentials = password.empty() ? "" : username + ":***@";
  return std::string(kScheme) + credentials + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + "/" +
         std::to_string(db);
}

std::optional<StateBackendChoice> parse_state_backend(std::string_view text, std::string& problem) {
  if (text == "file") return StateBackendChoice{};
  if (text.starts_with("rediss://"))
    return fail(problem, "rediss:// (Redis over TLS) is not supported: Debian 12's hiredis 0.14 has no TLS; use "
                         "redis:// on the class's own network, or a TLS tunnel (stunnel) ending on this machine");
  if (!text.starts_with(kScheme)) {
    const auto colon = text.find("://");
    return fail(problem, colon == std::string_view::npos
                             ? "state backend '" + std::string(text) + "' is neither file nor a redis:// URL"
                             : "state backend scheme '" + std::string(text.substr(0, colon)) + "' is not supported");
  }
  std::string_view rest = text.substr(kScheme.size());
  RedisEndpoint e;
  // The last '@': no host, port or database holds one, while a password may. Errors quote
  // the URL as given, but never its credentials.
  const auto at = rest.rfind('@');
  const std::string url = at == std::string_view::npos
                              ? std::string(text)
                              : std::string(kScheme) + "***@" + std::string(rest.substr(at + 1));
  if (at != std::string_view::npos) {
    const std::string_view userinfo = rest.substr(0, at);
    const auto colon = userinfo.find(':');
    if (colon == std::string_view::npos)
      return fail(problem, url + ": a user name needs its password after a ':' (redis://USER:PASSWORD@HOST:PORT), "
                                 "or give the password alone (redis://:PASSWORD@HOST:PORT)");
    const auto user = percent_decoded(userinfo.substr(0, colon));
    const auto password = percent_decoded(userinfo.substr(colon + 1));
    if (!user || !password)
      return fail(problem, url + ": a '%' in the user or password must start a %XX escape (e.g. %40 for '@')");
    if (password->empty()) return fail(problem, url + ": the password after ':' is empty");
    e.username = *user;
    e.password = *password;
    rest = rest.substr(at + 1);
  }
  if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
    const auto db = number_in(rest.substr(slash + 1), 0, 65535);
    if (!db) return fail(problem, url + ": the database '" + std::string(rest.substr(slash + 1)) + "' is not a number 0-65535");
    e.db = *db;
    rest = rest.substr(0, slash);
  }
  std::string_view port_text;
  if (rest.starts_with('[')) {  // [IPv6]:PORT
    const auto close = rest.find(']');
    if (close == std::string_view::npos) return fail(problem, url + ": '[' without ']' around the IPv6 host");
    e.host = std::string(rest.substr(1, close - 1));
    if (rest.substr(close + 1).starts_with(':')) port_text = rest.substr(close + 2);
    else return fail(problem, url + ": the port is missing");
  } else {
    const auto colon = rest.rfind(':');
    if (colon == std::string_view::npos) return fail(problem, url + ": the port is missing");
    e.host = std::string(rest.substr(0, colon));
    port_text = rest.substr(colon + 1);
  }
  if (e.host.empty()) return fail(problem, url + ": the host is missing");
  if (!rest.starts_with('[') && e.host.find(':') != std::string::npos)
    return fail(problem, url + ": an IPv6 host goes in brackets, e.g. redis://[::1]:6379");
  const auto port = number_in(port_text, 1, 65535);
  if (!port) return fail(problem, url + ": the port '" + std::string(port_text) + "' is not a number 1-65535");
  e.port = *port;
  return StateBackendChoice{e};
}

}  // namespace quote_lab
