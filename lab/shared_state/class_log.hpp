#pragma once
// One classroom across replicas (`--state-backend redis://…`): every replica appends what
// happens in a lab — a finished quote flow, a reset, a carrier mode, a storm's progress — to
// one Redis stream, and reads what the others append, so that each replica holds every lab
// of the class and a page, /diagnostics, /incidents or /class tells the same story whichever
// replica serves it. What an entry means is the app's business (app/class_events.hpp);
// this is the transport.
//
// Why a stream (XADD/XREAD) and not PUBLISH/SUBSCRIBE: a stream keeps the class's recent
// history, so a replica that starts late, or loses Redis for a while, catches up on what it
// missed instead of telling a different story for ever; pub/sub forgets whatever a replica
// was not connected for. The stream is capped (MAXLEN ~ kMaxEntries): what it no longer
// holds, a replica that starts takes from the labs' snapshots (Hooks, app/lab_snapshot.hpp).
//
// Cost: appending is off the request path (one publisher thread; a quote never waits for
// Redis to take its entry). Each replica asks for new entries every kPollEvery, so another
// replica's event reaches a page within about kPollEvery plus a round trip. While Redis is
// unreachable, entries wait here (up to kMaxPending, then the oldest are dropped and
// counted) and are appended once it answers again: the class converges after an outage.
// An XADD whose answer timed out is sent again, and Redis may have taken both: each entry
// carries its origin's sequence number, and a reader applies each (origin, sequence) once.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "lab/base/clock.hpp"
#include "lab/shared_state/redis_client.hpp"

namespace quote_lab {

class ClassLog {
 public:
  /// The stream's key: one per Redis database (one class per database).
  static constexpr const char* kStreamKey = "quote-lab:class-log";
  /// Entries kept in the stream (approximately: MAXLEN ~).
  static constexpr std::size_t kMaxEntries = 20000;
  /// Entries read per XREAD (a few hundred KB at most: well within one round trip's bound).
  static constexpr std::size_t kReadBatch = 128;
  /// The longest entry appended: longer ones (none the lab writes comes near) are dropped
  /// and counted, so no entry can make a read outlast the client's bound.
  static constexpr std::size_t kMaxEntryBytes = 256 * 1024;
  /// Entries waiting for Redis at most; beyond, the oldest is dropped.
  static constexpr std::size_t kMaxPending = 20000;
  /// How often each replica asks for new entries (and retries appending while Redis is away).
  static constexpr Millis kPollEvery{50};

  /// An entry read from the stream, with its stream id. `replay`: appended before this
  /// replica started reading (a page cannot be waiting for it; only the state it carries matters). `own`: this
  /// instance appended it (read back: it now has its place in the class's order).
  using Handler = std::function<void(const std::string& id, const std::string& entry, bool replay, bool own)>;

  /// What the reader runs besides applying entries, on its own thread (so that nothing is
  /// applied meanwhile).
  struct Hooks {
    /// Before the first read (the replay): false when Redis did not answer, and it is
    /// asked again before anything is read. Nothing this replica queued is appended until
    /// it returned true: what it installs (the labs' snapshots another replica wrote) can
    /// then never already hold this replica's own entries, which it counted when it made them.
    std::function<bool()> before_replay{};
    /// After each read once caught up, with the reader's position: the stream id of the last
    /// entry read ("0": none). Runs every kPollEvery or so; it paces itself.
    std::function<void(const std::string& position)> between_reads{};
  };

  /// What the stream holds and has dropped (XINFO STREAM).
  struct StreamInfo {
    std::uint64_t length = 0;   ///< entries held
    std::uint64_t trimmed = 0;  ///< entries appended and no longer held (MAXLEN)
    std::string first_id{};     ///< the oldest held ("" none)
    std::string last_id{};      ///< the last appended, held or not ("" none)
  };
  /// nullopt when Redis did not answer; all zero when there is no stream yet.
  std::optional<StreamInfo> info();

  /// Whether stream id `a` ("MS-SEQ") comes before `b` in the stream.
  static bool before(const std::string& a, const std::string& b);
  /// When Redis appended the entry with stream id `id` (its MS part, Redis's clock); the
  /// epoch for an id that is not one.
  static WallTime appended_at(const std::string& id);

  /// `redis` is not owned and outlives the log. `instance` names this process in the
  /// stream (its own entries are not handed back to it): unique per process, not per
  /// replica name, so that a replica that restarts replays what it appended before.
  ClassLog(RedisClient& redis, std::string instance);
  /// stop().
  ~ClassLog();
  ClassLog(const ClassLog&) = delete;
  ClassLog& operator=(const ClassLog&) = delete;

  /// Starts the reader (which first replays the stream's retained entries, then follows
  /// it) and the publisher. `handler` runs on the reader's thread, one entry at a time,
  /// in stream order.
  void start(Handler handler, Hooks hooks);
  void start(Handler handler);
  /// Stops both threads; entries still waiting are not appended. Idempotent.
  void stop();

  /// Queues `entry` for the other replicas. Never blocks on Redis.
  void append(std::string entry);
  /// Queues `entry` behind what this replica queued before and waits up to `bound` for Redis
  /// to take it: returns its stream id, its place in the class's order (a setting applied
  /// here at once must not be undone by an older entry read later). nullopt when Redis did
  /// not take it in time; the entry stays queued.
  std::optional<std::string> append_in_order(std::string entry, Millis bound);

  /// True once the reader has read everything the stream held when it started.
  bool caught_up() const { return caught_up_.load(); }
  /// The stream id of the last entry the reader has applied ("0": none yet): with info()'s
  /// last_id, whether this replica has read everything the class appended.
  std::string position() const;
  /// Entries appended to Redis, read from other replicas, and dropped (kMaxPending).
  std::uint64_t appended() const { return appended_.load(); }
  std::uint64_t received() const { return received_.load(); }
  std::uint64_t dropped() const { return dropped_.load(); }
  /// Entries waiting for Redis now.
  std::size_t pending() const;

 private:
  void read_loop(std::stop_token stop);
  void publish_loop(std::stop_token stop);
  void allow_publishing();
  // Reads one batch after last_id_; returns how many entries it read, -1 if Redis did not answer.
  long read_batch();

  RedisClient& redis_;
  const std::string instance_;
  Handler handler_;
  Hooks hooks_;
  std::string last_id_ = "0";  // the reader's position (reader thread only)
  std::string replay_through_ = "0";  // the stream's last entry when the reader started (reader thread only)
  mutable std::mutex position_mutex_;
  std::string position_ = "0";  // last_id_ once its batch is applied; guarded by position_mutex_
  std::map<std::string, std::uint64_t> last_sequence_;  // per origin, the last entry read (reader thread only)
  std::uint64_t next_sequence_ = 0;  // guarded by mutex_
  std::atomic<bool> caught_up_{false};
  std::atomic<std::uint64_t> appended_{0}, received_{0}, dropped_{0};

  struct Pending {
    std::string entry;
    std::shared_ptr<std::promise<std::string>> id;  // set by append_in_order
    std::uint64_t sequence = 0;  // this instance's count: a retried XADD that Redis took twice is read once
  };
  void push(Pending p);

  mutable std::mutex mutex_;  // guards pending_ and publishing_
  std::condition_variable_any wake_publisher_;
  std::deque<Pending> pending_;
  bool publishing_ = false;  // before_replay has returned true (or there is none)

  std::jthread reader_, publisher_;
};

}  // namespace quote_lab
