#pragma once
// The lab's persisted state (SPEC.md, "Persistence"): the carrier breaker and the
// fallback quotes in one JSON file, written atomically (temp file, fsync, rename, fsync
// of the folder), so a crash or kill -9 at any moment leaves the previous or the new
// file, never a torn one. A corrupt file is set aside with its bytes and reported.
//
// What the path may be, and what happens under faults:
// - A symlink is followed (a chain, relative targets from the link's folder): the target
//   is written atomically in its own folder, so the link stays a link and its target is
//   what gets updated.
// - Only a regular file or a folder at the path is set aside as corrupt. A character or
//   block device, a FIFO or a socket at the path (--state-file /dev/null) stops start-up
//   with a message naming the path and what it is, and is never renamed or written.
// - Temp files "<file>.tmp-<pid>" left by a crash during a save are removed at start-up.
// - A failed save (disk full, read-only or removed folder) keeps the state due: it is
//   retried 50 ms, 100 ms, ... up to every 500 ms until it succeeds, so the file catches
//   up within about half a second of the fault clearing. The OS reason of the last
//   failure is reported (/dependency/state `state_file_error`) until a save succeeds.
// - Every integer read from the file is range-checked before it is narrowed; a value out
//   of range makes the file corrupt (set aside, the field and range named in the log).
//
// File shape (version 1):
//   {"version": 1,
//    "breaker": {"state", "consecutive_failures", "opened_until": ISO|null, "open_events"},
//    "fallback": {"seeded_at": ISO, "quotes": [{"customer_id","items","quote","cached_at"}]},
//    "labs": {"ana": {"breaker": {...}, "fallback": {...}, "last_active": ISO}, ...},
//    "lab_keys": {"ana": KEY, ...}}
// "labs" (the student labs, `?lab=NAME`) and "lab_keys" (each owner's key, lab_keys.hpp in
// app/) are optional: files written before them load as they are. The keys are written
// with the labs, atomically like the rest, so a restart never locks a student out. A student lab keeps at most kMaxStudentPersistedQuotes cached quotes in the
// file, so that 60 labs stay a file of tens of KiB, rewritten at most 4 times a second.

#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "lab/base/clock.hpp"
#include "lab/resilience/circuit_breaker.hpp"
#include "lab/resilience/fallback_cache.hpp"

namespace quote_lab {

/// What survives a restart of one lab. Volatile counters (short circuits, last latency)
/// do not, so the file changes only when the breaker or the cached quotes do.
struct PersistedLab {
  BreakerRestore breaker;
  WallTime fallback_seeded_at{};
  std::vector<CachedQuote> fallback_quotes;
  /// The lab's class-challenge design as JSON text (app/lab_design.hpp's form, which the lab
  /// checks when it reads it back); empty: none.
  std::string design;
};

/// The newest cached quotes a student lab keeps in the file (the teacher's keeps all).
inline constexpr std::size_t kMaxStudentPersistedQuotes = 8;

/// A student lab in the file: its name (normalize_lab_name's form) and when it was last used
/// (wall time: idle labs expire across restarts too).
struct PersistedStudentLab : PersistedLab {
  std::string name;
  WallTime last_active{};
};

/// The longest lab key the file may hold (the lab hands out shorter ones; lab_keys.hpp).
inline constexpr std::size_t kMaxPersistedLabKeyLength = 64;

/// The students' part of the file: every student lab, and the key of each lab owner.
struct PersistedStudents {
  std::vector<PersistedStudentLab> labs;
  std::map<std::string, std::string> lab_keys;  ///< owner (a lab name's part before '-') → key
};

/// The whole file: the teacher's lab (the unnamed one), every student lab and the owners' keys.
struct PersistedState : PersistedLab, PersistedStudents {};

nlohmann::ordered_json to_json(const PersistedState& s);
/// Parses a state file's JSON; nullopt and `problem` set when a field is missing or wrong.
std::optional<PersistedState> state_from_json(const nlohmann::ordered_json& j, std::string& problem);

/// Thrown by `StateStore::load` at start-up when the path must not be touched at all: a
/// device, FIFO or socket, or a symlink loop. `what()` names the path and what it is.
class StateFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws StateFileError if `path` (its symlinks followed) is a device, FIFO or socket,
/// or a symlink loop: checked before any listener starts, so start-up stops at once and
/// `--check` reports it too. Touches nothing.
void check_state_path(const std::filesystem::path& path);

/// Reads and writes the state file at one path (following symlinks, see above).
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

