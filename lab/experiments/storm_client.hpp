#pragma once
// One storm request, sent and judged, and what the storm's senders share while it runs: the
// closed loop's clients (each waits for its answer before the next) and the open loop's
// senders (open_loop.hpp) send and record their requests the same way, so both report the
// same status mix, latency, goodput and timeline.

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lab/experiments/storm.hpp"
#include "lab/experiments/storm_tally.hpp"
#include "lab/experiments/storm_timeline.hpp"

namespace quote_lab {

using StormSteady = std::chrono::steady_clock;

/// A keep-alive client for a storm: 5 s to connect, `read_timeout` for an answer.
std::unique_ptr<httplib::Client> storm_http_client(const std::string& target, std::chrono::seconds read_timeout);


/// What every sender of one storm shares. `sequence` numbers the requests (their priority,
/// priority_mix.hpp); `finished` counts those with an answer or an error.
struct StormRun {
  const StormOptions& o;
  const std::atomic<bool>* cancel;
  StormSteady::time_point started = StormSteady::now();
  std::atomic<long> issued{0};
  std::atomic<long> sequence{0};
  std::atomic<long> finished{0};
  std::atomic<bool> stop{false};  ///< a 4xx: every request would fail alike

  StormSteady::time_point after(double seconds) const {
    return started + std::chrono::duration_cast<StormSteady::duration>(std::chrono::duration<double>(seconds));
  }
  double since_start_s(StormSteady::time_point t) const { return std::chrono::duration<double>(t - started).count(); }
  /// A 4xx, a cancel or the time limit: no new request.
  bool interrupted() const {
    return stop.load() || (cancel && cancel->load()) || (o.time_limit_s > 0 && StormSteady::now() >= after(o.time_limit_s));
  }
  /// interrupted(), or a storm by duration whose duration is over.
  bool should_stop() const { return interrupted() || (!o.requests && StormSteady::now() >= after(o.duration_s)); }
};

/// Sends request number `k` (its priority) on `cli` to `path`, arrived at `arrival` (its
/// latency and deadline count from there), and records the answer in `log`. Returns false
/// when no answer came (the caller opens a fresh connection). Never throws.
bool send_storm_request(StormRun& run, httplib::Client& cli, const std::string& path, long k,
                        StormSteady::time_point arrival, ClientLog& log);

/// A closed-loop client: asks `path` of `target` back to back until the storm ends.
void run_storm_client(StormRun& run, const std::string& target, std::chrono::seconds timeout, const std::string& path,
                      ClientLog& log);

}  // namespace quote_lab
