#pragma once
// POST /experiments/storm: the same storm as `quote-lab storm`, started from the lab
// against itself so the dashboard can offer it, or a goodput sweep (goodput_sweep.hpp):
// one open-loop storm per arrival rate, back to back. One at a time; progress, each
// sweep point and the result go out on the event stream; the last result stays readable.

#include <atomic>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "lab/experiments/storm.hpp"
#include "lab/http/event_hub.hpp"

namespace quote_lab {

/// Limits for storms started over HTTP (smaller than the command line's: the lab storms itself).
inline constexpr int kExperimentMaxClients = 100;
/// Open loop from the lab: arrivals per second at most. The lab answers its own storm on the
/// same 2 cores: 500 a second of fast quotes (an open breaker's fallback) leaves it room.
inline constexpr double kExperimentMaxRatePerS = 500;
inline constexpr double kExperimentMaxDurationS = 60;
/// Retrying layers a storm started over HTTP may have. Each layer multiplies the time of a
/// request by its attempts: legacy under provider_down answers in 1.44 s at one layer, 23 s
/// at three, 92 s at four — past the experiment's minute, and a cancel or a shutdown waits
/// for the requests in flight. The command line goes to kStormMaxLayers.
inline constexpr int kExperimentMaxLayers = 3;

class StormExperiment {
 public:
  explicit StormExperiment(EventHub& events);
  /// The lab's own address, e.g. "http://127.0.0.1:8080" (known once it listens).
  void set_self_url(std::string url);
  /// Called on the storm's thread when a storm has ended (done, cancelled or out of time),
  /// after it reads as not running. Set once, before the first start.
  void set_on_ended(std::function<void()> on_ended) { on_ended_ = std::move(on_ended); }
  ~StormExperiment();  // cancel_and_wait()
  /// Tells a running storm to stop (shutdown, DELETE /experiments/storm, /reset-lab) and
  /// returns at once: its clients send no new request; each ends when its request in
  /// flight is answered or refused (a quote is bounded, so within seconds). Returns
  /// whether a storm was running.
  bool cancel();
  /// cancel(), then waits for the storm's thread.
  void cancel_and_wait();

  enum class Start { started, busy, invalid };
  /// Starts `options` (its target is replaced by the lab itself) unless one is running.
  /// Whatever its parameters, it sends no request after kExperimentMaxDurationS.
  /// With `sweep_rates_per_s` (kSweepMinRates..kSweepMaxRates of them), a goodput sweep:
  /// `options` at each rate in turn (open loop), each step sending for `options.duration_s`,
  /// the steps' sending kExperimentMaxDurationS at most in all. On `invalid`, `errors` says why.
  Start start(StormOptions options, std::vector<std::string>& errors, std::vector<double> sweep_rates_per_s = {});

  /// Whether a storm is running now.
  bool running() const;

  /// Forgets the last result (the lab's reset); a running storm goes on.
  void forget_result();

  /// {"running", "options", "progress", "last_result", "sweep", "sweeps"} for GET /experiments/storm;
  /// options are {mode, scenario, load_model, clients (null open), rate_per_s (a sweep's:
  /// its current step's), arrivals and max_in_flight (null closed), sheddable_share,
  /// duration_s (a sweep's: each step's), requests, params, layers}; sweep is null for a
  /// lone storm, else {mode, scenario, params, started_at_ms (Unix time), rates_per_s,
  /// step_duration_s, state (running, done or cancelled), points: [sweep_point of each step
  /// that ran whole, in run order]} (the last sweep's until the next storm, a reset or a
  /// restart); sweeps the last sweep of each mode, scenario and params (merge_sweeps), []
  /// after a reset.
  nlohmann::ordered_json status() const;

 private:
  // The storm's thread: one storm, or each step of a sweep; then the result goes out.
  void run(StormOptions options, std::vector<double> sweep_rates_per_s);
  StormResult run_one(const StormOptions& options, int step, int steps);
  // A step's point (none when the step was cancelled) into the sweep, and the sweep out on
  // the stream; `last` also sets its state (done or cancelled). Nothing once a reset forgot it.
  void publish_sweep(std::optional<nlohmann::ordered_json> point, bool last);

  EventHub& events_;
  std::atomic<bool> cancel_{false};
  mutable std::mutex mutex_;  // guards the fields below and thread_
  std::string self_url_;
  bool running_ = false;
  std::optional<StormOptions> current_;
  nlohmann::ordered_json progress_;
  nlohmann::ordered_json last_result_;
  nlohmann::ordered_json sweep_;  // null, or the sweep status() shows
  nlohmann::ordered_json sweeps_ = nlohmann::ordered_json::array();  // merge_sweeps of every sweep since the reset
  std::thread thread_;
  std::function<void()> on_ended_;
};

}  // namespace quote_lab
