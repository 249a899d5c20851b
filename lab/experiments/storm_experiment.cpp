#include "lab/experiments/storm_experiment.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <optional>

#include "lab/experiments/goodput_sweep.hpp"
#include "lab/experiments/storm_report.hpp"
#include "lab/experiments/storm_target.hpp"

namespace quote_lab {

StormExperiment::StormExperiment(EventHub& events) : events_(events) {}

void StormExperiment::set_self_url(std::string url) {
  std::lock_guard lock(mutex_);
  self_url_ = std::move(url);
}

StormExperiment::~StormExperiment() { cancel_and_wait(); }

bool StormExperiment::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

bool StormExperiment::cancel() {
  std::lock_guard lock(mutex_);
  cancel_ = true;
  return running_;
}

void StormExperiment::cancel_and_wait() {
  cancel();
  std::thread t;
  {
    std::lock_guard lock(mutex_);
    t = std::move(thread_);
  }
  if (t.joinable()) t.join();
}

StormExperiment::Start StormExperiment::start(StormOptions options, std::vector<std::string>& errors,
                                               std::vector<double> sweep_rates_per_s) {
  {
    std::lock_guard lock(mutex_);
    options.target = self_url_;
  }
  options.settle_s = 0;  // report at once; the dashboard shows the carrier catching up
  options.time_limit_s = kExperimentMaxDurationS;
  const int steps = static_cast<int>(sweep_rates_per_s.size());
  if (steps > 0) options.rate_per_s = sweep_rates_per_s.front();  // checked as an open loop
  errors = validate(options);
  if (options.clients > kExperimentMaxClients)
    errors.push_back("clients must be at most " + std::to_string(kExperimentMaxClients) + " for a storm started from the lab");
  for (const double rate : steps > 0 ? sweep_rates_per_s : std::vector<double>{options.rate_per_s.value_or(0)})
    if (rate > kExperimentMaxRatePerS || (steps > 0 && rate < kStormMinRatePerS))
      errors.push_back("rate must be between 0.1 and 500 arrivals per second for a storm started from the lab");
  if (steps > 0 && (steps < kSweepMinRates || steps > kSweepMaxRates))
    errors.push_back("a sweep has " + std::to_string(kSweepMinRates) + " to " + std::to_string(kSweepMaxRates) + " rates");
  if (steps > 0 && (options.requests || steps * options.duration_s > kExperimentMaxDurationS))
    errors.push_back("a sweep's steps (rates × duration_s) must send for at most 60 s, without `requests`");
  if (options.max_in_flight > kExperimentMaxClients)
    errors.push_back("max_in_flight must be at most " + std::to_string(kExperimentMaxClients) +
                     " for a storm started from the lab");
  if (options.layers > kExperimentMaxLayers)
    errors.push_back("layers must be between 1 and " + std::to_string(kExperimentMaxLayers) +
                     " for a storm started from the lab (`quote-lab storm --layers` goes to " +
                     std::to_string(kStormMaxLayers) + ")");
  if (!options.requests && options.duration_s > kExperimentMaxDurationS)
    errors.push_back("duration_s must be at most 60 for a storm started from the lab");
  if (!errors.empty()) return Start::invalid;

  std::lock_guard lock(mutex_);
  if (running_) return Start::busy;
  if (thread_.joinable()) thread_.join();  // the previous one has finished
  running_ = true;
  cancel_ = false;  // a cancel before this start was for an earlier storm
  current_ = options;
  progress_ = {{"requests", 0}, {"elapsed_s", 0}, {"fraction", 0}};
  sweep_ = nullptr;
  if (steps > 0) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    sweep_ = {{"mode", options.mode}, {"scenario", options.scenario}, {"params", params_json(options.params)},
              {"started_at_ms", std::chrono::duration_cast<std::chrono::milliseconds>(now).count()},
              {"rates_per_s", sweep_rates_per_s}, {"step_duration_s", options.duration_s},
              {"state", "running"}, {"points", nlohmann::ordered_json::array()}};
    sweeps_ = merge_sweeps(sweeps_, nlohmann::ordered_json::array({sweep_}));
  }
  thread_ = std::thread([this, options, rates = std::move(sweep_rates_per_s)] { run(options, rates); });
  return Start::started;
}

void StormExperiment::publish_sweep(std::optional<nlohmann::ordered_json> point, bool last) {
  nlohmann::ordered_json sweep;
  {
    std::lock_guard lock(mutex_);
    if (sweep_.is_null()) return;  // forgotten by a reset, which also cancelled it
    if (point) sweep_["points"].push_back(std::move(*point));
    if (last) sweep_["state"] = cancel_ ? "cancelled" : "done";
    sweeps_ = merge_sweeps(sweeps_, nlohmann::ordered_json::array({sweep_}));
    sweep = sweep_;
  }
  events_.publish("storm_sweep", sweep);
}

