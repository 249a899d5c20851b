#include "lab/state_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lab/time_format.hpp"

namespace quote_lab {
namespace {

constexpr int kVersion = 1;

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

}  // namespace

nlohmann::ordered_json to_json(const PersistedState& s) {
  nlohmann::ordered_json quotes = nlohmann::ordered_json::array();
  for (const auto& q : s.fallback_quotes)
    quotes.push_back({{"customer_id", q.customer_id},
                      {"items", q.items},
                      {"quote", to_json(q.quote)},
                      {"cached_at", format_iso8601(q.cached_at)}});
  const auto& b = s.breaker;
  return {{"version", kVersion},
          {"breaker",
           {{"state", std::string(to_string(b.state))},
            {"consecutive_failures", b.consecutive_failures},
            {"opened_until", b.opened_until ? nlohmann::ordered_json(format_iso8601(*b.opened_until))
                                            : nlohmann::ordered_json(nullptr)},
            {"open_events", b.open_events}}},
          {"fallback", {{"seeded_at", format_iso8601(s.fallback_seeded_at)}, {"quotes", quotes}}}};
}

std::optional<PersistedState> state_from_json(const nlohmann::ordered_json& j, std::string& problem) {
  auto fail = [&](const std::string& p) {
    problem = p;
    return std::nullopt;
  };
  if (!j.is_object()) return fail("not a JSON object");
  if (j.value("version", 0) != kVersion) return fail("unknown version (expected 1)");
  PersistedState s;
  const auto b = j.find("breaker");
  if (b == j.end() || !b->is_object()) return fail("breaker is missing");
  const auto state = b->find("state");
  if (state == b->end() || !state->is_string() ||
      !parse_breaker_state(state->get<std::string>(), s.breaker.state))
    return fail("breaker.state must be closed, open or half_open");
  const auto failures = b->find("consecutive_failures");
  if (failures == b->end() || !failures->is_number_integer() || failures->get<long long>() < 0)
    return fail("breaker.consecutive_failures must be a non-negative integer");
  s.breaker.consecutive_failures = static_cast<int>(std::min<long long>(failures->get<long long>(), 1000000));
  const auto until = b->find("opened_until");
  if (until != b->end() && !until->is_null()) {
    if (!until->is_string()) return fail("breaker.opened_until must be an ISO 8601 time or null");
    s.breaker.opened_until = parse_iso8601(until->get<std::string>());
    if (!s.breaker.opened_until) return fail("breaker.opened_until is not an ISO 8601 UTC time");
  }
  if (s.breaker.state != BreakerState::closed && !s.breaker.opened_until)
    return fail("an open breaker needs opened_until");
  const auto events = b->find("open_events");
  if (events != b->end()) {
    if (!events->is_number_integer() || events->get<long long>() < 0)
      return fail("breaker.open_events must be a non-negative integer");
    s.breaker.open_events = events->get<std::uint64_t>();
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
  for (const auto& q : *quotes) {
    if (!q.is_object()) return fail("fallback.quotes holds a non-object");
    CachedQuote c;
    const auto quote = quote_from_json(q.value("quote", nlohmann::ordered_json()));
    const auto cached = parse_iso8601(q.value("cached_at", ""));
    const auto cid = q.find("customer_id");
    const auto items = q.find("items");
    if (!quote || !cached || cid == q.end() || !cid->is_number_integer() || items == q.end() ||
        !items->is_number_integer())
      return fail("a fallback quote is missing customer_id, items, quote or cached_at");
    c.customer_id = cid->get<int>();
    c.items = items->get<int>();
    const auto& cur = quote->currency;
    const bool currency_ok = cur.size() == 3 && std::all_of(cur.begin(), cur.end(), [](char ch) { return ch >= 'A' && ch <= 'Z'; });
    if (c.customer_id < 1 || c.customer_id > 5000 || c.items < 1 || c.items > 50 || !std::isfinite(quote->amount) ||
        quote->amount < 0 || quote->amount > 1e9 || !currency_ok || quote->quote_id.size() > 100)
      return fail("a fallback quote has values out of range (customer_id 1-5000, items 1-50, amount, currency)");
    c.quote = *quote;
    c.cached_at = *cached;
    s.fallback_quotes.push_back(c);
  }
  return s;
}

StateStore::StateStore(std::filesystem::path path) : path_(std::move(path)) {}

StateStore::Loaded StateStore::load(WallTime now) {
  Loaded out;
  std::error_code ec;
  if (!std::filesystem::exists(path_, ec) && !std::filesystem::is_symlink(path_, ec)) return out;
  if (!std::filesystem::is_regular_file(path_, ec)) {
    out.problem = "is not a regular file";
  } else if (std::ifstream in(path_, std::ios::binary); !in) {
    out.problem = "cannot be read (permissions?)";
  } else {
    std::stringstream buffer;
    buffer << in.rdbuf();
    const auto j = nlohmann::ordered_json::parse(buffer.str(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) out.problem = "not valid JSON";
    else out.state = state_from_json(j, out.problem);
    if (out.state) return out;
  }

  // Keep the bytes for a post-mortem; the lab starts from the seed state.
  const std::string stamp = format_iso8601(now);
  std::string base = path_.string() + ".corrupt-" + stamp;
  std::string target = base;
  for (int n = 2; std::filesystem::exists(target, ec); ++n) target = base + "-" + std::to_string(n);
  std::filesystem::rename(path_, target, ec);
  if (ec) {
    out.problem += " (and could not be set aside: " + ec.message() + ")";
    out.keep_unchanged = true;  // never overwrite bytes we could neither read nor move
  } else {
    out.set_aside = target;
  }
  return out;
}

std::string StateStore::write(const std::string& content) {
  std::error_code ec;
  const auto dir = path_.has_parent_path() ? path_.parent_path() : std::filesystem::path(".");
  std::filesystem::create_directories(dir, ec);
  const std::string tmp = path_.string() + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno_text("cannot create " + tmp);
  if (!write_all(fd, content) || ::fsync(fd) != 0) {
    const std::string err = errno_text("cannot write " + tmp);
    ::close(fd);
    ::unlink(tmp.c_str());
    return err;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path_.c_str()) != 0) {
    const std::string err = errno_text("cannot replace " + path_.string());
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

StateSaver::StateSaver(StateStore& store, Snapshot snapshot, ErrorSink on_error, Millis min_interval)
    : store_(store), snapshot_(std::move(snapshot)), on_error_(std::move(on_error)),
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

void StateSaver::flush() { write_if_changed(); }

std::size_t StateSaver::writes() const {
  std::lock_guard lock(mutex_);
  return writes_;
}

void StateSaver::write_if_changed() {
  std::lock_guard write_lock(write_mutex_);
  const std::string content = to_json(snapshot_()).dump(2) + "\n";
  if (content == last_written_) return;
  if (auto err = store_.write(content); !err.empty()) {
    if (on_error_) on_error_(err);
    return;
  }
  last_written_ = content;
  std::lock_guard lock(mutex_);
  ++writes_;
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
    // when dirty_ flips).
    wake_.wait_for(lock, min_interval_, [this] { return stopping_; });
  }
}

}  // namespace quote_lab
