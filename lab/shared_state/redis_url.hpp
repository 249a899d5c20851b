#pragma once
// `--state-backend` (SPEC.md, last section): `file` (the JSON state file, the default) or
// `redis://[[USER]:PASSWORD@]HOST:PORT[/DB]` (Redis's AUTH, with an ACL user or the
// `requirepass` password alone). Parsed strictly, so a typo stops start-up with a sentence
// that names the fault instead of a lab that silently keeps its state alone. `rediss://`
// (TLS) is refused by name: Debian 12's hiredis (0.14) has no TLS.

#include <optional>
#include <string>
#include <string_view>

namespace quote_lab {

/// Where a Redis server is: host (a name, an IPv4 literal, or an IPv6 literal without
/// its brackets), TCP port 1–65535, database number 0–65535 (SELECT; 0 when absent) and
/// the credentials AUTH sends (percent-decoded; none when `password` is empty).
struct RedisEndpoint {
  std::string host;
  int port = 6379;
  int db = 0;
  std::string username{};  ///< an ACL user; empty: AUTH with the password alone
  std::string password{};  ///< empty: no AUTH

  /// `redis://HOST:PORT/DB` again (IPv6 hosts in brackets), for logs and errors; a password
  /// shows as `***`, never in clear.
  std::string url() const;
  friend bool operator==(const RedisEndpoint&, const RedisEndpoint&) = default;
};

/// What `--state-backend` asked for: nullopt endpoint = the JSON file.
struct StateBackendChoice {
  std::optional<RedisEndpoint> redis;
};

/// Parses `file`, or `redis://[[USER]:PASSWORD@]HOST:PORT[/DB]`. On a malformed value returns nullopt and sets
/// `problem` to one sentence for the user (which part is wrong and the accepted form).
std::optional<StateBackendChoice> parse_state_backend(std::string_view text, std::string& problem);

}  // namespace quote_lab
