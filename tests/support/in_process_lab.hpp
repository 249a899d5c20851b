#pragma once
// The lab's HTTP surface in the test process: the real route table (register_lab_routes) on
// a real HttpServer bound to 127.0.0.1 port 0, with the classroom's checks applied as
// `serve` applies them (serve_wiring.cpp), the dashboard's files from public/, and the
// shipped scenarios played by the real CarrierSimulator on a fake clock
// (simulated_carrier.hpp): a quote's timeouts and backoffs take no real time, and no child
// process is started. For what an answer says over HTTP (statuses, headers, JSON errors,
// languages, the index); what only a process shows (signals, the state file across
// restarts, real timeouts against the real carrier, the live stream's lifetime, worker
// starvation) stays in the process tests (lab_process.hpp). carrier_gate() holds one lab's
// carrier calls until the test releases them (held_carrier.hpp): a quote still running.

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "lab/api/lab_routes.hpp"
#include "lab/api/rate_limiting.hpp"
#include "lab/app/lab_registry.hpp"
#include "lab/http/http_server.hpp"
#include "lab/http/static_files.hpp"
#include "lab/main/classroom.hpp"
#include "support/fake_clock.hpp"
#include "support/fixed_random.hpp"
#include "support/held_carrier.hpp"
#include "support/lab_client.hpp"
#include "support/paths.hpp"
#include "support/simulated_carrier.hpp"
#include "support/temp_dir.hpp"

namespace quote_lab::testing {

/// How an InProcessLab is set up: `serve`'s defaults unless a case changes them.
struct InProcessOptions {
  ClassroomOptions classroom{};
  RateLimitOptions rate_limit{};
  int workers = kDefaultWorkers;
  std::size_t max_event_clients = 32;
  /// Every random draw (carrier latency, backoff jitter) at this point of its range.
  double draw = 0.5;
  /// The state file; empty: one in a temporary folder of the lab's own. A second lab on the
  /// first one's file is that lab restarted.
  std::filesystem::path state_file{};
};

class InProcessLab {
 public:
  explicit InProcessLab(InProcessOptions o = {})
      : random_(o.draw),
        carrier_(scenarios(), random_, clock_),
        gate_(carrier_),
        labs_(std::make_unique<LabRegistry>(
            LabDeps{.scenarios = scenarios(),
                    .policies = default_policies(),
                    .carrier = gate_,
                    .embedded_carrier = &carrier_.simulator(),
                    .clock = clock_,
                    .random = random_,
                    .max_event_clients = o.max_event_clients,
                    .http_routes = route_templates()},
            o.state_file.empty() ? dir_ / "state.json" : o.state_file,
            LabLimits{static_cast<std::size_t>(o.classroom.max_labs), std::chrono::minutes(o.classroom.lab_idle_minutes),
                      o.classroom.teacher_name, o.workers})) {
    apply_classroom(server_, "127.0.0.1", o.classroom);
    register_lab_routes(server_, *labs_, StaticRoots{std::filesystem::path(source_dir()) / "public"}, kCarrierUrl,
                        make_rate_limit_gate(o.rate_limit, in_process_rate_limiters(clock_)),
                        o.classroom.admin_token);
    port_ = server_.start("127.0.0.1", 0, o.workers + static_cast<int>(o.max_event_clients));
    labs_->set_self_url("http://127.0.0.1:" + std::to_string(port_));
    // Ready means answering. Under ThreadSanitizer on two loaded cores the first answer was
    // seen to take over 2 s while the server's threads start; a case's own bounds must not
    // pay for that.
    if (get("/health").status != 200) throw std::runtime_error("the in-process lab did not answer /health");
  }
  ~InProcessLab() {
    gate_.release();  // a held quote must not hold the stop
    server_.stop_accepting();
    labs_->begin_shutdown();
    server_.stop();
    labs_->wait_for_storms();
  }
  InProcessLab(const InProcessLab&) = delete;
  InProcessLab& operator=(const InProcessLab&) = delete;

  Reply request(const std::string& method, const std::string& path, const httplib::Headers& headers = {},
                const std::string& body = "") const {
    return http_request(port_, method, path, headers, body);
  }
  Reply get(const std::string& path, const httplib::Headers& headers = {}) const { return request("GET", path, headers); }
  /// Sends `raw` bytes as they are (lab_client.hpp's raw_status). The wait only ends a test
  /// that already failed: 10 s, since under ThreadSanitizer on two loaded cores an answer
  /// was seen to take 2.4 s.
  int raw_status(const std::string& raw, std::chrono::milliseconds wait = std::chrono::milliseconds(10000)) const {
    return quote_lab::testing::raw_status(port_, raw, wait);
  }

  int port() const { return port_; }
  FakeClock& clock() { return clock_; }
  LabRegistry& labs() { return *labs_; }
  /// Holds a lab's carrier calls until released: every call goes through it.
  HeldCarrier& carrier_gate() { return gate_; }

  /// What / and /health show as the carrier's address: nothing listens there, the carrier
  /// is called in-process.
  static constexpr const char* kCarrierUrl = "http://127.0.0.1:9";

 private:
  static const ScenarioCatalog& scenarios() {
    static const ScenarioCatalog catalog = ScenarioCatalog::load_dir(std::filesystem::path(source_dir()) / "scenarios");
    return catalog;
  }

  TempDir dir_;
  FakeClock clock_;
  FixedRandom random_;
  SimulatedCarrier carrier_;
  HeldCarrier gate_;  // in front of carrier_: what the labs call
  std::unique_ptr<LabRegistry> labs_;
  HttpServer server_;  // after labs_: stopped (its handlers done) before the labs go
  int port_ = 0;
};

}  // namespace quote_lab::testing
