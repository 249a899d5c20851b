#pragma once
// Rate limiting per client on the quote routes (SPEC.md, `--rate-limit N`,
// `--rate-window-s S`): at most `limit` requests per client in any window of
// `window_s` seconds, beyond that a 429 with `Retry-After`.
//
// The algorithm is the sliding *log*, as the seed gateway keeps it (a sorted set of request
// times per client; NOTES-scale-out.md) and as Nikrad Mahdi describes it in "An alternative
// approach to rate limiting" (Figma engineering blog, 2017): each admitted request's time
// is logged; a request at `now` is admitted when fewer than `limit` logged times t satisfy
// now − t < window, and then logged; a refused request is not logged (a client that keeps knocking is not locked
// out for ever). `Retry-After` is the time until the oldest logged time leaves the window,
// in whole seconds rounded up.
//
// Why the log and not the two-window counter (previous × overlap + current; Cloudflare, "How
// we built rate limiting capable of scaling to millions of domains", 2017): the log is
// exact, so what a class reads is what it expects — "5 per 10 s" admits 5 in any 10 s and
// `Retry-After` is never more than the window. The counter assumes the previous window's
// requests were spread evenly; with the small limits a class uses (a burst of 5 at the start
// of a window) it refuses a burst for up to (1 + 1/limit) windows, and `Retry-After` can be
// twice the window with a limit of 1. The log's cost is memory, O(limit) per client, which
// the in-process limiter bounds below (limit ≤ kMaxLimit, a budget of logged times in all).
// In Redis the log is one sorted set per client, changed by one script (ZREMRANGEBYSCORE,
// ZCARD, ZADD with a unique member, PEXPIRE), the server's TIME as the clock.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "lab/base/clock.hpp"

namespace quote_lab {

/// Requests per window per client, and the window. Off when `limit` is 0.
struct RateLimitSettings {
  static constexpr int kDefaultWindowS = 60;
  static constexpr int kMaxLimit = 10'000;     ///< the largest `--rate-limit` accepted
  static constexpr int kMaxWindowS = 86'400;   ///< the largest `--rate-window-s` (one day)

  int limit = 0;                  ///< requests admitted per window per client; 0 = off
  int window_s = kDefaultWindowS; ///< window length, seconds, ≥ 1

  bool enabled() const { return limit > 0; }
};

/// The limiter's answer for one request. Every field is what the 429 body and headers show.
struct RateDecision {
  bool allowed = true;
  int limit = 0;                   ///< the configured limit (requests per window)
  int window_s = 0;                ///< the configured window, seconds
  int remaining = 0;               ///< requests this client may still make now (after this one), ≥ 0
  std::int64_t retry_after_s = 0;  ///< refused: whole seconds (rounded up, ≥ 1) until a request
                                   ///< would be admitted if the client sent nothing meanwhile;
                                   ///< 0 when allowed. This is the `Retry-After` header.
};

/// "May this client make one more quote request now?" Implementations count the request
/// when they admit it. Thread-safe: handlers call it concurrently.
///
/// Implementations: `InProcessRateLimiter` below (the default; one count per replica) and
/// the Redis one (`--state-backend redis://…`; one count shared by every replica). Both use
/// the sliding log above, so a class sees the same numbers whichever backend runs.
class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  /// Decides for, and counts, one request of `key`. `key` names the client within one lab:
  /// the lab's key prefix + the client address (e.g. "teacher|127.0.0.1"); the limiter
  /// treats it as opaque. Never throws on the request path; a backend that cannot decide
  /// (Redis down) must answer from a local fallback rather than refuse.
  virtual RateDecision admit(std::string_view key) = 0;
  /// The limit and window this limiter applies.
  virtual RateLimitSettings settings() const = 0;
};

/// The in-process limiter: a log of admitted request times per key, bounded in size.
///
/// Memory: a client whose every logged time has left the window has nothing left to count
/// and is forgotten on the next call. Beyond `max_clients` keys, or beyond `max_logged`
/// logged times in all, the least recently seen client is dropped first (it starts afresh:
/// the bound fails open for the quietest client, never closed for a busy one). With the
/// defaults, 10 000 clients or 1 000 000 logged times (about 8 MB) — a class of 30 plus a
/// storm of 500 clients at a limit of 1 000 stays inside both.
class InProcessRateLimiter final : public RateLimiter {
 public:
  static constexpr std::size_t kDefaultMaxClients = 10'000;
  static constexpr std::size_t kDefaultMaxLogged = 1'000'000;

  /// `settings.limit` in [1, kMaxLimit] and `settings.window_s` in [1, kMaxWindowS] (the
  /// caller validated the flags); throws std::invalid_argument otherwise. Time is read from
  /// `clock.now()` (monotonic), once per call.
  InProcessRateLimiter(const Clock& clock, RateLimitSettings settings,
                       std::size_t max_clients = kDefaultMaxClients,
                       std::size_t max_logged = kDefaultMaxLogged);

  RateDecision admit(std::string_view key) override;
  RateLimitSettings settings() const override { return settings_; }

  /// Keys currently remembered, and request times logged over all of them (for tests of
  /// the bounds).
  std::size_t tracked_clients() const;
  std::size_t logged_times() const;

 private:
  struct Entry {
    std::deque<std::int64_t> times_ms;       // admitted requests, oldest first, all > now − window
    std::list<std::string>::iterator order;  // position in order_ (front = most recent)
  };

  void drop_times_before_locked(Entry& entry, std::int64_t horizon_ms);
  void forget_idle_locked(std::int64_t horizon_ms);
  void evict_beyond_bounds_locked(const std::string& keep);

  const Clock& clock_;
  const RateLimitSettings settings_;
  const std::size_t max_clients_;
  const std::size_t max_logged_;
  mutable std::mutex mutex_;                        // guards entries_, order_ and logged_
  std::unordered_map<std::string, Entry> entries_;
  std::list<std::string> order_;                    // keys, most recently seen first
  std::size_t logged_ = 0;                          // sum of every entry's times_ms.size()
};

}  // namespace quote_lab
