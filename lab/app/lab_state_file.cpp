#include "lab/app/lab_state_file.hpp"

#include <spdlog/spdlog.h>

#include <utility>

namespace quote_lab {

LabStateFile::LabStateFile(std::filesystem::path path, const Clock& clock)
    : path_(path.string()), store_(std::move(path)) {
  auto loaded = store_.load(clock.wall_now());
  if (const std::size_t removed = store_.remove_stale_temp_files(); removed > 0)
    spdlog::info("removed {} temp file(s) left beside {} by a save that a crash interrupted", removed, path_);
  if (loaded.set_aside) {
    set_aside_ = loaded.set_aside;
    spdlog::error("state file {} is unusable ({}); set aside as {}; starting from the seed state", path_,
                  loaded.problem, *loaded.set_aside);
  } else if (!loaded.problem.empty()) {
    spdlog::error("state file {}: {}; starting from the seed state", path_, loaded.problem);
  }
  if (loaded.keep_unchanged) {
    unusable_ = "the state file " + loaded.problem + "; the lab will not overwrite it, so nothing is saved";
    spdlog::error("{}", unusable_);
  }
  loaded_ = std::move(loaded.state);
}

LabStateFile::~LabStateFile() {
  saver_.reset();  // joins its thread and writes the last state
}

std::optional<PersistedState> LabStateFile::take_loaded() { return std::exchange(loaded_, std::nullopt); }

void LabStateFile::start(StateSaver::Snapshot gather) {
  if (!unusable_.empty()) return;  // no saver: the unreadable file stays as it is
  // Logged once per episode: a full disk retried every 500 ms must not flood the log.
  saver_ = std::make_unique<StateSaver>(store_, std::move(gather),
                                        [this](const std::optional<std::string>& error, int failed_saves) {
                                          if (error)
                                            spdlog::error("cannot save state to {}: {}; retrying until it works "
                                                          "(shown in /dependency/state as state_file_error)",
                                                          path_, *error);
                                          else
                                            spdlog::info("state saved to {} again after {} failed attempt(s)", path_,
                                                         failed_saves);
                                        });
  saver_->mark_dirty();
}

void LabStateFile::changed() {
  if (saver_) saver_->mark_dirty();
}

void LabStateFile::flush() {
  if (saver_) saver_->flush();
}

LabStateFile::Health LabStateFile::health() const {
  Health h{path_, set_aside_, saver_ ? saver_->last_error() : std::nullopt};
  // SPEC: null, or why the last save failed; a file the lab may not overwrite says so for good.
  if (!unusable_.empty()) h.error = unusable_;
  return h;
}

}  // namespace quote_lab
