#pragma once
// The lab per student (SPEC.md last section): `?lab=NAME` selects a named lab with its
// own breaker, fallback cache, telemetry, carrier mode and storm; no `lab` is the teacher's
// lab, the one a lone user works in. This registry is their one owner: it creates a lab on
// first use (bounded by --max-labs), forgets labs idle for --lab-idle-minutes, and owns the
// class's state file (lab_state_file.hpp): it starts each lab from what the file holds and
// writes every lab's breaker and fallback quotes and the owners' keys into it. All labs share the one
// carrier (its capacity is the class's, like a real dependency's) and the worker slots.
//
// Metrics: each lab keeps its own families (/metrics?lab=NAME, /metrics-prometheus?lab=NAME),
// but the default Prometheus scrape is the teacher's lab alone. A `lab` label would
// multiply every series by the class size (60 labs x ~500 series) and leave a series behind for
// every name a student ever typed; the class as a whole is read at GET /class instead.

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lab/app/class_ranking.hpp"
#include "lab/app/lab_app.hpp"
#include "lab/app/lab_keys.hpp"
#include "lab/base/lab_name.hpp"
#include "lab/app/lab_state_file.hpp"
#include "lab/app/options.hpp"
#include "lab/experiments/storm_experiment.hpp"
#include "lab/http/params.hpp"
#include "lab/http/worker_slots.hpp"
#include "lab/shared_state/redis_lab_snapshots.hpp"
#include "lab/shared_state/redis_storm_leases.hpp"
#include <set>

namespace quote_lab {

/// Bounds of the student labs (`serve --max-labs`, `--lab-idle-minutes`).
struct LabLimits {
  std::size_t max_labs = static_cast<std::size_t>(kDefaultMaxLabs);  ///< student labs; the teacher's not counted
  std::chrono::minutes idle_expiry{kDefaultLabIdleMinutes};
  std::string teacher_name = kDefaultTeacherName;  ///< the owner of the teacher's named labs (--teacher-name)
  int workers = kDefaultWorkers;  ///< each lab's worker slots (--workers): quotes and /health it serves at once
};

/// Student storms (POST /experiments/storm?lab=NAME) running at once, class-wide: each is up
/// to 100 clients on the one shared carrier and the shared --workers; a class that starts
/// 30 at once would only queue behind each other on a 2-core machine.
inline constexpr std::size_t kMaxStudentStorms = 4;

/// One lab, the storm it runs against itself and its own worker slots.
struct Lab {
  Lab(LabDeps deps, int workers) : slots(workers), app(std::move(deps)), storm(app.events()) {}
  /// The quotes (and /health) this lab serves at once (--workers): a bulkhead, so that its
  /// storm or its legacy retries queue its own requests, never another lab's.
  WorkerSlots slots;
  LabApp app;
  StormExperiment storm;  // after app: destroyed (its storm stopped) first
};

/// Puts a lab back to its seeds as /reset-lab does: stops its storm and forgets the storm's
/// result, then resets telemetry, metrics, breaker, fallback cache and carrier mode.
void reset_lab(LabApp& app, StormExperiment& storm);

/// Owns the teacher's lab and every student lab. Thread-safe: one mutex guards the map of
/// student labs and their last use; each lab guards its own state.
class LabRegistry {
 public:
  /// Loads `state_file` (LabStateFile), then creates the teacher's lab from `teacher` and the
  /// student labs the file holds, each starting from its saved breaker and fallback quotes,
  /// except those idle past `limits.idle_expiry` (by wall time: the idle time goes on while
  /// the lab is down) and those beyond `limits.max_labs`, with the keys of the owners of the
  /// labs kept. Lab keys are drawn from `key_random` (null: the lab's own random source;
  /// `serve` gives keys a source of their own, so that `--seed` neither makes them
  /// predictable nor shifts the lab's seeded draws). Throws StateFileError as LabStateFile.
  LabRegistry(LabDeps teacher, const std::filesystem::path& state_file, LabLimits limits,
              RandomSource* key_random = nullptr);
  /// Stops every storm, then writes the state file one last time.
  ~LabRegistry();
  LabRegistry(const LabRegistry&) = delete;
  LabRegistry& operator=(const LabRegistry&) = delete;

