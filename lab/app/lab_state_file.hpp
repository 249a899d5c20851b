#pragma once
// The class's state file (SPEC.md, "State file"): one file for the teacher's lab, every
// student lab and the lab owners' keys. The registry owns it: it loads the file once at
// start-up, then writes what the registry gathers from every lab, behind the requests (at
// most every 250 ms, StateSaver). A lab only says "what I persist changed" (changed()) and
// shows the file's health in /dependency/state (health()).

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "lab/base/clock.hpp"
#include "lab/persistence/state_store.hpp"

namespace quote_lab {

class LabStateFile {
 public:
  /// What /dependency/state says of the file.
  struct Health {
    std::string path;
    std::optional<std::string> set_aside;  ///< where a corrupt file was moved at start-up
    std::optional<std::string> error;      ///< null, or why the last save failed (or why none is made)
  };

  /// Loads `path`: a corrupt file is set aside and logged, temp files a crashed save left
  /// beside it are removed. Throws StateFileError when the path is a device, FIFO or socket
  /// (start-up stops; the path is left untouched).
  LabStateFile(std::filesystem::path path, const Clock& clock);
  /// Writes the state one last time (one attempt).
  ~LabStateFile();
  LabStateFile(const LabStateFile&) = delete;
  LabStateFile& operator=(const LabStateFile&) = delete;

  /// What the file held at start-up, handed over once (later calls return nothing).
  std::optional<PersistedState> take_loaded();
  /// Starts writing `gather()`'s state whenever changed() was called. Not started when the
  /// file was unusable and could not be moved: the lab never writes over it.
  void start(StateSaver::Snapshot gather);
  /// What the file holds may have changed: write it soon. Thread-safe; nothing before start().
  void changed();
  /// Writes now if the content changed (a key handed out is on disk before its owner reads it).
  void flush();
  Health health() const;

 private:
  const std::string path_;
  StateStore store_;
  std::optional<PersistedState> loaded_;
  std::optional<std::string> set_aside_;
  std::string unusable_;  // set when the file can be neither used nor moved: nothing is saved
  std::unique_ptr<StateSaver> saver_;  // null until start(), and for good when unusable_
};

}  // namespace quote_lab
