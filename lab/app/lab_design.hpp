#pragma once
// A lab's entry in the class challenge: the pipeline its student posted and the scorecard it
// earned in simulated time (simulation/scorecard.hpp). It is the student's submission, not the
// lab's state: a reset leaves it, a new post replaces it, and it goes when the lab expires.
// Kept in the class's state file and, with replicas, shared through the class log, so that
// /class ranks the same designs whichever replica serves it.

#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "lab/base/clock.hpp"
#include "lab/simulation/scorecard.hpp"

namespace quote_lab {

struct LabDesign {
  std::string id;                    ///< drawn when posted: the same design on every replica
  nlohmann::ordered_json pipeline;   ///< the policy's pipeline, every setting written (pipeline_to_json)
  Scorecard card;                    ///< what it scored
  WallTime submitted_at{};
};

/// {"id", "submitted_utc", "pipeline", "scorecard": to_json(card)}.
nlohmann::ordered_json to_json(const LabDesign& d);
/// Back from to_json's form; throws std::invalid_argument naming what is wrong.
LabDesign design_from_json(const nlohmann::ordered_json& j);

/// Where a lab keeps its design on one replica. With replicas, the class log orders the
/// designs posted for one lab: the newest in the log wins on every replica. A design posted
/// here holds at once; its place in the log comes when Redis takes it (placed()) or when it is
/// read back. Until then designs of other replicas are not taken: a student posts to one lab
/// at a time. Thread-safe.
class LabDesignSlot {
 public:
  /// A design posted here, at log position `stream_id` ("" not known yet).
  void post(LabDesign d, const std::string& stream_id);
  /// Our design `id` is at `stream_id` in the log (read back, or Redis answered late).
  void placed(const std::string& id, const std::string& stream_id);
  /// A design another replica posted, at `stream_id`: taken when it stands after the one held
  /// (or none is held). Returns whether it was.
  bool offer(LabDesign d, const std::string& stream_id);
  /// Starts from a saved design (state file or snapshot) at `stream_id` ("" none known).
  void restore(std::optional<LabDesign> d, const std::string& stream_id);
  std::optional<LabDesign> get() const;
  /// The log position of the design held ("" none or not known).
  std::string position() const;

 private:
  mutable std::mutex mutex_;
  std::optional<LabDesign> design_;
  std::string placed_;  // its stream id; "" not known
};

}  // namespace quote_lab
