#pragma once
// The class challenge's judge: a student's pipeline scored over the scorecard's battery
// (simulation/scorecard.hpp) in simulated time, beside legacy and resilient. Designs are
// judged on the lab's SimulationRunner, one at a time on one core, so a class posting at once
// waits in its line and never takes the core its quotes run on. Legacy's and resilient's cards
// are computed once, by the first judgement, and kept: the battery and its seeds are fixed, so
// they could not come out otherwise (the runner's thread alone touches them).

#include <future>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "lab/app/simulation_runner.hpp"
#include "lab/carrier/scenario.hpp"
#include "lab/resilience/policy.hpp"
#include "lab/simulation/scorecard.hpp"

namespace quote_lab {

/// The name a posted design runs under in the judge's policies.
inline constexpr const char* kDesignPolicyName = "design";

/// `base` with the design posted in `body` added as the named policy kDesignPolicyName. The
/// body is one policy as the policies file writes it (docs/policies.md): {"pipeline": [...]}
/// or the flat keys, or the pipeline's list alone. A breaker of its own is allowed. Throws
/// PolicyError whose problems() name the strategy, setting or order at fault, each prefixed
/// "design." as the policies file's are prefixed with the policy's name.
Policies policies_with_design(const nlohmann::ordered_json& body, const Policies& base);

class DesignJudge {
 public:
  /// `base` and `catalog` must outlive `runner`'s work (the lab's); `runner` must outlive the
  /// judge. What is in the runner's line when the judge goes keeps what it needs alive.
  DesignJudge(SimulationRunner& runner, const Policies& base, const ScenarioCatalog& catalog);

  struct Verdict {
    Scorecard card;       ///< the design's (its policy is kDesignPolicyName)
    Scorecard legacy;     ///< the baselines, on the same battery and seeds
    Scorecard resilient;
    std::string error;    ///< not empty: the simulation stopped (a bound reached), and why
  };
  /// Puts the design `with_design` holds (policies_with_design) in the runner's line for
  /// `asker` (the student: SimulationRunner's share); `admission` says whether it was, and the
  /// future is valid only when it was.
  std::future<Verdict> judge(Policies with_design, const std::string& asker, SimulationRunner::Admission& admission);

  /// Legacy's and resilient's scores once the first judgement computed them (GET /class shows
  /// them beside the designs); nullopt before. Thread-safe.
  struct Baselines {
    double legacy = 0, resilient = 0;
  };
  /// With `compute`, a judgement of the baselines alone is put in line when they are not known
  /// (a restarted lab's /class, with designs from its state file): a later call has them.
  std::optional<Baselines> baselines(bool compute = false);

 public:
  // What a judgement in the runner's line needs, shared with it.
  struct State {
    State(const Policies& b, const ScenarioCatalog& c) : base(b), catalog(c) {}
    const Policies& base;
    const ScenarioCatalog& catalog;
    std::optional<Scorecard> legacy, resilient;  // the runner's thread only
    mutable std::mutex baselines_mutex;          // guards baselines and computing
    std::optional<Baselines> baselines;
    bool computing = false;                      // a judgement of the baselines alone is in line
  };
 private:
  SimulationRunner& runner_;
  std::shared_ptr<State> state_;
};

}  // namespace quote_lab