  /// Reads the file (the symlink's target if it is one). Missing → no state, no problem.
  /// Unreadable, unparsable or of the wrong shape → renamed to "<name>.corrupt-<UTC time>"
  /// (bytes kept) and reported; if even the rename fails, `keep_unchanged` says the lab
  /// must not write over it. Throws StateFileError for a device, FIFO, socket or symlink
  /// loop (start-up only). `now` stamps the set-aside name.
  Loaded load(WallTime now);

  /// Replaces the file (the symlink's target) atomically with `content`: temp file in the
  /// target's folder, fsync, rename, fsync of the folder. Returns "" or the error text
  /// with the OS reason (e.g. "cannot write ...: No space left on device"). Never writes
  /// over a device, FIFO or socket.
  std::string write(const std::string& content);

  /// Removes "<file>.tmp-<digits>" regular files beside the file (temp files of saves
  /// that a crash interrupted) and returns how many. Called once at start-up, before any
  /// save; other names are left alone. Errors are ignored (nothing to lose).
  std::size_t remove_stale_temp_files();

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// First and longest wait before retrying a failed save.
inline constexpr Millis kSaveRetryFirst{50};
inline constexpr Millis kSaveRetryMax{500};

/// The wait after `failed_saves` (>= 1) failures in a row: 50 ms doubling, capped at
/// 500 ms — short enough that the file catches up within a second of the fault clearing,
/// long enough not to spin on a full disk.
Millis save_retry_delay(int failed_saves);

/// Writes the state in the background when told it may have changed: only if the
/// serialised content differs from what was last written, and at most once per
/// `min_interval`. A failed write keeps the state due and is retried after
/// `save_retry_delay`. `flush()` writes at once (used at shutdown).
class StateSaver {
 public:
  using Snapshot = std::function<PersistedState()>;
  /// Told once per failure episode, not per retry: `error` set on the first failed save
  /// (with `failed_saves` = 1); nullopt when a save succeeds again (with the number of
  /// saves that failed meanwhile). Runs on the saver's thread or the flushing one.
  using StatusSink = std::function<void(const std::optional<std::string>& error, int failed_saves)>;

  StateSaver(StateStore& store, Snapshot snapshot, StatusSink on_status,
             Millis min_interval = Millis(250));
  ~StateSaver();  // flushes (one attempt: shutdown does not wait for a full disk)

  /// The state may have changed; write it soon.
  void mark_dirty();
  /// Writes now if the content changed since the last write; false if the write failed
  /// (the state stays due and the background thread retries it).
  bool flush();
  /// Number of writes done (for tests and the log).
  std::size_t writes() const;
  /// Why the last save failed (the OS reason), or nullopt once a save has succeeded.
  std::optional<std::string> last_error() const;
  /// Saves that failed in a row (0 once one succeeds).
  int failed_saves() const;

 private:
  void run();
  bool write_if_changed();

  StateStore& store_;
  Snapshot snapshot_;
  StatusSink on_status_;
  const Millis min_interval_;

  std::mutex write_mutex_;  // serialises write_if_changed; guards last_written_
  std::string last_written_;

  mutable std::mutex mutex_;  // guards dirty_, stopping_, writes_, failed_saves_, last_error_
  std::condition_variable wake_;
  bool dirty_ = false;
  bool stopping_ = false;
  std::size_t writes_ = 0;
  int failed_saves_ = 0;  // in a row; 0 = the file holds what was last asked for
  std::optional<std::string> last_error_;
  std::thread thread_;
};

}  // namespace quote_lab
