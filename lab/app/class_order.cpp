#include "lab/app/class_order.hpp"

#include "lab/experiments/goodput_sweep.hpp"
#include "lab/shared_state/class_log.hpp"

namespace quote_lab {
namespace {

// Whether a barrier ("" none) stands after `id` in the class's order.
bool after(const std::string& barrier, const std::string& id) {
  return !barrier.empty() && ClassLog::before(id, barrier);
}

}  // namespace

void ClassOrder::placed(bool reset, const std::string& id) {
  std::lock_guard lock(mutex_);
  auto raise = [&id](std::string& barrier) {
    if (barrier.empty() || ClassLog::before(barrier, id)) barrier = id;
  };
  raise(mode_barrier_);  // a reset sets the mode too
  if (reset) raise(reset_barrier_);
}

bool ClassOrder::read_back(bool setting, bool reset, const std::string& id) {
  std::lock_guard lock(mutex_);
  last_entry_ = id;
  const std::string& barrier = reset ? reset_barrier_ : mode_barrier_;
  return setting && (barrier.empty() || ClassLog::before(barrier, id));
}

ClassOrder::Take ClassOrder::take(const std::string& id, bool carrier_mode) {
  std::lock_guard lock(mutex_);
  if (!installed_through_.empty() && !ClassLog::before(installed_through_, id)) return Take::ignore;
  last_entry_ = id;
  if (after(reset_barrier_, id)) return Take::ignore;
  if (!after(mode_barrier_, id)) return Take::apply;
  return carrier_mode ? Take::ignore : Take::apply_keeping_mode;
}

std::optional<ClassOrder::Position> ClassOrder::position_through(const std::string& through,
                                                                 const nlohmann::ordered_json& storm) const {
  std::lock_guard lock(mutex_);
  if (history_incomplete_ || after(reset_barrier_, through) || after(mode_barrier_, through)) return std::nullopt;
  return Position{last_entry_, storm.is_null() ? remote_storm_ : storm};
}

void ClassOrder::installed(const std::string& through, const std::string& last_entry, nlohmann::ordered_json storm) {
  std::lock_guard lock(mutex_);
  remote_storm_ = std::move(storm);
  installed_through_ = through;
  last_entry_ = last_entry;
  history_incomplete_ = false;
}

void ClassOrder::reset() {
  std::lock_guard lock(mutex_);
  remote_storm_ = nullptr;
  history_incomplete_ = false;  // nothing before a reset counts
}

std::string ClassOrder::last_entry() const {
  std::lock_guard lock(mutex_);
  return last_entry_;
}

void ClassOrder::mark_history_incomplete() {
  std::lock_guard lock(mutex_);
  history_incomplete_ = true;
}

bool ClassOrder::history_incomplete() const {
  std::lock_guard lock(mutex_);
  return history_incomplete_;
}

nlohmann::ordered_json ClassOrder::remote_storm() const {
  std::lock_guard lock(mutex_);
  return remote_storm_;
}

void ClassOrder::follow_remote_storm(const ClassEvent& e) {
  const auto data = nlohmann::ordered_json::parse(e.line, nullptr, false);
  if (data.is_discarded()) return;
  std::lock_guard lock(mutex_);
  if (e.type == "storm_status") {
    remote_storm_ = data;
    return;
  }
  if (!remote_storm_.is_object())
    remote_storm_ = {{"running", false}, {"options", nullptr}, {"progress", nullptr}, {"last_result", nullptr},
                     {"sweep", nullptr}, {"sweeps", nlohmann::ordered_json::array()}};
  if (e.type == "storm_progress") {
    remote_storm_["running"] = true;
    remote_storm_["progress"] = data;
    remote_storm_["last_result"] = nullptr;
  } else if (e.type == "storm_sweep") {
    remote_storm_["sweep"] = data;
    remote_storm_["sweeps"] = merge_sweeps(remote_storm_.value("sweeps", nlohmann::ordered_json::array()),
                                           nlohmann::ordered_json::array({data}));
  } else if (e.type == "storm_result") {
    remote_storm_["running"] = false;
    remote_storm_["progress"] = nullptr;
    remote_storm_["last_result"] = data;
  }
}

void ClassOrder::place_storm_start(const std::function<std::optional<std::string>()>& place) {
  std::lock_guard lock(storm_mutex_);
  storm_started_ = place().value_or("0");
}

bool ClassOrder::storm_started_before(const std::string& id) const {
  std::lock_guard lock(storm_mutex_);
  return !storm_started_.empty() && ClassLog::before(storm_started_, id);
}

}  // namespace quote_lab
