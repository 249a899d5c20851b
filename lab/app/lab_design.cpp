#include "lab/app/lab_design.hpp"

#include <stdexcept>

#include "lab/base/time_format.hpp"
#include "lab/shared_state/class_log.hpp"

namespace quote_lab {

nlohmann::ordered_json to_json(const LabDesign& d) {
  return {{"id", d.id},
          {"submitted_utc", format_iso8601(d.submitted_at)},
          {"pipeline", d.pipeline},
          {"scorecard", to_json(d.card)}};
}

LabDesign design_from_json(const nlohmann::ordered_json& j) {
  try {
    LabDesign d;
    d.id = j.at("id").get<std::string>();
    const auto at = parse_iso8601(j.at("submitted_utc").get<std::string>());
    if (!at) throw std::invalid_argument("design: submitted_utc is not an ISO 8601 time");
    d.submitted_at = *at;
    d.pipeline = j.at("pipeline");
    if (!d.pipeline.is_array()) throw std::invalid_argument("design: pipeline is not a list");
    d.card = scorecard_from_json(j.at("scorecard"));
    return d;
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("design: ") + e.what());
  }
}

void LabDesignSlot::post(LabDesign d, const std::string& stream_id) {
  std::lock_guard lock(mutex_);
  design_ = std::move(d);
  placed_ = stream_id;
}

void LabDesignSlot::placed(const std::string& id, const std::string& stream_id) {
  std::lock_guard lock(mutex_);
  if (design_ && design_->id == id && placed_.empty()) placed_ = stream_id;
}

bool LabDesignSlot::offer(LabDesign d, const std::string& stream_id) {
  std::lock_guard lock(mutex_);
  if (design_ && (placed_.empty() || !ClassLog::before(placed_, stream_id))) return false;
  design_ = std::move(d);
  placed_ = stream_id;
  return true;
}

void LabDesignSlot::restore(std::optional<LabDesign> d, const std::string& stream_id) {
  std::lock_guard lock(mutex_);
  design_ = std::move(d);
  placed_ = design_ ? stream_id : "";
}

std::optional<LabDesign> LabDesignSlot::get() const {
  std::lock_guard lock(mutex_);
  return design_;
}

std::string LabDesignSlot::position() const {
  std::lock_guard lock(mutex_);
  return placed_;
}

}  // namespace quote_lab
