#pragma once
// What the command line asks for, as plain values: cli.cpp fills them from flags and
// environment variables (CLI11), serve_wiring.cpp turns them into running servers.

#include <cstdint>
#include <string>

namespace quote_lab {

/// Defaults of `serve` (SPEC.md, "Processes and ports").
inline constexpr int kDefaultPort = 8080;
inline constexpr int kDefaultCarrierPort = 8081;
inline constexpr int kDefaultWorkers = 16;
inline constexpr int kDefaultCarrierWorkers = 32;

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
  std::string policies_file;
  double open_duration_s = 0;  // 0: keep the policy's
  std::string public_dir;
  std::string chart_js = "/usr/share/javascript/chart.js/chart.min.js";
  int max_event_clients = 32;
  bool check_only = false;  // validate everything, bind nothing
};

/// `quote-lab carrier`: the simulated carrier alone.
struct CarrierOptions {
  std::string host = "127.0.0.1";
  int port = kDefaultCarrierPort;
  int workers = kDefaultCarrierWorkers;
};

}  // namespace quote_lab