StormResult StormExperiment::run_one(const StormOptions& options, int step, int steps) {
  spdlog::info("storm experiment: {} on {}?scenario={} ({} layers){}",
               options.rate_per_s ? fmt::format("{} arrivals/s", *options.rate_per_s)
                                  : fmt::format("{} clients", options.clients),
               storm_quote_path(options.mode), options.scenario, options.layers,
               steps > 0 ? fmt::format(", sweep step {} of {}", step + 1, steps) : "");
  {
    std::lock_guard lock(mutex_);
    current_ = options;
  }
  return run_storm(
      options,
      [this, step, steps](const StormProgress& p) {
        const double fraction = steps > 0 ? sweep_fraction(step, steps, p.fraction) : p.fraction;
        nlohmann::ordered_json j = {{"requests", p.requests}, {"elapsed_s", p.elapsed_s}, {"fraction", fraction}};
        if (steps > 0) j["sweep_step"] = step + 1;
        {
          std::lock_guard lock(mutex_);
          progress_ = j;
        }
        events_.publish("storm_progress", j);
      },
      &cancel_);
}

void StormExperiment::run(StormOptions options, std::vector<double> sweep_rates_per_s) {
  const int steps = static_cast<int>(sweep_rates_per_s.size());
  StormResult result;
  if (steps == 0) {
    result = run_one(options, 0, 0);
  } else {
    // Every step sends for its whole duration (start() bounded their sum), however long the
    // answers and the waits between steps take. A cancelled step is no point of the curve:
    // its arrivals stopped partway.
    for (int i = 0; i < steps && (i == 0 || !cancel_); ++i) {  // step 0 always: the result has its options
      result = run_one(sweep_step_options(options, sweep_rates_per_s[static_cast<std::size_t>(i)], i, steps), i, steps);
      if (cancel_) break;
      publish_sweep(sweep_point(result), i + 1 == steps);
    }
    if (cancel_) publish_sweep(std::nullopt, true);
  }
  auto j = to_json(result);
  {
    std::lock_guard lock(mutex_);
    last_result_ = j;
  }
  // Published before the storm reads as ended, so whoever sees `running: false` can count
  // on the result having gone out on the live stream.
  events_.publish("storm_result", j);
  {
    std::lock_guard lock(mutex_);
    running_ = false;
  }
  if (on_ended_) on_ended_();
  if (cancel_ || result.elapsed_s >= kExperimentMaxDurationS)
    spdlog::info("storm experiment cancelled or out of time after {} requests ({:.1f} s)", result.requests, result.elapsed_s);
  else
    spdlog::info("storm experiment done: {} requests, amplification {}", result.requests, result.amplification.value_or(0));
}

void StormExperiment::forget_result() {
  std::lock_guard lock(mutex_);
  last_result_ = nullptr;
  if (!running_) current_.reset();
  // A running sweep too: the reset that forgets it has cancelled it.
  sweep_ = nullptr;
  sweeps_ = nlohmann::ordered_json::array();
}

nlohmann::ordered_json StormExperiment::status() const {
  std::lock_guard lock(mutex_);
  nlohmann::ordered_json options = nullptr;
  if (current_)
    options = {{"mode", current_->mode}, {"scenario", current_->scenario}, {"load_model", load_model(*current_)},
               {"clients", current_->rate_per_s ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(current_->clients)},
               {"rate_per_s", current_->rate_per_s ? nlohmann::ordered_json(*current_->rate_per_s) : nlohmann::ordered_json(nullptr)},
               {"arrivals", current_->rate_per_s ? nlohmann::ordered_json(to_string(current_->arrivals)) : nlohmann::ordered_json(nullptr)},
               {"max_in_flight", current_->rate_per_s ? nlohmann::ordered_json(current_->max_in_flight) : nlohmann::ordered_json(nullptr)},
               {"sheddable_share", current_->sheddable_share},
               {"duration_s", current_->requests ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(current_->duration_s)},
               {"requests", current_->requests ? nlohmann::ordered_json(*current_->requests) : nlohmann::ordered_json(nullptr)},
               {"params", params_json(current_->params)},
               {"layers", current_->layers}};
  return {{"running", running_},
          {"options", options},
          {"progress", running_ ? progress_ : nlohmann::ordered_json(nullptr)},
          {"last_result", last_result_.is_null() ? nlohmann::ordered_json(nullptr) : last_result_},
          {"sweep", sweep_},
          {"sweeps", sweeps_}};
}

}  // namespace quote_lab
