#pragma once
// The one owner of the lab's Redis connections (hiredis). A small pool: a caller takes an
// idle connection or opens a new one (up to max_connections), so no quote waits on another
// quote's round trip; with the pool exhausted the caller gets no answer and decides
// locally. Every connect and command is bounded by `timeout` (default 50 ms).
//
// On any failure (refused, reset, timeout, an error reply): unhealthy, the reason kept for
// /dependency/state, every pooled connection dropped, and no new attempt until the
// reconnect schedule's wait has passed (exponential backoff + jitter, injected clock and
// random source); the caller due first reconnects, on its own request, bounded by the
// timeout. A successful reconnect bumps `epoch()` so the users of the shared state resync.
// Never throws after start-up.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lab/base/clock.hpp"
#include "lab/base/random.hpp"
#include "lab/shared_state/reconnect_schedule.hpp"
#include "lab/shared_state/redis_url.hpp"

namespace quote_lab {

/// A Redis reply, copied out of hiredis's reply object.
struct RedisValue {
  enum class Type { nil, integer, string, status, error, array } type = Type::nil;
  long long integer = 0;
  std::string text;  ///< string, status or error
  std::vector<RedisValue> elements;
};

/// The backend's health as /dependency/state and the metrics report it.
struct RedisHealth {
  bool healthy = false;
  std::string error;             ///< the last failure (OS or Redis reason); "" when healthy
  std::uint64_t errors_total = 0;
};

/// Start-up could not reach Redis: the message names the URL and the reason.
struct RedisUnreachable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class RedisClient {
 public:
  struct Options {
    RedisEndpoint endpoint;
    Millis timeout{50};                 ///< per connect and per command
    std::size_t max_connections = 64;   ///< more callers at once decide locally
    ReconnectSchedule schedule{};
  };

  /// One request's Redis budget, on the thread that serves it: once a call in the scope
  /// failed (a timeout, a refused connection, a failed reconnect), every later call in the
  /// same scope answers nullopt at once, so a request pays at most one `timeout` however
  /// many round trips it would make (admission, outcome, fallback quote, rate limit, key),
  /// and a paused Redis costs a quote one bound, not one per round trip. Nested scopes are
  /// one scope. Threads without a scope (the class log's) are not limited.
  class RequestScope {
   public:
    RequestScope();
    ~RequestScope();
    RequestScope(const RequestScope&) = delete;
    RequestScope& operator=(const RequestScope&) = delete;
  };

  RedisClient(Options options, const Clock& clock, RandomSource& random);
  ~RedisClient();
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  /// Connects, SELECTs the database and PINGs once. Throws RedisUnreachable with the reason
  /// (start-up: nothing listening is an error; being down later is not).
  void connect_or_throw();

  /// One command; nullopt when Redis is unavailable or the command failed (then counted
  /// and kept as the last error). An error reply is returned as a value, not a failure.
  std::optional<RedisValue> command(const std::vector<std::string>& argv);

  /// Runs a Lua script atomically on the server: EVALSHA, loading it once (SCRIPT LOAD)
  /// and falling back to EVAL after NOSCRIPT. `source` must outlive the client (its address
  /// keys the SHA cache). nullopt on failure; an error reply counts as a failure.
  std::optional<RedisValue> eval(const std::string& source, const std::vector<std::string>& keys,
                                 const std::vector<std::string>& args);

  RedisHealth health() const;
  /// health().healthy, without copying the last error.
  bool healthy() const;
  /// Grows by one at every successful (re)connect.
  std::uint64_t epoch() const;
  const RedisEndpoint& endpoint() const { return options_.endpoint; }

 private:
  struct Connection;
  using ConnectionPtr = std::unique_ptr<Connection>;

  ConnectionPtr take();                          // null: unavailable or exhausted
  void give_back(ConnectionPtr c);
  ConnectionPtr open(std::string& problem);      // connect + SELECT, bounded by the timeout
  void fail(const std::string& reason);          // unhealthy, backoff, pool dropped
  std::optional<RedisValue> run(Connection& c, const std::vector<std::string>& argv, std::string& problem);

  const Options options_;
  const Clock& clock_;
  RandomSource& random_;

  mutable std::mutex mutex_;  // guards every field below
  std::vector<ConnectionPtr> idle_;
  std::size_t open_count_ = 0;   // connections alive (idle or in use)
  bool healthy_ = false;
  bool reconnecting_ = false;    // one caller reconnects; the others decide locally meanwhile
  int failures_ = 0;             // consecutive, for the schedule
  SteadyTime next_attempt_{};
  std::string last_error_ = "not connected yet";
  std::uint64_t errors_total_ = 0;
  std::uint64_t epoch_ = 0;
  std::map<const std::string*, std::string> shas_;  // script source → SHA1 from SCRIPT LOAD
};

}  // namespace quote_lab
