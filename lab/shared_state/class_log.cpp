#include "lab/shared_state/class_log.hpp"

#include <spdlog/spdlog.h>

namespace quote_lab {

ClassLog::ClassLog(RedisClient& redis, std::string instance) : redis_(redis), instance_(std::move(instance)) {}

ClassLog::~ClassLog() { stop(); }

void ClassLog::start(Handler handler) { start(std::move(handler), Hooks{}); }

void ClassLog::start(Handler handler, Hooks hooks) {
  handler_ = std::move(handler);
  hooks_ = std::move(hooks);
  if (!hooks_.before_replay) allow_publishing();
  reader_ = std::jthread([this](std::stop_token stop) { read_loop(stop); });
  publisher_ = std::jthread([this](std::stop_token stop) { publish_loop(stop); });
}

void ClassLog::stop() {
  reader_.request_stop();
  publisher_.request_stop();
  wake_publisher_.notify_all();
  if (reader_.joinable()) reader_.join();
  if (publisher_.joinable()) publisher_.join();
}

namespace {
// "MS-SEQ" as numbers; {0, 0} for what is not a stream id.
std::pair<unsigned long long, unsigned long long> parse_id(const std::string& id) {
  const auto dash = id.find('-');
  try {
    return {std::stoull(id.substr(0, dash)), dash == std::string::npos ? 0ULL : std::stoull(id.substr(dash + 1))};
  } catch (const std::exception&) {
    return {0ULL, 0ULL};
  }
}
}  // namespace

bool ClassLog::before(const std::string& a, const std::string& b) { return parse_id(a) < parse_id(b); }

WallTime ClassLog::appended_at(const std::string& id) {
  return WallTime(std::chrono::duration_cast<WallTime::duration>(std::chrono::milliseconds(parse_id(id).first)));
}

void ClassLog::append(std::string entry) { push({std::move(entry), nullptr}); }

std::optional<std::string> ClassLog::append_in_order(std::string entry, Millis bound) {
  auto id = std::make_shared<std::promise<std::string>>();
  auto answer = id->get_future();
  push({std::move(entry), std::move(id)});
  if (answer.wait_for(bound) != std::future_status::ready) return std::nullopt;
  return answer.get();
}

void ClassLog::push(Pending p) {
  if (p.entry.size() > kMaxEntryBytes) {
    spdlog::warn("class log: an entry of {} bytes is not shared (at most {})", p.entry.size(), kMaxEntryBytes);
    ++dropped_;
    return;
  }
  {
    std::lock_guard lock(mutex_);
    p.sequence = ++next_sequence_;
    if (pending_.size() >= kMaxPending) {
      pending_.pop_front();
      ++dropped_;
    }
    pending_.push_back(std::move(p));
  }
  wake_publisher_.notify_one();
}

void ClassLog::allow_publishing() {
  {
    std::lock_guard lock(mutex_);
    publishing_ = true;
  }
  wake_publisher_.notify_one();
}

std::size_t ClassLog::pending() const {
  std::lock_guard lock(mutex_);
  return pending_.size();
}

void ClassLog::publish_loop(std::stop_token stop) {
  std::unique_lock lock(mutex_);
  while (!stop.stop_requested()) {
    if (pending_.empty() || !publishing_) {
      wake_publisher_.wait(lock, stop, [&] { return publishing_ && !pending_.empty(); });
      continue;
    }
    const Pending p = pending_.front();
    lock.unlock();
    const auto r = redis_.command({"XADD", kStreamKey, "MAXLEN", "~", std::to_string(kMaxEntries), "*", "o",
                                   instance_, "s", std::to_string(p.sequence), "e", p.entry});
    lock.lock();
    // Still the front unless it was dropped meanwhile (kMaxPending).
    auto pop = [&] {
      if (!pending_.empty() && pending_.front().sequence == p.sequence) pending_.pop_front();
    };
    if (r && r->type == RedisValue::Type::string) {
      pop();
      ++appended_;
      if (p.id) p.id->set_value(r->text);
      continue;
    }
    if (r && r->type == RedisValue::Type::error) {
      // Redis refused it (e.g. the key is not a stream): it would refuse it again.
      spdlog::warn("class log: Redis refused an entry ({}); it is dropped", r->text);
      pop();
      ++dropped_;
      continue;
    }
    // Redis away: the entry waits, and the next try is after the client's reconnect wait.
    wake_publisher_.wait_for(lock, stop, kPollEvery, [] { return false; });
  }
}

long ClassLog::read_batch() {
  const auto r = redis_.command(
      {"XREAD", "COUNT", std::to_string(kReadBatch), "STREAMS", kStreamKey, last_id_});
  if (!r || r->type == RedisValue::Type::error) return -1;
  if (r->type != RedisValue::Type::array || r->elements.empty()) return 0;  // nil: nothing new
  // [[key, [[id, [field, value, ...]], ...]]]
  const RedisValue& entries = r->elements[0].elements.size() == 2 ? r->elements[0].elements[1] : RedisValue{};
  long n = 0;
  for (const RedisValue& e : entries.elements) {
    if (e.elements.size() != 2) continue;
    last_id_ = e.elements[0].text;
    ++n;
    const auto& fields = e.elements[1].elements;
    std::string origin, body, sequence;
    for (std::size_t i = 0; i + 1 < fields.size(); i += 2) {
      if (fields[i].text == "o") origin = fields[i + 1].text;
      if (fields[i].text == "s") sequence = fields[i + 1].text;
      if (fields[i].text == "e") body = fields[i + 1].text;
    }
    if (body.empty()) continue;
    // The same entry twice (an XADD retried after its answer timed out): applied once.
    const auto n = parse_id(sequence).first;
    if (n > 0) {
      std::uint64_t& last = last_sequence_[origin];
      if (n <= last) continue;
      last = n;
    }
    const bool own = origin == instance_;
    if (!own) ++received_;
    // Appended before this replica started reading: no page of it can be waiting for it.
    const bool replay = !before(replay_through_, last_id_);
    try {
      handler_(last_id_, body, replay, own);
    } catch (const std::exception& ex) {
      // One bad entry (another version's, a hand-written one) must not stop the class.
      spdlog::warn("class log: entry {} ignored: {}", last_id_, ex.what());
    }
  }
  std::lock_guard lock(position_mutex_);
  position_ = last_id_;
  return n;
}

std::string ClassLog::position() const {
  std::lock_guard lock(position_mutex_);
  return position_;
}

std::optional<ClassLog::StreamInfo> ClassLog::info() {
  const auto r = redis_.command({"XINFO", "STREAM", kStreamKey});
  if (!r) return std::nullopt;
  StreamInfo out;
  if (r->type == RedisValue::Type::error) return out;  // no stream yet
  if (r->type != RedisValue::Type::array) return std::nullopt;
  std::uint64_t added = 0;
  for (std::size_t i = 0; i + 1 < r->elements.size(); i += 2) {
    const std::string& field = r->elements[i].text;
    const RedisValue& v = r->elements[i + 1];
    if (field == "length") out.length = static_cast<std::uint64_t>(v.integer);
    if (field == "entries-added") added = static_cast<std::uint64_t>(v.integer);
    if (field == "last-generated-id") out.last_id = v.text;
    if (field == "first-entry" && v.elements.size() == 2) out.first_id = v.elements[0].text;
  }
  out.trimmed = added > out.length ? added - out.length : 0;
  if (out.last_id == "0-0") out.last_id.clear();
  return out;
}

void ClassLog::read_loop(std::stop_token stop) {
  std::mutex m;
  std::condition_variable_any sleep;
  std::unique_lock lock(m);
  bool prepared = !hooks_.before_replay;
  bool started = false;
  while (!stop.stop_requested()) {
    if (!prepared) {
      prepared = hooks_.before_replay();
      if (prepared) allow_publishing();
    }
    if (prepared && !started) {
      // Where the stream stood when this replica started: entries up to there are the
      // replay, whenever the reader gets to them (a loaded machine may read its first batch
      // after other replicas appended more).
      if (const auto stream = info()) {
        replay_through_ = stream->last_id.empty() ? "0" : stream->last_id;
        started = true;
      }
    }
    if (started) {
      const long n = read_batch();
      if (n >= 0 && !caught_up_ && (static_cast<std::size_t>(n) < kReadBatch || !before(last_id_, replay_through_)))
        caught_up_ = true;
      if (n == static_cast<long>(kReadBatch)) continue;  // more is waiting
      if (caught_up_ && hooks_.between_reads) hooks_.between_reads(last_id_);
    }
    sleep.wait_for(lock, stop, kPollEvery, [] { return false; });
  }
}

}  // namespace quote_lab
