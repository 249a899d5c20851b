#include "lab/app/lab_registry.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <tuple>

#include "lab/base/lab_name.hpp"

namespace quote_lab {



LabRegistry::LabRegistry(LabDeps teacher, const std::filesystem::path& state_file, LabLimits limits,
                         RandomSource* key_random)
    : state_file_(std::make_unique<LabStateFile>(state_file, teacher.clock)),
      storm_leases_(teacher.shared_state ? std::make_unique<RedisStormLeases>(*teacher.shared_state) : nullptr),
      deps_(teacher),
      limits_(limits),
      keys_(key_random ? *key_random : teacher.random, teacher.clock, teacher.shared_state, limits.idle_expiry) {
  // Student labs keep their own carrier mode; the teacher's is the class's carrier's.
  deps_.lab_name.clear();
  deps_.mode_carrier = nullptr;
  deps_.state_file = state_file_.get();
  deps_.restored.reset();
  std::optional<PersistedState> loaded = state_file_->take_loaded();
  LabDeps teacher_deps = deps_;
  teacher_deps.mode_carrier = teacher.embedded_carrier;
  if (loaded) teacher_deps.restored = static_cast<const PersistedLab&>(*loaded);
  teacher_ = std::make_shared<Lab>(std::move(teacher_deps), limits_.workers);
  teacher_->storm.set_on_ended([this] { storm_ended(""); });
  if (loaded) {
    const auto breaker = teacher_->app.persisted_lab().breaker;
    spdlog::info("resumed state from {}: breaker {}, {} cached quote(s), {} student lab(s)", state_file.string(),
                 to_string(breaker.state), loaded->fallback_quotes.size(), loaded->labs.size());
  }
  const WallTime now = deps_.clock.wall_now();
  std::size_t dropped = 0, keys_dropped = 0;
  {
    std::lock_guard lock(mutex_);
    for (auto& saved : loaded ? loaded->labs : std::vector<PersistedStudentLab>{}) {
      if (now - saved.last_active > limits_.idle_expiry ||
          (!teachers(saved.name) && student_count_locked() >= limits_.max_labs)) {
        ++dropped;
        continue;
      }
      students_[saved.name] = Entry{make_student_lab(saved.name, static_cast<const PersistedLab&>(saved)),
                                    saved.last_active};
    }
    // Every claimed name's key: a claim is kept whether or not its labs exist yet (a student
    // claims at step 0, before any lab). Names whose labs were all forgotten were given back.
    std::map<std::string, std::string> kept;
    for (const auto& [owner, key] : loaded ? loaded->lab_keys : std::map<std::string, std::string>{}) {
      if (well_formed_lab_key(key)) kept.emplace(owner, key);
      else ++keys_dropped;
    }
    keys_.restore(kept);
  }
  if (!students_.empty() || dropped > 0)
    spdlog::info("resumed {} student lab(s) from the state file; {} idle or beyond --max-labs forgotten",
                 students_.size(), dropped);
  // Every lab exists: from now on the file is written from them (at once, then on changes).
  state_file_->start([this] { return persisted_state(); });
  if (dropped > 0 || keys_dropped > 0) state_file_->changed();
}

LabRegistry::~LabRegistry() {
  // Storms first (they call the lab over HTTP and publish to its page), then the last save,
  // which reads every lab.
  for (const auto& lab : all_labs()) lab->storm.cancel();
  wait_for_storms();
  state_file_.reset();
  std::lock_guard lock(mutex_);
  students_.clear();
}

std::shared_ptr<Lab> LabRegistry::make_student_lab(const std::string& name, std::optional<PersistedLab> restored) {
  LabDeps d = deps_;
  d.lab_name = name;
  d.restored = std::move(restored);
  auto lab = std::make_shared<Lab>(std::move(d), limits_.workers);
  if (!self_url_.empty()) lab->storm.set_self_url(self_url_);
  lab->storm.set_on_ended([this, name] { storm_ended(name); });
  return lab;
}

LabRegistry::Found LabRegistry::find(const std::string* raw_name) {
  if (raw_name == nullptr) return {.lab = teacher_};
  LabNameProblem problem = LabNameProblem::none;
  const auto name = normalize_lab_name(*raw_name, problem);
  if (!name) return {.lab = nullptr, .bad_name = problem};
  const WallTime now = deps_.clock.wall_now();
  std::vector<std::shared_ptr<Lab>> expired;  // destroyed after the lock is released
  std::shared_ptr<Lab> lab;
  bool created = false;
  {
    std::lock_guard lock(mutex_);
    expired = expire_idle_locked(now);
    if (const auto it = students_.find(*name); it != students_.end()) {
      it->second.last_active = now;
      lab = it->second.lab;
    } else if (!teachers(*name) && student_count_locked() >= limits_.max_labs) {
      return {.lab = nullptr, .too_many_labs = true};
    } else {
      lab = make_student_lab(*name);
      students_[*name] = Entry{lab, now};
      created = true;
    }
  }
  if (created) {
    spdlog::info("student lab {} created ({} of at most {})", *name, student_count(), limits_.max_labs);
    if (deps_.class_log) deps_.class_log->append(encode_class_event({.lab = *name, .type = "lab_created", .line = "{}"}));
  }
  keys_.touch(*name);
  if (created || !expired.empty()) state_file_->changed();
  return {.lab = lab};
}

void LabRegistry::apply(const std::string& stream_id, const std::string& entry, bool replay, bool own) {
  const ClassEvent e = decode_class_event(entry);
  if (own) {
    if (const auto lab = held(e.lab)) lab->app.settle(e, stream_id);
    return;
  }
  std::shared_ptr<Lab> lab = teacher_;
  bool created = false;
  // Replayed at start: the lab was last active when the entry was appended (the stream id's
  // Redis time), not now, so labs the class forgot are not held here for another idle period.
  if (!e.lab.empty()) lab = lab_from_log(e.lab, replay ? ClassLog::appended_at(stream_id) : deps_.clock.wall_now(), created);
  if (created) state_file_->changed();
  if (replay) check_history(e.lab, *lab, e);
  if (e.type == "lab_created") return;  // held now; nothing for its page
  // A cancel or a reset asked on another replica stops the storm running here when it
  // started before it in the class's order; one started after it was asked for later.
  if (e.type == "storm_cancel") {
    if (!replay && lab->app.class_order().storm_started_before(stream_id)) lab->storm.cancel();
    return;
  }
  if (e.type == "reset" && lab->app.class_order().storm_started_before(stream_id)) {
    lab->storm.cancel();
    lab->storm.forget_result();
  }
  lab->app.apply(e, replay, stream_id);
}

std::shared_ptr<Lab> LabRegistry::lab_from_log(const std::string& name, WallTime last_active, bool& created) {
  LabNameProblem problem = LabNameProblem::none;
  const auto normal = normalize_lab_name(name, problem);
  if (!normal || *normal != name) throw std::invalid_argument("not a lab name: " + name);
  std::lock_guard lock(mutex_);
  auto it = students_.find(name);
  if (it == students_.end()) {
    it = students_.emplace(name, Entry{make_student_lab(name), {}}).first;
    created = true;
  }
  it->second.last_active = std::max(it->second.last_active, last_active);
  return it->second.lab;
}

std::shared_ptr<Lab> LabRegistry::held(const std::string& name) const {
  if (name.empty()) return teacher_;
  std::lock_guard lock(mutex_);
  const auto it = students_.find(name);
  return it == students_.end() ? nullptr : it->second.lab;
}

std::vector<std::shared_ptr<Lab>> LabRegistry::expire_idle_locked(WallTime now) {
  std::vector<std::shared_ptr<Lab>> expired;
  for (auto it = students_.begin(); it != students_.end();) {
    // use_count 1: only the map holds it, and new holders come only through this lock.
    const bool idle = now - it->second.last_active > limits_.idle_expiry;
    if (idle && it->second.lab.use_count() == 1 && !it->second.lab->storm.running()) {
      spdlog::info("student lab {} forgotten after {} min without a request", it->first,
                   limits_.idle_expiry.count());
      expired.push_back(std::move(it->second.lab));
      it = students_.erase(it);
    } else {
      ++it;
    }
  }
  forget_unused_keys_locked(expired);
  return expired;
}

void LabRegistry::forget_unused_keys_locked(const std::vector<std::shared_ptr<Lab>>& expired) {
  // An owner whose last lab is forgotten gives its name back: next class's "ana" may claim it.
  for (const auto& lab : expired)
    for (const std::string& owner : possible_owners(lab->app.name())) {
      const bool used = std::any_of(students_.begin(), students_.end(),
                                    [&owner](const auto& e) { return owns(owner, e.first); });
      if (!used) keys_.forget(owner);
    }
}

std::optional<std::string> LabRegistry::claim_key(const std::string& owner) {
  // Labs idle past the expiry are forgotten first, giving back the names they held: a new
  // class's first request is its claim, before any request that would have forgotten them.
  expire_idle();
  auto key = keys_.claim(owner);
  if (key) {
    spdlog::info("name {} claimed: its labs need its lab_key from now on", owner);
    state_file_->changed();
    state_file_->flush();  // on disk before the student reads it
  }
  return key;
}

std::string LabRegistry::reissue_key(const std::string& owner) {
  std::string key = keys_.reissue(owner);
  spdlog::info("name {}: the teacher issued a new lab_key (the old one opens nothing)", owner);
  state_file_->changed();
  state_file_->flush();
  return key;
}

std::size_t LabRegistry::expire_idle() {
  std::vector<std::shared_ptr<Lab>> expired;
  {
    std::lock_guard lock(mutex_);
    expired = expire_idle_locked(deps_.clock.wall_now());
  }
  if (!expired.empty()) state_file_->changed();
  return expired.size();
}

std::size_t LabRegistry::running_student_storms() const {
  std::lock_guard lock(mutex_);
  return static_cast<std::size_t>(std::count_if(students_.begin(), students_.end(), [this](const auto& e) {
    return !teachers(e.first) && e.second.lab->storm.running();
  }));
}

bool LabRegistry::teachers(const std::string& name) const {
  return name.empty() || owns(limits_.teacher_name, name);
}


LabRegistry::StormVerdict LabRegistry::admit_storm(const std::string& lab, const StormExperiment& storm,
                                                   int duration_s, bool teacher_asked) {
  const bool student = !teachers(lab) && !teacher_asked;
  if (storm_leases_) {
    const auto lease = storm_leases_->take(student ? lab : "_" + lab, duration_s * 1000LL, student ? kMaxStudentStorms : 0);
    if (lease == RedisStormLeases::Lease::granted) return storm.running() ? StormVerdict::lab_busy : StormVerdict::go;
    if (lease == RedisStormLeases::Lease::lab_busy) return StormVerdict::lab_busy;
    if (lease == RedisStormLeases::Lease::class_full) return StormVerdict::class_full;
  }
  // A check, then a start: two students racing past it make kMaxStudentStorms + 1, a bound still.
  if (storm.running()) return StormVerdict::lab_busy;
  if (student && running_student_storms() >= kMaxStudentStorms) return StormVerdict::class_full;
  return StormVerdict::go;
}

void LabRegistry::storm_ended(const std::string& lab) {
  if (storm_leases_) storm_leases_->give_back({lab, "_" + lab});
}

std::size_t LabRegistry::student_count() const {
  std::lock_guard lock(mutex_);
  return student_count_locked();
}

std::size_t LabRegistry::student_count_locked() const {
  return static_cast<std::size_t>(
      std::count_if(students_.begin(), students_.end(), [this](const auto& e) { return !teachers(e.first); }));
}

std::vector<ClassRow> LabRegistry::class_rows() {
  expire_idle();
  std::vector<std::pair<std::shared_ptr<Lab>, WallTime>> labs;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, e] : students_)
      if (!teachers(name)) labs.emplace_back(e.lab, e.last_active);
  }
  std::vector<ClassRow> rows;
  for (const auto& [lab, last_active] : labs)
    rows.push_back(ClassRow{lab->app.name(), lab->app.dependency_view().breaker.state, lab->app.carrier_mode(),
                            lab->app.class_totals(), last_active, std::nullopt});
  rank_labs(rows);
  return rows;
}

