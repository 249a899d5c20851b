#pragma once
// `--state-backend` (SPEC.md, last section): `file` (the JSON state file, the default) or
// `redis://HOST:PORT[/DB]`. Parsed strictly, so a typo stops start-up with a sentence
// that names the fault instead of a lab that silently keeps its state alone.

#include <optional>
#include <string>
#include <string_view>

namespace quote_lab {

/// Where a Redis server is: host (a name, an IPv4 literal, or an IPv6 literal without
/// its brackets), TCP port 1–65535 and database number 0–65535 (SELECT; 0 when absent).
struct RedisEndpoint {
  std::string host;
  int port = 6379;
  int db = 0;

  /// `redis://HOST:PORT/DB` again (IPv6 hosts in brackets), for logs and errors.
  std::string url() const;
  friend bool operator==(const RedisEndpoint&, const RedisEndpoint&) = default;
};

/// What `--state-backend` asked for: nullopt endpoint = the JSON file.
struct StateBackendChoice {
  std::optional<RedisEndpoint> redis;
};

/// Parses `file`, or `redis://HOST:PORT[/DB]`. On a malformed value returns nullopt and sets
/// `problem` to one sentence for the user (which part is wrong and the accepted form).
std::optional<StateBackendChoice> parse_state_backend(std::string_view text, std::string& problem);

}  // namespace quote_lab
