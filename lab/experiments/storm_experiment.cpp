#include "lab/experiments/storm_experiment.hpp"

#include <spdlog/spdlog.h>

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

StormExperiment::Start StormExperiment::start(StormOptions options, std::vector<std::string>& errors) {
  {
    std::lock_guard lock(mutex_);
    options.target = self_url_;
  }
  options.settle_s = 0;  // report at once; the dashboard shows the carrier catching up
  options.time_limit_s = kExperimentMaxDurationS;
  errors = validate(options);
  if (options.clients > kExperimentMaxClients)
    errors.push_back("clients must be at most " + std::to_string(kExperimentMaxClients) + " for a storm started from the lab");
  if (options.rate_per_s && *options.rate_per_s > kExperimentMaxRatePerS)
    errors.push_back("rate must be at most 500 arrivals per second for a storm started from the lab");
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
  thread_ = std::thread([this, options] {
    spdlog::info("storm experiment: {} on {}?scenario={} ({} layers)",
                 options.rate_per_s ? fmt::format("{} arrivals/s", *options.rate_per_s)
                                    : fmt::format("{} clients", options.clients),
                 storm_quote_path(options.mode), options.scenario, options.layers);
    const StormResult result = run_storm(
        options,
        [this](const StormProgress& p) {
          nlohmann::ordered_json j = {{"requests", p.requests}, {"elapsed_s", p.elapsed_s}, {"fraction", p.fraction}};
          {
            std::lock_guard lock(mutex_);
            progress_ = j;
          }
          events_.publish("storm_progress", j);
        },
        &cancel_);
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
      spdlog::info("storm experiment done: {} requests, amplification {}", result.requests,
                   result.amplification.value_or(0));
  });
  return Start::started;
}

void StormExperiment::forget_result() {
  std::lock_guard lock(mutex_);
  last_result_ = nullptr;
  if (!running_) current_.reset();
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
          {"last_result", last_result_.is_null() ? nlohmann::ordered_json(nullptr) : last_result_}};
}

}  // namespace quote_lab