std::string LabRegistry::owner_of(const std::string& lab) const {
  // The claimed name this replica knows (no Redis round trip per lab), else the first part.
  for (const std::string& owner : possible_owners(lab))
    if (keys_.claimed_here(owner)) return owner;
  return lab.substr(0, lab.find('-', 1));
}

std::vector<StudentRow> LabRegistry::class_students(const std::vector<ClassRow>& rows) const {
  return rank_students(rows, [this](const std::string& lab) { return owner_of(lab); });
}

std::vector<DesignRow> LabRegistry::class_designs() {
  expire_idle();
  std::vector<DesignRow> rows;
  for (const auto& [name, lab] : student_labs())
    if (auto d = teachers(name) ? std::nullopt : lab->app.design()) rows.push_back(DesignRow{name, owner_of(name), std::move(*d)});
  rank_designs(rows);
  return rows;
}

PersistedState LabRegistry::persisted_state() {
  PersistedState state;
  static_cast<PersistedLab&>(state) = teacher_->app.persisted_lab();
  state.lab_keys = keys_.all();
  // Under the lock, without copying the labs' pointers: a copy held here would read as a lab
  // in use to expire_idle() on another thread, and keep an idle lab for another period.
  // persisted_lab() reads this replica's memory only (no Redis), so the lock is short.
  std::lock_guard lock(mutex_);
  auto& out = state.labs;
  out.reserve(students_.size());
  for (const auto& [name, e] : students_) {
    PersistedStudentLab s;
    static_cast<PersistedLab&>(s) = e.lab->app.persisted_lab();
    // The newest few quotes only (oldest first in the list): the file stays small.
    auto& quotes = s.fallback_quotes;
    if (quotes.size() > kMaxStudentPersistedQuotes)
      quotes.erase(quotes.begin(), quotes.end() - static_cast<std::ptrdiff_t>(kMaxStudentPersistedQuotes));
    s.name = name;
    s.last_active = e.last_active;
    out.push_back(std::move(s));
  }
  return state;
}

