#include "lab/persistence/state_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lab/base/lab_name.hpp"
#include "lab/base/time_format.hpp"
#include "lab/formats/json_int.hpp"
#include "lab/formats/quote_json.hpp"
#include "lab/resilience/domain.hpp"

namespace quote_lab {
namespace {

namespace fs = std::filesystem;

constexpr int kVersion = 1;
// Ranges of the integers in the file. Counters stop at 2^53 - 1, the largest integer a
// dashboard's JavaScript reads exactly; the quote keys take the routes' ranges (domain.hpp).
constexpr std::int64_t kMaxFailures = 1000000;
constexpr std::int64_t kMaxCount = (std::int64_t{1} << 53) - 1;
// Like the kernel's own limit on symlinks followed in one path lookup.
constexpr int kMaxSymlinkHops = 40;

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

bool write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// What a non-regular file at the state path is, for messages; nullptr for the kinds the
// lab may handle (missing, regular file, folder).
const char* special_kind(fs::file_type t) {
  switch (t) {
    case fs::file_type::character: return "a character device";
    case fs::file_type::block: return "a block device";
    case fs::file_type::fifo: return "a FIFO (named pipe)";
    case fs::file_type::socket: return "a socket";
    default: return nullptr;
  }
}

// Follows a chain of symlinks at `p` to the path really written; a relative target is
// taken from its link's folder. nullopt (and `problem`) on a loop or an unreadable link.
std::optional<fs::path> follow_symlinks(const fs::path& p, std::string& problem) {
  fs::path at = p;
  for (int hop = 0; hop < kMaxSymlinkHops; ++hop) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(at, ec))) {
      if (hop == 0) return at;
      // "conf/../real/state.json" → "/abs/real/state.json", resolving folder links properly.
      const fs::path dir = fs::weakly_canonical(at.parent_path(), ec);
      return ec ? at : dir / at.filename();
    }
    const fs::path next = fs::read_symlink(at, ec);
    if (ec) {
      problem = "cannot read the symlink " + at.string() + ": " + ec.message();
      return std::nullopt;
    }
    at = next.is_absolute() ? next : at.parent_path() / next;
  }
  problem = p.string() + " is a symlink loop (more than " + std::to_string(kMaxSymlinkHops) + " links)";
  return std::nullopt;
}

// "PATH" or "PATH (-> TARGET)", so messages show both names of a symlinked file.
std::string describe(const fs::path& path, const fs::path& target) {
  return path == target ? path.string() : path.string() + " (-> " + target.string() + ")";
}

// Reads one integer field of the state file, range-checked before it is narrowed.
std::optional<std::int64_t> read_int(const nlohmann::ordered_json& obj, const char* key, const std::string& name,
                                     std::int64_t lo, std::int64_t hi, std::string& problem) {
  const auto it = obj.find(key);
  const nlohmann::ordered_json& v = it == obj.end() ? nlohmann::ordered_json() : *it;
  const auto value = json_int_in_range(v, lo, hi);
  if (!value) problem = int_range_problem(name, v, lo, hi);
  return value;
}

}  // namespace

Millis save_retry_delay(int failed_saves) {
  Millis d = kSaveRetryFirst;
  for (int i = 1; i < failed_saves && d < kSaveRetryMax; ++i) d *= 2;
  return std::min(d, kSaveRetryMax);
}

namespace {

nlohmann::ordered_json lab_json(const PersistedLab& s) {
  nlohmann::ordered_json quotes = nlohmann::ordered_json::array();
  for (const auto& q : s.fallback_quotes)
    quotes.push_back({{"customer_id", q.customer_id},
                      {"items", q.items},
                      {"quote", to_json(q.quote)},
                      {"cached_at", format_iso8601(q.cached_at)}});
  const auto& b = s.breaker;
  nlohmann::ordered_json out = {{"breaker",
           {{"state", std::string(to_string(b.state))},
            {"consecutive_failures", b.consecutive_failures},
            {"opened_until", b.opened_until ? nlohmann::ordered_json(format_iso8601(*b.opened_until))
                                            : nlohmann::ordered_json(nullptr)},
            {"open_events", b.open_events}}},
          {"fallback", {{"seeded_at", format_iso8601(s.fallback_seeded_at)}, {"quotes", quotes}}}};
  if (!s.design.empty()) out["design"] = nlohmann::ordered_json::parse(s.design, nullptr, false);
  return out;
}

bool lab_from_json(const nlohmann::ordered_json& j, PersistedLab& s, std::string& problem);

}  // namespace

