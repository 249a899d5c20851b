#pragma once
// What the command line asks for, as plain values: cli.cpp fills them from flags and
// environment variables (CLI11), serve_wiring.cpp turns them into running servers.

#include <cstdint>
#include <string>
#include <vector>

#include "lab/http/accept.hpp"
#include "lab/http/connection_limits.hpp"
#include "lab/resilience/rate_limiter.hpp"

namespace quote_lab {

/// Defaults of `serve` (SPEC.md, "Processes and ports").
inline constexpr int kDefaultPort = 8080;
inline constexpr int kDefaultCarrierPort = 8081;
inline constexpr int kDefaultWorkers = 16;
/// Carrier threads one quote can hold at once: its live attempt and up to two abandoned ones
/// the carrier still serves (legacy retries at once every 360 ms, while slow_provider holds a
/// call 640-730 ms and provider_down until the caller's deadline + 250 ms). So a lab holds at
/// most this × its --workers: its storms are bounded by its own bulkhead, at the carrier too.
inline constexpr int kCarrierCallsPerQuote = 3;
/// Labs that storm at once in a class: the kMaxStudentStorms (4) the class may run and the
/// teacher's two demos (lesson steps 5 and 6).
inline constexpr int kStormingLabs = 6;
/// The rest of the class: 30 students and the teacher, each with one curl at a time, which
/// holds two carrier calls at most (flaky_provider's first attempt is still served while the
/// second runs).
inline constexpr int kClassCarrierCalls = 31 * 2;
/// 354: every storming lab at its bound, the class beside them and the 4 threads the shedding
/// stations always leave for other calls (kSpareCarrierWorkers), so no lab's calls wait for
/// another's. At 144, four student storms on provider_down held all 144 (about 34 each) and 30
/// students' flaky_provider quotes, waiting for a carrier thread, completed in 4-14 of 30
/// (30 of 30 at 384, peak 188 in flight). A thread starts only when a call needs one
/// (growing_thread_pool.hpp): the bound costs nothing until a class reaches it.
/// It also bounds the shedding scenarios' queues, every lab's together (shedding_stations.hpp).
inline constexpr int kDefaultCarrierWorkers =
    kStormingLabs * kDefaultWorkers * kCarrierCallsPerQuote + kClassCarrierCalls + 4;

/// Connections the lab holds at once by default: five storms started from the lab at their
/// largest (the teacher's and kMaxStudentStorms students', 100 clients each: 500), 30
/// dashboards (a live stream and two keep-alive connections each: 90) and the class's curls,
/// with room to spare. Each one holds a thread while it is open, started when a connection
/// first needs it (growing_thread_pool.hpp; 768 of them: 18 MB of the lab's memory,
/// measured); each lab's quotes are bounded by --workers.
inline constexpr int kDefaultMaxConnections = 768;

/// Student labs held at once by default: 40 students through the whole lesson, each with its
/// 9 labs (paso0 … paso8), and 40 more labs for the scenario lessons — a class of 30 with a
/// third to spare. The teacher's labs (--teacher-name) are not counted. A lab that answered a
/// quote holds about 0.6 MB (400 of them: 250 MB, measured).
inline constexpr int kDefaultMaxLabs = 400;
/// The owner of the teacher's labs (`?lab=profe-paso5`): the kit's `YO=profe`. Those labs
/// count toward no student limit, their storms are always admitted, and class-wide actions
/// leave them alone.
inline constexpr const char* kDefaultTeacherName = "profe";
/// Minutes without a request after which a student lab is forgotten: longer than a class.
inline constexpr int kDefaultLabIdleMinutes = 120;

/// The classroom flags' values, with their defaults.
struct ClassroomOptions {
  int max_connections = kDefaultMaxConnections;
  double head_timeout_s = ConnectionLimits::kDefaultHeadTimeoutMs / 1000.0;
  int max_head_kb = static_cast<int>(ConnectionLimits::kDefaultMaxHeadBytes / 1024);
  int keep_alive_timeout_s = ConnectionLimits::kDefaultKeepAliveTimeoutMs / 1000;
  int keep_alive_max_requests = ConnectionLimits::kDefaultKeepAliveMaxRequests;
  std::string admin_token;                 ///< empty: anyone may reset the lab, set its mode, storm it
  std::vector<std::string> allowed_hosts;  ///< host names besides IP literals and localhost
  int max_labs = kDefaultMaxLabs;                  ///< student labs (?lab=NAME) at once
  int lab_idle_minutes = kDefaultLabIdleMinutes;   ///< idle student labs are forgotten after this
  std::string teacher_name = kDefaultTeacherName;  ///< the owner of the teacher's labs
};

/// The rate-limit flags' values (rate_limiting.hpp applies them).
struct RateLimitOptions {
  int limit = 0;                                     ///< quote requests per window per client; 0 = off
  int window_s = RateLimitSettings::kDefaultWindowS; ///< the window, seconds
  /// A request header that names the client (e.g. "X-Forwarded-For"), set by a proxy in
  /// front of the lab. Empty (the default): the client is the connection's peer address, and
  /// no header is believed — a client could write any address in it.
  std::string trusted_proxy_header;
};

/// Flags every server subcommand takes.
struct CommonOptions {
  std::string scenarios_dir;
  std::string log_level = "info";
  std::int64_t seed = -1;
};

/// `quote-lab serve`: the lab and, unless carrier_url is set, its embedded carrier.
struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = kDefaultPort;
  std::string carrier_host = "127.0.0.1";
  int carrier_port = kDefaultCarrierPort;
  std::string carrier_url;
  int workers = kDefaultWorkers;
  int carrier_workers = kDefaultCarrierWorkers;
  std::string state_file;
  /// `file` or `redis://[[USER]:PASSWORD@]HOST:PORT[/DB]` (validated at start-up: a bad one,
  /// an unreachable Redis or a refused password exits 1).
  std::string state_backend = "file";
  int state_backend_timeout_ms = 50;  ///< bound on every Redis connect and round trip
  std::string policies_file;
  double open_duration_s = 0;  // 0: keep the policy's
  std::string public_dir;
  std::string chart_js = "/usr/share/javascript/chart.js/chart.min.js";
  int max_event_clients = 32;
  /// `--language es|en`: the language of messages (errors, policy_note, resets...) for
  /// requests whose Accept-Language names neither (curl sends none). English by default, as
  /// the public contract's tests expect; `es` for a class that follows the Spanish lessons
  /// with curl. A request that names one still gets it.
  Language language = Language::en;
  bool check_only = false;  // validate everything, bind nothing
  ClassroomOptions classroom;  // connections, request heads, teacher token, host names
  RateLimitOptions rate_limit;  // --rate-limit, --rate-window-s, --trusted-proxy-header (off by default)
};

/// `quote-lab carrier`: the simulated carrier alone.
struct CarrierOptions {
  std::string host = "127.0.0.1";
  int port = kDefaultCarrierPort;
  int workers = kDefaultCarrierWorkers;
};

}  // namespace quote_lab
