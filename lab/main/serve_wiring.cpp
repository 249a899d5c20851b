#include "lab/main/serve_wiring.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <unistd.h>

#include "lab/api/lab_routes.hpp"
#include "lab/app/lab_app.hpp"
#include "lab/app/lab_registry.hpp"
#include "lab/carrier/carrier_server.hpp"
#include "lab/experiments/storm_experiment.hpp"
#include "lab/formats/policy_json.hpp"
#include "lab/http/http_server.hpp"
#include "lab/http/static_files.hpp"
#include "lab/main/classroom.hpp"
#include "lab/main/stop_signals.hpp"
#include "lab/shared_state/class_log.hpp"
#include "lab/shared_state/redis_client.hpp"
#include "lab/shared_state/redis_rate_limiter.hpp"
#include "lab/shared_state/redis_url.hpp"

namespace quote_lab {
namespace {

// The carrier's default capacity counts the class's storms and spare threads (options.hpp).
static_assert(kStormingLabs == static_cast<int>(kMaxStudentStorms) + 2);
static_assert(kDefaultCarrierWorkers == kStormingLabs * kDefaultWorkers * kCarrierCallsPerQuote + kClassCarrierCalls +
                                            kSpareCarrierWorkers);

namespace fs = std::filesystem;

std::uint64_t seed_of(const CommonOptions& o) {
  return o.seed >= 0 ? static_cast<std::uint64_t>(o.seed) : std::random_device{}();
}

}  // namespace

fs::path project_dir() {
  std::error_code ec;
  if (fs::is_directory("scenarios", ec)) return fs::current_path();
  for (fs::path p = fs::read_symlink("/proc/self/exe", ec).parent_path(); !ec && !p.empty(); p = p.parent_path()) {
    if (fs::is_directory(p / "scenarios", ec)) return p;
    if (p == p.parent_path()) break;
  }
  return QUOTE_LAB_SOURCE_DIR;
}

Policies policies_with_file(const std::string& policies_file) {
  Policies p = default_policies();
  if (policies_file.empty()) return p;
  std::error_code ec;
  if (fs::is_directory(policies_file, ec)) throw PolicyError(policies_file + ": is a folder, not a policies file");
  std::ifstream in(policies_file);
  if (!in) throw PolicyError(policies_file + ": cannot be read");
  const auto j = nlohmann::ordered_json::parse(in, nullptr, false);
  if (j.is_discarded()) throw PolicyError(policies_file + ": not valid JSON");
  try {
    return policies_from_json(j, p);
  } catch (const PolicyError& e) {
    throw PolicyError(policies_file + ": " + e.what());
  }
}

namespace {

Policies load_policies(const ServeOptions& o) {
  Policies p = policies_with_file(o.policies_file);
  if (o.open_duration_s != 0) {  // 0 = keep the policy's; NaN and the rest are validated
    p.breaker.open_duration_s = o.open_duration_s;
    if (auto errors = validate(p); !errors.empty()) throw PolicyError("--open-duration-s: " + errors.front());
  }
  return p;
}

// --state-backend: nullopt for the file; a malformed value stops start-up (exit 1).
std::optional<RedisEndpoint> state_backend_of(const ServeOptions& o) {
  std::string problem;
  const auto choice = parse_state_backend(o.state_backend, problem);
  if (!choice) throw std::runtime_error("--state-backend: " + problem);
  return choice->redis;
}

// Where this run reads and writes: the flags, or the project folder's defaults.
struct ServePaths {
  fs::path scenarios_dir;
  fs::path public_dir;
  fs::path state_file;
};

ServePaths paths_of(const ServeOptions& o, const CommonOptions& common) {
  const fs::path root = project_dir();
  return {common.scenarios_dir.empty() ? root / "scenarios" : fs::path(common.scenarios_dir),
          o.public_dir.empty() ? root / "public" : fs::path(o.public_dir),
          o.state_file.empty() ? root / "var" / "state.json" : fs::path(o.state_file)};
}

// Reached once now: nothing listening at start-up is a mistake to report (exit 1); a Redis
// that goes down later is survived (each replica decides alone until it is back).
std::unique_ptr<RedisClient> connect_shared_state(const std::optional<RedisEndpoint>& redis, const ServeOptions& o,
                                                  Clock& clock, RandomSource& random) {
  if (!redis) return nullptr;
  auto client = std::make_unique<RedisClient>(
      RedisClient::Options{.endpoint = *redis, .timeout = Millis(o.state_backend_timeout_ms)}, clock, random);
  client->connect_or_throw();
  return client;
}

// The simulated carrier in this process, unless --carrier-url names another one.
// With Redis, the class log that makes the replicas one classroom; named after this
// process (host, pid, a random draw: a restarted replica is a new instance).
std::unique_ptr<ClassLog> class_log_of(RedisClient* shared_state) {
  if (!shared_state) return nullptr;
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return std::make_unique<ClassLog>(*shared_state, std::string(host) + ":" + std::to_string(::getpid()) + ":" +
                                                       std::to_string(std::random_device{}()));
}

struct Carrier {
  std::unique_ptr<CarrierSimulator> simulator;
  std::unique_ptr<CarrierServer> server;
  std::string url;
};

Carrier start_carrier(const ServeOptions& o, const ScenarioCatalog& catalog, Clock& clock, RandomSource& random) {
  Carrier c;
  c.url = o.carrier_url;
  if (!c.url.empty()) return c;
  c.simulator = std::make_unique<CarrierSimulator>(catalog, random);
  c.server = std::make_unique<CarrierServer>(*c.simulator, clock);
  const int port = c.server->start(o.carrier_host, o.carrier_port, o.carrier_workers);
  c.url = "http://" + o.carrier_host + ":" + std::to_string(port);
  return c;
}

// The limiter comes from the state backend: in this process by default; with Redis one
// count shared by every replica, the in-process one deciding while Redis is unreachable.
RateLimiterFactory rate_limiters_of(RedisClient* shared_state, Clock& clock) {
  if (!shared_state) return in_process_rate_limiters(clock);
  return [shared_state, &clock](const RateLimitSettings& s) -> std::shared_ptr<RateLimiter> {
    return std::make_shared<RedisRateLimiter>(*shared_state, s, std::make_unique<InProcessRateLimiter>(clock, s));
  };
}

// What runs, in the log: a teacher reads it to check the class's settings.
void log_started(const ServeOptions& o, const ServePaths& paths, const ScenarioCatalog& catalog,
                 const Policies& policies, const Carrier& carrier, const std::optional<RedisEndpoint>& redis, int port) {
  const auto& r = policies.resilient;
  const auto& l = policies.legacy;
  spdlog::info("quote-lab listening on http://{}:{} with {} quote workers, up to {} connections ({} live dashboards)",
               o.host, port, o.workers, o.classroom.max_connections, o.max_event_clients);
  spdlog::info("carrier: {} ({}, {} workers)", carrier.url,
               carrier.simulator ? "embedded simulator" : "external", carrier.simulator ? o.carrier_workers : 0);
  spdlog::info("scenarios: {} from {}", catalog.all().size(), paths.scenarios_dir.string());
  // A shedding scenario whose one lab's capacity and queue need more workers than its queues
  // may hold: the rest is shed as workers_busy, which a teacher (or a script sweeping
  // capacities) should know before reading the figures.
  const int may_hold = std::max(1, o.carrier_workers - kSpareCarrierWorkers);
  for (const auto& s : catalog.all())
    if (carrier.simulator && s.shedding && s.shedding->capacity + s.shedding->queue.max > may_hold)
      spdlog::warn("scenario {}: capacity {} + queue {} exceed the {} calls the carrier's queues may hold "
                   "(--carrier-workers {} - {}): calls beyond are shed as workers_busy", s.name, s.shedding->capacity,
                   s.shedding->queue.max, may_hold, o.carrier_workers, kSpareCarrierWorkers);
  const auto on = [](const RetryPolicy& p, Strategy s) { return p.uses(s) ? "on" : "off"; };
  spdlog::info("legacy policy: timeout {} ms x {} attempts, no backoff, breaker {}, fallback {}",
               l.timeout_ms, l.max_attempts, on(l, Strategy::circuit_breaker), on(l, Strategy::fallback));
  spdlog::info("resilient policy: timeout {} ms x {} attempts, backoff {} ms x 2^(n-1) + {} jitter {}-{} ms (cap {} ms), "
               "breaker opens after {} failures for {} s, fallback {}",
               r.timeout_ms, r.max_attempts, r.backoff_base_ms, to_string(r.jitter), r.jitter_min_ms,
               r.jitter_max_ms, r.backoff_max_ms, policies.breaker.failure_threshold,
               policies.breaker.open_duration_s, on(r, Strategy::fallback));
  spdlog::info("state file: {}", paths.state_file.string());
  spdlog::info("messages in {} unless a request's Accept-Language asks for {} (--language {})",
               o.language == Language::es ? "Spanish" : "English", o.language == Language::es ? "English" : "Spanish",
               o.language == Language::es ? "es" : "en");
  if (o.rate_limit.limit > 0)
    spdlog::info("rate limit: {} quote requests per {} s per client ({})", o.rate_limit.limit, o.rate_limit.window_s,
                 o.rate_limit.trusted_proxy_header.empty() ? "the client is the peer address"
                                                           : "the client is the last entry of " + o.rate_limit.trusted_proxy_header);
  if (redis)
    spdlog::info("state backend: {} (breaker shared by every replica on it; round trips bounded by {} ms)",
                 redis->url(), o.state_backend_timeout_ms);
  const std::string shown_host = o.host == "0.0.0.0" ? "127.0.0.1" : o.host;
  if (fs::exists(paths.public_dir / "index.html"))
    spdlog::info("open http://{}:{}/ in a browser for the dashboard (curl it for the JSON index)", shown_host, port);
  else
    spdlog::info("try: curl 'http://{}:{}/quote-legacy?scenario=provider_down'", shown_host, port);
}

// Waits for a stop signal, then stops in order and saves once; a second signal exits at
// once, saving what it can. Returns when the first signal arrived.
std::chrono::steady_clock::time_point stop_on_signal(const StopSignals& signals, HttpServer& server, LabRegistry& labs, Carrier& carrier,
                    const fs::path& state_file) {
  const int sig = signals.wait();
  const auto stop_started = std::chrono::steady_clock::now();
  auto since_signal_ms = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - stop_started).count();
  };
  spdlog::info("{} received: stopping; a second Ctrl-C or SIGTERM exits at once", signal_name(sig));
  std::mutex save_mutex;  // the final save happens once, from the graceful stop or the urgent exit
  bool saved = false;
  auto save_state = [&] {
    std::lock_guard lock(save_mutex);
    if (saved) return;
    // A failed write is logged by the lab's error sink ("cannot save state ...").
    spdlog::info("saving the state to {}", state_file.string());
    labs.flush_state();
    saved = true;
  };
  signals.run_graceful(
      [&] {
        // The order matters: the listener closes first, so that connections whose request
        // ends now (event streams, refused waiters) close instead of waiting for another one.
        server.stop_accepting();
        // Every lab: no new attempt, backoff waits end, waiting requests get a 503, open
        // event streams end, storms send nothing more.
        labs.begin_shutdown();
        spdlog::info("no longer accepting connections; waiting for the requests in flight (each ends by its deadline)");
        server.stop();  // in-flight flows finish against a live carrier, so shutdown cannot open the breaker
        labs.wait_for_storms();
        spdlog::info("requests in flight finished after {} ms", since_signal_ms());
        if (carrier.server) carrier.server->stop();
        save_state();
      },
      [&](int second) {
        spdlog::warn("{} received again: exiting now without waiting for the requests in flight", signal_name(second));
        save_state();
      });
  return stop_started;
}

}  // namespace