nlohmann::ordered_json to_json(const PersistedState& s) {
  nlohmann::ordered_json j = {{"version", kVersion}};
  j.update(lab_json(s));
  if (!s.labs.empty()) {
    nlohmann::ordered_json labs = nlohmann::ordered_json::object();
    for (const auto& lab : s.labs) {
      auto entry = lab_json(lab);
      entry["last_active"] = format_iso8601(lab.last_active);
      labs[lab.name] = std::move(entry);
    }
    j["labs"] = std::move(labs);
  }
  if (!s.lab_keys.empty()) j["lab_keys"] = s.lab_keys;
  return j;
}

namespace {

// One lab's breaker and fallback (the teacher's at the top level, a student's under "labs").
bool lab_from_json(const nlohmann::ordered_json& j, PersistedLab& s, std::string& problem) {
  auto fail = [&](const std::string& p) {
    problem = p;
    return false;
  };
  const auto b = j.find("breaker");
  if (b == j.end() || !b->is_object()) return fail("breaker is missing");
  if (const auto d = j.find("design"); d != j.end()) {
    if (!d->is_object()) return fail("design must be an object");
    s.design = d->dump();
  }
  const auto state = b->find("state");
  if (state == b->end() || !state->is_string() ||
      !parse_breaker_state(state->get<std::string>(), s.breaker.state))
    return fail("breaker.state must be closed, open or half_open");
  std::string range_problem;
  const auto failures = read_int(*b, "consecutive_failures", "breaker.consecutive_failures", 0, kMaxFailures, range_problem);
  if (!failures) return fail(range_problem);
  s.breaker.consecutive_failures = static_cast<int>(*failures);
  const auto until = b->find("opened_until");
  if (until != b->end() && !until->is_null()) {
    if (!until->is_string()) return fail("breaker.opened_until must be an ISO 8601 time or null");
    s.breaker.opened_until = parse_iso8601(until->get<std::string>());
    if (!s.breaker.opened_until) return fail("breaker.opened_until is not an ISO 8601 UTC time");
  }
  if (s.breaker.state != BreakerState::closed && !s.breaker.opened_until)
    return fail("an open breaker needs opened_until");
  if (b->contains("open_events")) {
    const auto events = read_int(*b, "open_events", "breaker.open_events", 0, kMaxCount, range_problem);
    if (!events) return fail(range_problem);
    s.breaker.open_events = static_cast<std::uint64_t>(*events);
  }
  const auto f = j.find("fallback");
  if (f == j.end() || !f->is_object()) return fail("fallback is missing");
  const auto seeded = f->find("seeded_at");
  const auto seeded_at = seeded != f->end() && seeded->is_string()
                             ? parse_iso8601(seeded->get<std::string>())
                             : std::nullopt;
  if (!seeded_at) return fail("fallback.seeded_at must be an ISO 8601 UTC time");
  s.fallback_seeded_at = *seeded_at;
  const auto quotes = f->find("quotes");
  if (quotes == f->end() || !quotes->is_array()) return fail("fallback.quotes must be a list");
  for (std::size_t i = 0; i < quotes->size(); ++i) {
    const auto& q = (*quotes)[i];
    if (!q.is_object()) return fail("fallback.quotes holds a non-object");
    CachedQuote c;
    const auto quote = quote_from_json(q.value("quote", nlohmann::ordered_json()));
    const auto cached = parse_iso8601(q.value("cached_at", ""));
    const auto cid = q.find("customer_id");
    const auto items = q.find("items");
    if (!quote || !cached || cid == q.end() || !cid->is_number_integer() || items == q.end() ||
        !items->is_number_integer())
      return fail("a fallback quote is missing customer_id, items, quote or cached_at");
    const std::string where = "fallback.quotes[" + std::to_string(i) + "].";
    const auto cid_value = read_int(q, "customer_id", where + "customer_id", kCustomerId.min, kCustomerId.max, range_problem);
    const auto items_value = read_int(q, "items", where + "items", kItems.min, kItems.max, range_problem);
    if (!cid_value || !items_value) return fail("a fallback quote has values out of range: " + range_problem);
    c.customer_id = static_cast<int>(*cid_value);
    c.items = static_cast<int>(*items_value);
    const auto& cur = quote->currency;
    const bool currency_ok = cur.size() == 3 && std::all_of(cur.begin(), cur.end(), [](char ch) { return ch >= 'A' && ch <= 'Z'; });
    if (!std::isfinite(quote->amount) || quote->amount < 0 || quote->amount > 1e9 || !currency_ok ||
        quote->quote_id.size() > 100)
      return fail("a fallback quote has values out of range (amount 0-1e9, currency 3 letters A-Z, quote_id)");
    c.quote = *quote;
    c.cached_at = *cached;
    s.fallback_quotes.push_back(c);
  }
  return true;
}

// "lab_keys": owner → key, each owner a lab name and each key of the shape the lab hands out
// (the file is read back into a check that compares keys).
bool lab_keys_from_json(const nlohmann::ordered_json& j, std::map<std::string, std::string>& keys,
                        std::string& problem) {
  const auto found = j.find("lab_keys");
  if (found == j.end()) return true;
  if (!found->is_object()) {
    problem = "lab_keys must be an object of keys by owner";
    return false;
  }
  for (const auto& [raw_owner, key] : found->items()) {
    LabNameProblem name_problem = LabNameProblem::none;
    const auto owner = normalize_lab_name(raw_owner, name_problem);
    const std::string text = key.is_string() ? key.get<std::string>() : std::string();
    const bool key_ok = !text.empty() && text.size() <= kMaxPersistedLabKeyLength &&
                        std::all_of(text.begin(), text.end(),
                                    [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); });
    if (!owner || *owner != raw_owner || !key_ok) {
      problem = "lab_keys['" + raw_owner.substr(0, 40) + "'] needs an owner (a-z, 0-9, '-') and a key of 1-" +
                std::to_string(kMaxPersistedLabKeyLength) + " letters a-z and digits";
      return false;
    }
    keys.emplace(*owner, text);
  }
  return true;
}

}  // namespace