std::vector<std::shared_ptr<Lab>> LabRegistry::all_labs() const {
  std::vector<std::shared_ptr<Lab>> labs;
  if (teacher_) labs.push_back(teacher_);
  std::lock_guard lock(mutex_);
  for (const auto& [name, e] : students_) labs.push_back(e.lab);
  return labs;
}

std::vector<std::pair<std::string, std::shared_ptr<Lab>>> LabRegistry::student_labs() const {
  std::vector<std::pair<std::string, std::shared_ptr<Lab>>> labs;
  std::lock_guard lock(mutex_);
  for (const auto& [name, e] : students_) labs.emplace_back(name, e.lab);
  return labs;
}

void reset_lab(LabApp& app, StormExperiment& storm) {
  storm.cancel();  // a reset also stops a storm started from the lab
  storm.forget_result();
  app.reset();
}

std::vector<std::string> LabRegistry::reset_students() {
  // Acted on outside the lock (a reset waits for the lab's storm): a lab created meanwhile
  // is new, so already at its seeds.
  std::vector<std::string> names;
  for (const auto& [name, lab] : student_labs()) {
    if (teachers(name)) continue;
    reset_lab(lab->app, lab->storm);
    storm_ended(name);
    names.push_back(name);
  }
  return names;
}

std::vector<std::string> LabRegistry::set_students_carrier_mode(const std::string& mode) {
  std::vector<std::string> names;
  for (const auto& [name, lab] : student_labs())
    if (!teachers(name) && lab->app.set_carrier_mode(mode)) names.push_back(name);
  return names;
}

void LabRegistry::set_self_url(const std::string& url) {
  {
    std::lock_guard lock(mutex_);
    self_url_ = url;
  }
  for (const auto& lab : all_labs()) lab->storm.set_self_url(url);
}

void LabRegistry::begin_shutdown() {
  for (const auto& lab : all_labs()) {
    lab->app.begin_shutdown();
    lab->app.events().close_all();
    lab->storm.cancel();
  }
}

void LabRegistry::wait_for_storms() {
  for (const auto& lab : all_labs()) lab->storm.cancel_and_wait();
}

}  // namespace quote_lab