  /// What find() answers: the lab, or why there is none — a name normalize_lab_name refuses
  /// (`bad_name`, the route's 400), or --max-labs student labs already exist (its 503).
  struct Found {
    std::shared_ptr<Lab> lab;
    LabNameProblem bad_name = LabNameProblem::none;
    bool too_many_labs = false;
  };
  /// The lab `raw_name` names (null: the teacher's), created on first use and marked used
  /// now. Names are normalised (normalize_lab_name: "Ana" is "ana"). Labs idle past the
  /// expiry are forgotten first. Hold the pointer while using the lab: a lab in use is
  /// never forgotten.
  Found find(const std::string* raw_name);
  /// The teacher's lab.
  Lab& teacher() { return *teacher_; }

  /// Applies an entry another replica appended to the class log (class_events.hpp): to the
  /// lab it names, created here when this replica has not seen it yet (the replica that
  /// created it checked --max-labs against the whole class, which every replica holds). A
  /// reset also stops the lab's storm if it runs here. Throws std::invalid_argument for an
  /// entry that is not a class event (ClassLog logs it and reads on).
  /// `own`: this replica's entry read back (LabApp::settle).
  void apply(const std::string& stream_id, const std::string& entry, bool replay, bool own);

  /// With a class log (LabDeps::class_log): starts it, applying what the other replicas
  /// append (apply()), and keeps the labs' snapshots in Redis (lab_snapshot.hpp): before it
  /// replays the stream, this replica starts each lab from its stored snapshot, and every
  /// kSnapshotEvery it writes the snapshots of the labs that changed since theirs.
  void start_class_log();
  static constexpr Millis kSnapshotEvery{1000};
  /// A snapshot longer than this is not written (logged): it would hold up every replica's
  /// reader. A lesson's lab is a few KB; the telemetry's bounds keep any lab under ~5 MB.
  static constexpr std::size_t kMaxSnapshotBytes = 8 * 1024 * 1024;

  /// Every lab owner's key (lab_keys.hpp).
  LabKeys& keys() { return keys_; }
  /// Claims the name `owner` (normalised) when nobody has: returns the new key, already
  /// written to the state file (a key handed out survives a crash), or nullopt when the name
  /// has one. Labs idle past the expiry are forgotten first (expire_idle()), so a name whose
  /// labs all were is free.
  std::optional<std::string> claim_key(const std::string& owner);
  /// A new key for `owner` (the teacher's), written to the state file before it is returned.
  std::string reissue_key(const std::string& owner);

  /// Every student lab (not the teacher's), in leaderboard order: labs with at least
  /// kMinRankedRequests requests first, each with its place, fewest carrier calls per request
  /// first (then more requests, then name); the others after, most requests first.
  std::vector<ClassRow> class_rows();
  /// The same rows added up per student (the name that owns them: lab_keys.hpp), ranked alike:
  /// what a student did across the lesson's labs, for the class's closing.
  std::vector<StudentRow> class_students(const std::vector<ClassRow>& rows) const;
  /// The name that owns student lab `lab`: its claimed owner this replica knows, else the
  /// name's part before its first '-' (as class_students() adds labs up).
  std::string owner_of(const std::string& lab) const;
  /// The class challenge's designs (LabApp::design) of every student lab held, ranked
  /// (rank_designs), each with its owner as class_students names them.
  std::vector<DesignRow> class_designs();
  /// Forgets student labs idle past the expiry that nothing holds and that run no storm;
  /// returns how many. find(), claim_key() and class_rows() call it.
  std::size_t expire_idle();
  /// Class-wide teacher actions (POST /class/reset, /class/carrier-mode): each student lab
  /// held now, reset (reset_lab) or set to carrier mode `mode` (a name or alias the
  /// scenario catalog knows: check it first). The teacher's labs are left alone. Return the
  /// names of the labs acted on, in name order.
  std::vector<std::string> reset_students();
  std::vector<std::string> set_students_carrier_mode(const std::string& mode);
  /// Student labs whose storm is running now, on this replica.
  std::size_t running_student_storms() const;
  /// Whether `lab` may start a storm of `duration_s` now: one storm per lab and at most
  /// kMaxStudentStorms student storms at once, over the whole fleet with Redis (the lease is
  /// taken: RedisStormLeases), else (or while Redis cannot answer) on this replica.
  enum class StormVerdict { go, lab_busy, class_full };
  /// `lab`: the lab's name ("" for the teacher's); `storm`: its storm on this replica.
  /// `teacher_asked`: the request carries the teacher's token; like a storm in the teacher's
  /// own labs, it is admitted whatever the student cap (its lease starts with '_', which the
  /// lease script leaves out of the class's count).
  StormVerdict admit_storm(const std::string& lab, const StormExperiment& storm, int duration_s,
                           bool teacher_asked = false);
  /// The storm admitted for `lab` did not start, or stopped early (a reset): its lease goes back.
  void storm_ended(const std::string& lab);
  /// Student labs held now (the teacher's named labs not counted).
  std::size_t student_count() const;
  /// Whether `lab` (a normalised name; "" the unnamed one) is the teacher's: the unnamed lab
  /// and every lab of LabLimits::teacher_name. They count toward no student limit (--max-labs,
  /// kMaxStudentStorms) and class-wide actions leave them alone.
  bool teachers(const std::string& lab) const;
  const LabLimits& limits() const { return limits_; }