std::optional<PersistedState> state_from_json(const nlohmann::ordered_json& j, std::string& problem) {
  if (!j.is_object()) {
    problem = "not a JSON object";
    return std::nullopt;
  }
  if (j.value("version", 0) != kVersion) {
    problem = "unknown version (expected 1)";
    return std::nullopt;
  }
  PersistedState s;
  if (!lab_from_json(j, s, problem)) return std::nullopt;
  if (!lab_keys_from_json(j, s.lab_keys, problem)) return std::nullopt;
  const auto labs = j.find("labs");
  if (labs == j.end()) return s;
  if (!labs->is_object()) {
    problem = "labs must be an object of student labs by name";
    return std::nullopt;
  }
  for (const auto& [raw_name, entry] : labs->items()) {
    PersistedStudentLab lab;
    LabNameProblem name_problem = LabNameProblem::none;
    const auto name = normalize_lab_name(raw_name, name_problem);
    const auto last_active = entry.is_object() ? parse_iso8601(entry.value("last_active", "")) : std::nullopt;
    if (!name || *name != raw_name || !last_active) {
      problem = "labs['" + raw_name.substr(0, 40) + "'] needs a lab name (a-z, 0-9, '-') and last_active";
      return std::nullopt;
    }
    if (!lab_from_json(entry, lab, problem)) {
      problem = "labs['" + *name + "']." + problem;
      return std::nullopt;
    }
    lab.name = *name;
    lab.last_active = *last_active;
    s.labs.push_back(std::move(lab));
  }
  return s;
}

void check_state_path(const std::filesystem::path& path) {
  std::string problem;
  const auto target = follow_symlinks(path, problem);
  if (!target) throw StateFileError("state file " + problem + ": choose another --state-file");
  std::error_code ec;
  if (const char* kind = special_kind(fs::symlink_status(*target, ec).type()))
    // Renaming /dev/null (as root) or a FIFO another program reads would break the machine
    // or that program: refuse, and leave it exactly as it is.
    throw StateFileError("state file " + describe(path, *target) + " is " + kind +
                         ", not a file the lab can keep its state in; it was left untouched: "
                         "choose another --state-file");
}

StateStore::StateStore(std::filesystem::path path) : path_(std::move(path)) {}

