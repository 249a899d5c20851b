#include "lab/app/design_judge.hpp"

#include <memory>

#include "lab/formats/policy_json.hpp"

namespace quote_lab {

Policies policies_with_design(const nlohmann::ordered_json& body, const Policies& base) {
  nlohmann::ordered_json policy = body;
  if (body.is_array()) policy = {{"pipeline", body}};
  return policies_from_json({{kDesignPolicyName, policy}}, base);
}

DesignJudge::DesignJudge(SimulationRunner& runner, const Policies& base, const ScenarioCatalog& catalog)
    : runner_(runner), state_(std::make_shared<State>(base, catalog)) {}

std::optional<std::future<DesignJudge::Verdict>> DesignJudge::judge(Policies with_design) {
  auto done = std::make_shared<std::promise<Verdict>>();
  auto verdict = done->get_future();
  auto policies = std::make_shared<Policies>(std::move(with_design));
  const bool queued = runner_.submit([state = state_, done, policies] {
    Verdict v;
    try {
      const SimulationSetup baseline{state->base, state->catalog};
      if (!state->legacy) state->legacy = score_policy("legacy", baseline);
      if (!state->resilient) {
        state->resilient = score_policy("resilient", baseline);
        std::lock_guard lock(state->baselines_mutex);
        state->baselines = Baselines{state->legacy->score, state->resilient->score};
      }
      v.legacy = *state->legacy;
      v.resilient = *state->resilient;
      v.card = score_policy(kDesignPolicyName, SimulationSetup{*policies, state->catalog});
    } catch (const std::exception& e) {
      v.error = e.what();
    }
    done->set_value(std::move(v));
  });
  if (!queued) return std::nullopt;
  return verdict;
}

std::optional<DesignJudge::Baselines> DesignJudge::baselines() const {
  std::lock_guard lock(state_->baselines_mutex);
  return state_->baselines;
}

}  // namespace quote_lab