int run_serve(const ServeOptions& o, const CommonOptions& common) {
  const StopSignals signals;
  const ServePaths paths = paths_of(o, common);
  const ScenarioCatalog catalog = ScenarioCatalog::load_dir(paths.scenarios_dir);
  const Policies policies = load_policies(o);
  check_state_path(paths.state_file);  // before any listener starts: a device or FIFO stops start-up here
  const std::optional<RedisEndpoint> redis = state_backend_of(o);
  if (o.check_only) {
    spdlog::info("configuration is valid: {} scenarios from {}, policies {}, would listen on {}:{}",
                 catalog.all().size(), paths.scenarios_dir.string(),
                 o.policies_file.empty() ? "built in" : o.policies_file, o.host, o.port);
    return 0;
  }
  SystemClock clock;
  RandomSource random(seed_of(common));
  // Lab keys from a source of their own, never seeded by --seed: a seeded run must not
  // hand out keys anyone can compute, nor shift the draws it reproduces by the keys it issued.
  RandomSource key_random(std::random_device{}());
  const std::unique_ptr<RedisClient> shared_state = connect_shared_state(redis, o, clock, random);
  const std::unique_ptr<ClassLog> class_log = class_log_of(shared_state.get());
  Carrier carrier = start_carrier(o, catalog, clock, random);
  // The embedded carrier can refuse a connection for real ("refused" scenarios); a carrier
  // reached over --carrier-url cannot, and resets those attempts instead.
  HttpCarrierClient carrier_client(carrier.url, clock, carrier.simulator ? refusing_route(*carrier.simulator, *carrier.server)
                                                                         : HttpCarrierClient::Route{});
  auto labs = std::make_unique<LabRegistry>(
      LabDeps{.scenarios = catalog,
              .policies = policies,
              .carrier = carrier_client,
              .embedded_carrier = carrier.simulator.get(),
              .clock = clock,
              .random = random,
              .max_event_clients = static_cast<std::size_t>(o.max_event_clients),
              .shared_state = shared_state.get(),
              .class_log = class_log.get(),
              .http_routes = route_templates()},
      paths.state_file,
      LabLimits{static_cast<std::size_t>(o.classroom.max_labs), std::chrono::minutes(o.classroom.lab_idle_minutes),
                o.classroom.teacher_name, o.workers},
      &key_random);
  labs->start_class_log();
  HttpServer server;
  apply_classroom(server, o.host, o.classroom, o.language);
  server.set_default_language(o.language);  // the lab's answers only: the embedded carrier keeps English
  register_lab_routes(server, *labs, StaticRoots{paths.public_dir, o.chart_js}, carrier.url,
                      make_rate_limit_gate(o.rate_limit, rate_limiters_of(shared_state.get(), clock)),
                      o.classroom.admin_token);
  // With connection limits set (apply_classroom), the server has a thread per connection up
  // to --max-connections, and `workers` bounds only each lab's quote routes (WorkerSlots).
  const int port = server.start(o.host, o.port, o.workers + o.max_event_clients);
  labs->set_self_url("http://" + (o.host == "0.0.0.0" ? std::string("127.0.0.1") : o.host) + ":" + std::to_string(port));
  log_started(o, paths, catalog, policies, carrier, redis, port);

  const auto stop_started = stop_on_signal(signals, server, *labs, carrier, paths.state_file);
  if (class_log) class_log->stop();  // its thread applies entries to the labs
  labs.reset();
  spdlog::info("stopped cleanly in {} ms", std::chrono::duration_cast<std::chrono::milliseconds>(
                                                 std::chrono::steady_clock::now() - stop_started).count());
  return 0;
}

int run_carrier(const CarrierOptions& o, const CommonOptions& common) {
  const StopSignals signals;
  const fs::path scenarios_dir = common.scenarios_dir.empty() ? project_dir() / "scenarios" : fs::path(common.scenarios_dir);
  const ScenarioCatalog catalog = ScenarioCatalog::load_dir(scenarios_dir);
  SystemClock clock;
  RandomSource random(seed_of(common));
  CarrierSimulator simulator(catalog, random);
  CarrierServer server(simulator, clock);
  const int bound = server.start(o.host, o.port, o.workers);
  spdlog::info("carrier simulator listening on http://{}:{} with {} workers, {} scenarios", o.host, bound,
               o.workers, catalog.all().size());
  const int sig = signals.wait();
  spdlog::info("{} received: stopping; simulated waits end now with a 503; a second Ctrl-C or SIGTERM exits at once",
               signal_name(sig));
  signals.run_graceful([&] { server.stop(); },
                       [](int second) { spdlog::warn("{} received again: exiting now", signal_name(second)); });
  spdlog::info("carrier stopped");
  return 0;
}

}  // namespace quote_lab