StateStore::Loaded StateStore::load(WallTime now) {
  Loaded out;
  check_state_path(path_);
  std::string problem;
  const auto resolved = follow_symlinks(path_, problem);
  if (!resolved) throw StateFileError("state file " + problem + ": choose another --state-file");
  const fs::path& target = *resolved;
  std::error_code ec;
  const auto type = fs::symlink_status(target, ec).type();
  if (type == fs::file_type::not_found) return out;
  if (type != fs::file_type::regular) {
    out.problem = "is not a regular file";
  } else if (std::ifstream in(target, std::ios::binary); !in) {
    out.problem = "cannot be read (permissions?)";
  } else {
    std::stringstream buffer;
    buffer << in.rdbuf();
    const auto j = nlohmann::ordered_json::parse(buffer.str(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) out.problem = "not valid JSON";
    else out.state = state_from_json(j, out.problem);
    if (out.state) return out;
  }

  // Keep the bytes for a post-mortem; the lab starts from the seed state. A symlink's
  // target is what is set aside: the link stays and points at the next save.
  const std::string stamp = format_iso8601(now);
  std::string base = target.string() + ".corrupt-" + stamp;
  std::string aside = base;
  for (int n = 2; fs::exists(fs::symlink_status(aside, ec)); ++n) aside = base + "-" + std::to_string(n);
  fs::rename(target, aside, ec);
  if (ec) {
    out.problem += " (and could not be set aside: " + ec.message() + ")";
    out.keep_unchanged = true;  // never overwrite bytes we could neither read nor move
  } else {
    out.set_aside = aside;
  }
  return out;
}

std::string StateStore::write(const std::string& content) {
  std::string problem;
  const auto resolved = follow_symlinks(path_, problem);
  if (!resolved) return problem;
  const fs::path& target = *resolved;
  std::error_code ec;
  if (const char* kind = special_kind(fs::symlink_status(target, ec).type()))
    return describe(path_, target) + " is " + kind + "; the lab will not replace it";
  const auto dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  fs::create_directories(dir, ec);
  // In the target's own folder: rename() is atomic only within one file system.
  const std::string tmp = target.string() + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno_text("cannot create " + tmp);
  if (!write_all(fd, content) || ::fsync(fd) != 0) {
    const std::string err = errno_text("cannot write " + tmp);
    ::close(fd);
    ::unlink(tmp.c_str());
    return err;
  }
  if (::close(fd) != 0) {  // some file systems report a full disk only here
    const std::string err = errno_text("cannot write " + tmp);
    ::unlink(tmp.c_str());
    return err;
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    const std::string err = errno_text("cannot replace " + describe(path_, target));
    ::unlink(tmp.c_str());
    return err;
  }
  // The rename itself must reach the disk, or a power cut could bring back the old name.
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return {};
}

std::size_t StateStore::remove_stale_temp_files() {
  std::string problem;
  const auto target = follow_symlinks(path_, problem);
  if (!target) return 0;
  const std::string prefix = target->filename().string() + ".tmp-";
  const fs::path dir = target->has_parent_path() ? target->parent_path() : fs::path(".");
  std::size_t removed = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const bool pid_suffix = std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()), name.end(),
                                        [](char ch) { return ch >= '0' && ch <= '9'; });
    std::error_code type_ec;
    if (!pid_suffix || !fs::is_regular_file(it->symlink_status(type_ec))) continue;
    std::error_code rm_ec;
    if (fs::remove(it->path(), rm_ec)) ++removed;
  }
  return removed;
}

StateSaver::StateSaver(StateStore& store, Snapshot snapshot, StatusSink on_status, Millis min_interval)
    : store_(store), snapshot_(std::move(snapshot)), on_status_(std::move(on_status)),
      min_interval_(min_interval), thread_([this] { run(); }) {}

StateSaver::~StateSaver() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  flush();
}

void StateSaver::mark_dirty() {
  {
    std::lock_guard lock(mutex_);
    if (dirty_) return;  // already due: waking the writer again would only cost a context switch
    dirty_ = true;
  }
  wake_.notify_all();
}

bool StateSaver::flush() { return write_if_changed(); }

std::size_t StateSaver::writes() const {
  std::lock_guard lock(mutex_);
  return writes_;
}

std::optional<std::string> StateSaver::last_error() const {
  std::lock_guard lock(mutex_);
  return last_error_;
}

int StateSaver::failed_saves() const {
  std::lock_guard lock(mutex_);
  return failed_saves_;
}

bool StateSaver::write_if_changed() {
  std::lock_guard write_lock(write_mutex_);
  const std::string content = to_json(snapshot_()).dump(2) + "\n";
  // Unchanged content is a success too: the file already holds it (writes are atomic).
  const bool changed = content != last_written_;
  const std::string err = changed ? store_.write(content) : std::string();
  if (err.empty()) last_written_ = content;
  int failed_before = 0;
  bool episode_starts = false;
  {
    std::lock_guard lock(mutex_);
    if (err.empty()) {
      if (changed) ++writes_;
      failed_before = failed_saves_;
      failed_saves_ = 0;
      last_error_.reset();
    } else {
      episode_starts = failed_saves_ == 0;
      ++failed_saves_;
      last_error_ = err;
      dirty_ = true;  // never lose the mark: the writer thread retries after a backoff
    }
  }
  if (!err.empty()) wake_.notify_all();  // a failed flush() from another thread wakes the writer
  if (on_status_ && episode_starts) on_status_(err, 1);
  if (on_status_ && failed_before > 0) on_status_(std::nullopt, failed_before);
  return err.empty();
}

void StateSaver::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return dirty_ || stopping_; });
    if (stopping_) return;
    dirty_ = false;
    lock.unlock();
    write_if_changed();
    lock.lock();
    // At most one write per interval; changes made meanwhile set dirty_ again (and their
    // notification may end this wait early only once, since mark_dirty notifies only
    // when dirty_ flips). After a failure dirty_ is still set and the wait is the retry
    // backoff instead, short enough for the file to catch up soon after the fault clears.
    const Millis pause = failed_saves_ > 0 ? save_retry_delay(failed_saves_) : min_interval_;
    wake_.wait_for(lock, pause, [this] { return stopping_; });
  }
}

}  // namespace quote_lab
