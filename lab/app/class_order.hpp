#pragma once
// One lab's place in the class log (shared_state/class_log.hpp), on one replica: what it has
// read of the log and where the settings made here stand in the class's order, so that every
// replica ends the same whatever order the entries reach it in. A reset or a carrier mode
// made here raises a barrier at its place; an older entry of another replica read after it
// is ignored (what it changed came before the setting). It also keeps the storm another
// replica runs for this lab, and the place of the storm this replica started last.
// Thread-safe; what it decides, LabApp applies.

#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "lab/app/class_events.hpp"

namespace quote_lab {

class ClassOrder {
 public:
  /// A setting made here took place `id` in the class's order (a reset when `reset`, else a
  /// carrier mode; a reset sets the mode too): older entries of other replicas are ignored
  /// from now on.
  void placed(bool reset, const std::string& id);
  /// This replica's own entry `id` read back: the last entry read. True when it is a setting
  /// (`setting`; a reset when `reset`) whose place was not known when it was made (Redis was
  /// slow or away): what other replicas did before it was applied here meanwhile, so the
  /// setting must be applied again where the class's order put it, then placed().
  bool read_back(bool setting, bool reset, const std::string& id);

  /// How to take entry `id` of another replica (a carrier mode when `carrier_mode`).
  enum class Take {
    ignore,              ///< in the installed snapshot, older than a reset made here, or a mode older than one made here
    apply,               ///< apply it
    apply_keeping_mode,  ///< a reset older than a mode made here: reset, but keep this lab's mode
  };
  /// The verdict for `id`; it becomes the last entry read unless the installed snapshot held it.
  Take take(const std::string& id, bool carrier_mode);

  /// What a snapshot of this lab through `through` holds of the order.
  struct Position {
    std::string last_entry;        ///< the last entry read here
    nlohmann::ordered_json storm;  ///< the storm it shows
  };
  /// The position through `through`, with `storm` (the storm this replica runs) or, when null,
  /// the one another replica runs; nullopt when a snapshot would be wrong: this lab's history
  /// here is incomplete, or a setting made here stands after `through`.
  std::optional<Position> position_through(const std::string& through, const nlohmann::ordered_json& storm) const;
  /// A snapshot through `through` was installed, with its last entry and storm: entries up to
  /// `through` are in it, and the history is complete again.
  void installed(const std::string& through, const std::string& last_entry, nlohmann::ordered_json storm);
  /// The lab was reset: no storm of another replica, and nothing before counts.
  void reset();

  /// The stream id of this lab's last entry applied or read back ("" none): a snapshot at or
  /// after it holds everything the lab did.
  std::string last_entry() const;
  /// Entries of this lab left the class log before this replica read them and no snapshot
  /// covered them: its story here may be short, so this replica writes no snapshot of it (it
  /// would spread the gap) until the lab's next reset or install.
  void mark_history_incomplete();
  bool history_incomplete() const;

  /// The storm another replica runs for this lab, as the status GET /experiments/storm shows
  /// (null: none seen).
  nlohmann::ordered_json remote_storm() const;
  /// Follows a `storm_*` entry of another replica.
  void follow_remote_storm(const ClassEvent& e);
  /// Places the start of a storm here: `place` appends it to the log and returns its stream id
  /// (nullopt: its place is unknown); a reader asking storm_started_before meanwhile waits.
  void place_storm_start(const std::function<std::optional<std::string>()>& place);
  /// Whether the storm started here last (running or not) stands before `id` in the class's
  /// order (a cancel or reset at `id` then stops it); true when its place is unknown.
  bool storm_started_before(const std::string& id) const;

 private:
  mutable std::mutex mutex_;
  // Stream ids ("": none) of the last reset made here, and of the last reset or carrier mode
  // made here.
  std::string reset_barrier_, mode_barrier_;
  std::string installed_through_;  // the installed snapshot's position ("" none)
  std::string last_entry_;
  bool history_incomplete_ = false;
  nlohmann::ordered_json remote_storm_;
  // Held while a start is being placed: a reader judges a cancel only once it is known.
  mutable std::mutex storm_mutex_;
  std::string storm_started_;  // "": none; "0": its place is unknown
};

}  // namespace quote_lab
