#include "lab/shared_state/redis_url.hpp"

#include <charconv>

namespace quote_lab {
namespace {

constexpr std::string_view kScheme = "redis://";
constexpr std::string_view kForm = "expected file or redis://HOST:PORT[/DB], e.g. redis://127.0.0.1:6379/0";

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

}  // namespace

std::string RedisEndpoint::url() const {
  const bool v6 = host.find(':') != std::string::npos;
  return std::string(kScheme) + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + "/" + std::to_string(db);
}

std::optional<StateBackendChoice> parse_state_backend(std::string_view text, std::string& problem) {
  if (text == "file") return StateBackendChoice{};
  if (!text.starts_with(kScheme)) {
    const auto colon = text.find("://");
    return fail(problem, colon == std::string_view::npos
                             ? "state backend '" + std::string(text) + "' is neither file nor a redis:// URL"
                             : "state backend scheme '" + std::string(text.substr(0, colon)) + "' is not supported");
  }
  std::string_view rest = text.substr(kScheme.size());
  const std::string url(text);
  RedisEndpoint e;
  if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
    const auto db = number_in(rest.substr(slash + 1), 0, 65535);
    if (!db) return fail(problem, url + ": the database '" + std::string(rest.substr(slash + 1)) + "' is not a number 0-65535");
    e.db = *db;
    rest = rest.substr(0, slash);
  }
  if (rest.find('@') != std::string_view::npos) return fail(problem, url + ": user names and passwords are not supported");
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
