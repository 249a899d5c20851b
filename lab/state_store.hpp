#pragma once
// The lab's persisted state (SPEC.md, "Persistence"): the carrier breaker and the
// fallback quotes in one JSON file, written atomically (temp file, fsync, rename, fsync
// of the folder), so a crash or kill -9 at any moment leaves the previous or the new
// file, never a torn one. A corrupt file is set aside with its bytes and reported.
//
// File shape (version 1):
//   {"version": 1,
//    "breaker": {"state", "consecutive_failures", "opened_until": ISO|null, "open_events"},
//    "fallback": {"seeded_at": ISO, "quotes": [{"customer_id","items","quote","cached_at"}]}}

#include <condition_variable>
#include <filesystem>
#include <functional>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "lab/circuit_breaker.hpp"
#include "lab/clock.hpp"
#include "lab/fallback_cache.hpp"

namespace quote_lab {

/// What survives a restart. Volatile counters (short circuits, last latency) do not, so
/// the file changes only when the breaker or the cached quotes do.
struct PersistedState {
  BreakerRestore breaker;
  WallTime fallback_seeded_at{};
  std::vector<CachedQuote> fallback_quotes;
};

nlohmann::ordered_json to_json(const PersistedState& s);
/// Parses a state file's JSON; nullopt and `problem` set when a field is missing or wrong.
std::optional<PersistedState> state_from_json(const nlohmann::ordered_json& j, std::string& problem);

/// Reads and writes the state file at one path.
class StateStore {
 public:
  explicit StateStore(std::filesystem::path path);

  /// What `load()` found.
  struct Loaded {
    std::optional<PersistedState> state;     ///< null: start from the seed state
    std::optional<std::string> set_aside;    ///< where a corrupt file was moved
    std::string problem;                     ///< why the file was not used ("" if it was, or was absent)
    bool keep_unchanged = false;             ///< unusable and could not be moved: do not write over it
  };

  /// Reads the file. Missing → no state, no problem. Unreadable, unparsable or of the wrong
  /// shape → renamed to "<name>.corrupt-<UTC time>" (bytes kept) and reported; if even the
  /// rename fails, `keep_unchanged` says the lab must not write over it. Never throws.
  /// `now` stamps the set-aside name.
  Loaded load(WallTime now);

  /// Replaces the file atomically with `content`. Returns "" or the error text.
  std::string write(const std::string& content);

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Writes the state in the background when told it may have changed: only if the
/// serialised content differs from what was last written, and at most once per
/// `min_interval`. `flush()` writes at once (used at shutdown).
class StateSaver {
 public:
  using Snapshot = std::function<PersistedState()>;
  using ErrorSink = std::function<void(const std::string&)>;

  StateSaver(StateStore& store, Snapshot snapshot, ErrorSink on_error,
             Millis min_interval = Millis(250));
  ~StateSaver();  // flushes

  /// The state may have changed; write it soon.
  void mark_dirty();
  /// Writes now if the content changed since the last write.
  void flush();
  /// Number of writes done (for tests and the log).
  std::size_t writes() const;

 private:
  void run();
  void write_if_changed();

  StateStore& store_;
  Snapshot snapshot_;
  ErrorSink on_error_;
  const Millis min_interval_;

  std::mutex write_mutex_;  // serialises write_if_changed; guards last_written_
  std::string last_written_;

  mutable std::mutex mutex_;  // guards dirty_, stopping_, writes_
  std::condition_variable wake_;
  bool dirty_ = false;
  bool stopping_ = false;
  std::size_t writes_ = 0;
  std::thread thread_;
};

}  // namespace quote_lab
