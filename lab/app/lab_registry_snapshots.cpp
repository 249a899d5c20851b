// The registry's side of the labs' snapshots (lab_snapshot.hpp): installing them before the
// class log's replay, writing them while it runs, and telling when a lab's story is short.
// Everything here runs on the class log's reader thread.
#include <spdlog/spdlog.h>

#include "lab/app/lab_registry.hpp"

namespace quote_lab {

void LabRegistry::start_class_log() {
  if (!deps_.class_log || !deps_.shared_state) return;
  snapshots_ = std::make_unique<RedisLabSnapshots>(*deps_.shared_state);
  deps_.class_log->start(
      [this](const std::string& id, const std::string& e, bool replay, bool own) { apply(id, e, replay, own); },
      {.before_replay = [this] { return install_snapshots(); },
       .between_reads = [this](const std::string& position) {
         rejoin_shared_breakers();
         write_snapshots(position);
       }});
}

bool LabRegistry::install_snapshots() {
  const auto info = deps_.class_log->info();
  const auto stored = info ? snapshots_->positions() : std::nullopt;
  if (!stored) return false;  // Redis away: asked again before the replay
  history_ = *info;
  std::size_t installed = 0;
  for (const auto& [name, position] : *stored) {
    const auto text = snapshots_->read(name);
    if (!text) continue;
    try {
      const LabSnapshot s = decode_lab_snapshot(*text);
      if (s.lab != name) throw std::invalid_argument("it names lab '" + s.lab + "'");
      bool created = false;
      const WallTime last_active = s.last_entry.empty() ? deps_.clock.wall_now() : ClassLog::appended_at(s.last_entry);
      const auto lab = name.empty() ? teacher_ : lab_from_log(name, last_active, created);
      lab->app.install(s);
      replayed_.insert(name);
      ++installed;
      // The stored position: the lab is in its snapshot up to there (a writer moves it on while
      // the lab does not change). The stream kept every entry after it unless it dropped the
      // one it stands at and some after it.
      const bool complete = history_.trimmed == 0 ||
                            (!history_.first_id.empty() && !ClassLog::before(position, history_.first_id)) ||
                            (history_.length == 0 && position == history_.last_id);
      if (!complete) {
        lab->app.class_order().mark_history_incomplete();
        spdlog::warn("class log: lab '{}' may miss entries: its snapshot stands at {}, the stream now starts at {}",
                     name, s.through, history_.first_id);
      }
    } catch (const std::invalid_argument& ex) {
      spdlog::warn("class log: the snapshot of lab '{}' is ignored: {}", name, ex.what());
    }
  }
  if (installed > 0) spdlog::info("class log: {} lab(s) started from their snapshots", installed);
  return true;
}

void LabRegistry::check_history(const std::string& lab_name, Lab& lab, const ClassEvent& e) {
  if (!replayed_.insert(lab_name).second) return;
  // A lab whose first entry here is its creation (or a reset, which erases what came
  // before) lost nothing; any other first entry, in a stream that dropped some, may follow
  // entries of the lab no longer held.
  if (history_.trimmed == 0 || e.type == "lab_created" || e.type == "reset") return;
  lab.app.class_order().mark_history_incomplete();
  spdlog::warn("class log: lab '{}' may miss entries: the stream dropped {} before {} and no snapshot covers them",
               lab_name, history_.trimmed, history_.first_id);
}

void LabRegistry::rejoin_shared_breakers() {
  // Only after Redis (re)connected: holding every lab here each round would read as labs in
  // use to expire_idle(), and nothing is due while the connection stays the same.
  const std::uint64_t epoch = deps_.shared_state->epoch();
  if (epoch == rejoined_epoch_) return;
  rejoined_epoch_ = epoch;
  teacher_->app.rejoin_shared_breaker();
  for (const auto& [_, lab] : student_labs()) lab->app.rejoin_shared_breaker();
}

void LabRegistry::write_snapshots(const std::string& position) {
  const SteadyTime now = deps_.clock.now();
  if (position == "0" || now < next_snapshots_) return;
  next_snapshots_ = now + kSnapshotEvery;
  // Own entries still on their way to Redis would be in a snapshot and after its position.
  if (deps_.class_log->pending() > 0) return;
  const auto stored = snapshots_->positions();
  if (!stored) return;
  auto labs = student_labs();
  labs.emplace_back("", teacher_);
  std::vector<RedisLabSnapshots::Advance> unchanged;
  for (const auto& [name, lab] : labs) {
    const std::string last = lab->app.class_order().last_entry();
    if (last.empty()) continue;  // nothing of it went through the log
    if (const auto it = stored->find(name); it != stored->end() && !ClassLog::before(it->second, last)) {
      // Its snapshot holds it; it holds it up to here too, since the lab has not changed.
      if (ClassLog::before(it->second, position) && !lab->app.class_order().history_incomplete())
        unchanged.push_back({name, it->second, position});
      continue;
    }
    nlohmann::ordered_json storm = lab->storm.status();
    if (storm["running"] != true && storm["last_result"].is_null()) storm = nullptr;
    const auto snapshot = lab->app.snapshot(position, storm);
    if (!snapshot) continue;  // not settled here: another round, or another replica
    const std::string text = encode_lab_snapshot(*snapshot);
    if (text.size() > kMaxSnapshotBytes) {
      spdlog::warn("class log: lab '{}''s snapshot ({} bytes) is not written (at most {})", name, text.size(),
                   kMaxSnapshotBytes);
      continue;
    }
    snapshots_->write(name, position, text);
  }
  snapshots_->advance(unchanged);
}

}  // namespace quote_lab
