#include "lab/shared_state/redis_client.hpp"

#include <hiredis/hiredis.h>
#include <spdlog/spdlog.h>

#include <string_view>
#include <sys/time.h>

namespace quote_lab {
namespace {

RedisValue copy_reply(const redisReply& r) {
  RedisValue v;
  switch (r.type) {
    case REDIS_REPLY_INTEGER: v.type = RedisValue::Type::integer; v.integer = r.integer; break;
    case REDIS_REPLY_STRING: v.type = RedisValue::Type::string; v.text.assign(r.str, r.len); break;
    case REDIS_REPLY_STATUS: v.type = RedisValue::Type::status; v.text.assign(r.str, r.len); break;
    case REDIS_REPLY_ERROR: v.type = RedisValue::Type::error; v.text.assign(r.str, r.len); break;
    case REDIS_REPLY_ARRAY:
      v.type = RedisValue::Type::array;
      for (std::size_t i = 0; i < r.elements; ++i) v.elements.push_back(copy_reply(*r.element[i]));
      break;
    default: break;  // nil
  }
  return v;
}

// hiredis reports a read timeout as the OS's EAGAIN text: say what it means.
std::string describe(const redisContext& c, Millis timeout) {
  const std::string_view text = c.errstr;
  if (text.find("temporarily unavailable") != std::string_view::npos || text.find("timed out") != std::string_view::npos)
    return "no answer within " + std::to_string(timeout.count()) + " ms (" + std::string(text) + ")";
  return std::string(text);
}

// A Redis that asks for a password answers NOAUTH: say where the password goes.
std::string with_hint(const std::string& error) {
  if (error.starts_with("NOAUTH"))
    return error + " (this Redis asks for a password: redis://:PASSWORD@HOST:PORT, or redis://USER:PASSWORD@HOST:PORT)";
  return error;
}

// The request this thread serves (RequestScope) and whether it already waited for Redis.
thread_local int t_request_depth = 0;
thread_local bool t_request_paid = false;

void note_failure_on_this_thread() {
  if (t_request_depth > 0) t_request_paid = true;
}

}  // namespace

RedisClient::RequestScope::RequestScope() {
  if (t_request_depth++ == 0) t_request_paid = false;
}

RedisClient::RequestScope::~RequestScope() { --t_request_depth; }

struct RedisClient::Connection {
  explicit Connection(redisContext* c) : ctx(c) {}
  ~Connection() { redisFree(ctx); }
  redisContext* ctx;
  std::uint64_t epoch = 0;  // the client's epoch when it was opened: older ones are dropped
};

RedisClient::RedisClient(Options options, const Clock& clock, RandomSource& random)
    : options_(std::move(options)), clock_(clock), random_(random) {}

RedisClient::~RedisClient() = default;

RedisClient::ConnectionPtr RedisClient::open(std::string& problem) {
  const auto ms = options_.timeout.count();
  const timeval tv{static_cast<time_t>(ms / 1000), static_cast<suseconds_t>((ms % 1000) * 1000)};
  redisContext* ctx = redisConnectWithTimeout(options_.endpoint.host.c_str(), options_.endpoint.port, tv);
  if (!ctx) {
    problem = "cannot allocate a Redis connection";
    return nullptr;
  }
  auto c = std::make_unique<Connection>(ctx);
  if (ctx->err || redisSetTimeout(ctx, tv) != REDIS_OK) {
    problem = describe(*ctx, options_.timeout);
    return nullptr;
  }
  const RedisEndpoint& e = options_.endpoint;
  if (!e.password.empty()) {
    std::vector<std::string> auth{"AUTH"};
    if (!e.username.empty()) auth.push_back(e.username);
    auth.push_back(e.password);
    const auto r = run(*c, auth, problem);
    if (!r) return nullptr;
    if (r->type == RedisValue::Type::error) {
      problem = "AUTH refused: " + r->text + " (check the user and password in --state-backend)";
      return nullptr;
    }
  }
  if (options_.endpoint.db != 0) {
    const auto r = run(*c, {"SELECT", std::to_string(options_.endpoint.db)}, problem);
    if (!r) return nullptr;
    if (r->type == RedisValue::Type::error) {
      problem = "SELECT " + std::to_string(options_.endpoint.db) + ": " + with_hint(r->text);
      return nullptr;
    }
  }
  return c;
}

std::optional<RedisValue> RedisClient::run(Connection& c, const std::vector<std::string>& argv, std::string& problem) {
  std::vector<const char*> args;
  std::vector<std::size_t> lengths;
  for (const auto& a : argv) {
    args.push_back(a.data());
    lengths.push_back(a.size());
  }
  auto* reply = static_cast<redisReply*>(
      redisCommandArgv(c.ctx, static_cast<int>(args.size()), args.data(), lengths.data()));
  if (!reply) {
    problem = describe(*c.ctx, options_.timeout);
    return std::nullopt;
  }
  RedisValue v = copy_reply(*reply);
  freeReplyObject(reply);
  return v;
}

void RedisClient::connect_or_throw() {
  std::string problem;
  auto c = open(problem);
  if (c) {
    const auto pong = run(*c, {"PING"}, problem);
    if (pong && pong->type == RedisValue::Type::error) problem = "PING: " + with_hint(pong->text);
    if (!pong || pong->type == RedisValue::Type::error) c.reset();
  }
  if (!c) throw RedisUnreachable("cannot reach Redis at " + options_.endpoint.url() + ": " + problem);
  std::lock_guard lock(mutex_);
  healthy_ = true;
  last_error_.clear();
  c->epoch = ++epoch_;
  ++open_count_;
  idle_.push_back(std::move(c));
}

RedisClient::ConnectionPtr RedisClient::take() {
  if (t_request_paid) return nullptr;  // this request already waited for Redis once
  std::unique_lock lock(mutex_);
  std::string problem;
  if (!healthy_) {
    if (reconnecting_ || clock_.now() < next_attempt_) return nullptr;
    reconnecting_ = true;
    lock.unlock();
    auto c = open(problem);
    lock.lock();
    reconnecting_ = false;
    if (!c) {
      note_failure_on_this_thread();
      ++failures_;
      ++errors_total_;
      last_error_ = problem;
      next_attempt_ = clock_.now() + options_.schedule.delay(failures_, random_.uniform());
      return nullptr;
    }
    healthy_ = true;
    failures_ = 0;
    last_error_.clear();
    c->epoch = ++epoch_;
    ++open_count_;
    spdlog::info("state backend {} is back: breakers resync", options_.endpoint.url());
    return c;
  }
  if (!idle_.empty()) {
    auto c = std::move(idle_.back());
    idle_.pop_back();
    return c;
  }
  if (open_count_ >= options_.max_connections) return nullptr;
  ++open_count_;
  const std::uint64_t epoch = epoch_;
  lock.unlock();
  auto c = open(problem);
  if (!c) {
    {
      std::lock_guard relock(mutex_);
      --open_count_;
    }
    fail(problem);
    return nullptr;
  }
  c->epoch = epoch;
  return c;
}

void RedisClient::give_back(ConnectionPtr c) {
  std::lock_guard lock(mutex_);
  if (healthy_ && c->epoch == epoch_) {
    idle_.push_back(std::move(c));
    return;
  }
  --open_count_;  // opened before the last failure: its socket may be half dead
}

void RedisClient::fail(const std::string& reason) {
  note_failure_on_this_thread();
  std::vector<ConnectionPtr> dropped;
  {
    std::lock_guard lock(mutex_);
    ++errors_total_;
    if (!healthy_) return;  // another caller already reported this outage
    healthy_ = false;
    last_error_ = reason;
    failures_ = 1;
    next_attempt_ = clock_.now() + options_.schedule.delay(failures_, random_.uniform());
    open_count_ -= idle_.size();
    dropped.swap(idle_);
  }
  spdlog::warn("state backend {} failed ({}): each replica decides with its local breaker until it is back",
               options_.endpoint.url(), reason);
}

std::optional<RedisValue> RedisClient::command(const std::vector<std::string>& argv) {
  auto c = take();
  if (!c) return std::nullopt;
  std::string problem;
  auto v = run(*c, argv, problem);
  if (!v) {
    {
      std::lock_guard lock(mutex_);
      --open_count_;
    }
    c.reset();
    fail(problem);
    return std::nullopt;
  }
  give_back(std::move(c));
  return v;
}

std::optional<RedisValue> RedisClient::eval(const std::string& source, const std::vector<std::string>& keys,
                                            const std::vector<std::string>& args) {
  std::string sha;
  {
    std::lock_guard lock(mutex_);
    if (auto it = shas_.find(&source); it != shas_.end()) sha = it->second;
  }
  if (sha.empty()) {
    const auto loaded = command({"SCRIPT", "LOAD", source});
    if (!loaded) return std::nullopt;
    if (loaded->type != RedisValue::Type::string) {
      fail("SCRIPT LOAD: " + loaded->text);
      return std::nullopt;
    }
    sha = loaded->text;
    std::lock_guard lock(mutex_);
    shas_[&source] = sha;
  }
  std::vector<std::string> argv{"EVALSHA", sha, std::to_string(keys.size())};
  argv.insert(argv.end(), keys.begin(), keys.end());
  argv.insert(argv.end(), args.begin(), args.end());
  auto v = command(argv);
  if (v && v->type == RedisValue::Type::error && v->text.starts_with("NOSCRIPT")) {
    argv[0] = "EVAL";  // the server lost its script cache (SCRIPT FLUSH): send the source
    argv[1] = source;
    v = command(argv);
  }
  if (v && v->type == RedisValue::Type::error) {
    fail("Redis: " + v->text);
    return std::nullopt;
  }
  return v;
}

bool RedisClient::healthy() const {
  std::lock_guard lock(mutex_);
  return healthy_;
}

RedisHealth RedisClient::health() const {
  std::lock_guard lock(mutex_);
  return {healthy_, last_error_, errors_total_};
}

std::uint64_t RedisClient::epoch() const {
  std::lock_guard lock(mutex_);
  return epoch_;
}

}  // namespace quote_lab