  /// The lab's own address, for the storms every lab runs against itself.
  void set_self_url(const std::string& url);
  /// Shutdown has begun for every lab (LabApp::begin_shutdown), their event streams end and
  /// their storms stop sending.
  void begin_shutdown();
  /// Waits for every storm's thread.
  void wait_for_storms();
  /// Writes the state file now if it changed.
  void flush_state() { state_file_->flush(); }

 private:
  struct Entry {
    std::shared_ptr<Lab> lab;
    WallTime last_active{};
  };
  std::shared_ptr<Lab> make_student_lab(const std::string& name, std::optional<PersistedLab> restored = {});
  // Every lab's state and the owners' keys, as the file keeps them (the saver's thread).
  PersistedState persisted_state();
  void forget_unused_keys_locked(const std::vector<std::shared_ptr<Lab>>& expired);
  std::vector<std::shared_ptr<Lab>> expire_idle_locked(WallTime now);
  std::size_t student_count_locked() const;
  std::vector<std::shared_ptr<Lab>> all_labs() const;
  // The lab called `name` if held ("" : the teacher's), without creating or touching it.
  std::shared_ptr<Lab> held(const std::string& name) const;
  std::vector<std::pair<std::string, std::shared_ptr<Lab>>> student_labs() const;
  // The class log's hooks (lab_registry_snapshots.cpp), on its reader's thread.
  bool install_snapshots();
  void write_snapshots(const std::string& position);
  // Each lab's shared breaker seeds a Redis that came back (LabApp::rejoin_shared_breaker).
  void rejoin_shared_breakers();
  // The student lab `name` (a name from Redis: checked), created if not held.
  std::shared_ptr<Lab> lab_from_log(const std::string& name, WallTime last_active, bool& created);
  // A lab replayed at start whose first entry here is `e`: its history is short here when
  // the stream dropped entries of it that no snapshot covers.
  void check_history(const std::string& lab_name, Lab& lab, const ClassEvent& e);

  std::unique_ptr<LabStateFile> state_file_;  // first: every lab points to it
  std::unique_ptr<RedisStormLeases> storm_leases_;  // with Redis; else null
  LabDeps deps_;  // the teacher's, copied for each student lab
  const LabLimits limits_;
  mutable std::mutex mutex_;  // guards students_ and self_url_
  std::map<std::string, Entry> students_;
  std::string self_url_;
  LabKeys keys_;
  std::shared_ptr<Lab> teacher_;

  // The class log's reader thread only.
  std::unique_ptr<RedisLabSnapshots> snapshots_;  // with a class log; else null
  SteadyTime next_snapshots_{};
  ClassLog::StreamInfo history_{};     // the stream as it stood before the replay
  std::uint64_t rejoined_epoch_ = 0;   // the Redis connection the shared breakers last rejoined on
  std::set<std::string> replayed_;     // labs whose history check is done
};

}  // namespace quote_lab
