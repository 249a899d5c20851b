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

namespace {

// Legacy's and resilient's cards, computed once (the runner's thread only).
void ensure_baselines(DesignJudge::State& state) {
  const SimulationSetup baseline{state.base, state.catalog};
  if (!state.legacy) state.legacy = score_policy("legacy", baseline);
  if (!state.resilient) {
    state.resilient = score_policy("resilient", baseline);
    std::lock_guard lock(state.baselines_mutex);
    state.baselines = DesignJudge::Baselines{state.legacy->score, state.resilient->score};
  }
}

}  // namespace

std::future<DesignJudge::Verdict> DesignJudge::judge(Policies with_design, const std::string& asker,
                                                     SimulationRunner::Admission& admission) {
  auto done = std::make_shared<std::promise<Verdict>>();
  auto verdict = done->get_future();
  auto policies = std::make_shared<Policies>(std::move(with_design));
  admission = runner_.submit([state = state_, done, policies] {
    Verdict v;
    try {
      ensure_baselines(*state);
      v.legacy = *state->legacy;
      v.resilient = *state->resilient;
      v.card = score_policy(kDesignPolicyName, SimulationSetup{*policies, state->catalog});
    } catch (const std::exception& e) {
      v.error = e.what();
    }
    return [done, v = std::move(v)]() mutable { done->set_value(std::move(v)); };
  }, asker);
  return verdict;
}

std::optional<DesignJudge::Baselines> DesignJudge::baselines(bool compute) {
  {
    std::lock_guard lock(state_->baselines_mutex);
    if (state_->baselines || !compute || state_->computing) return state_->baselines;
    state_->computing = true;
  }
  const auto admitted = runner_.submit([state = state_] {
    try {
      ensure_baselines(*state);
    } catch (const std::exception&) {  // the shipped policies always run: nothing to tell
    }
    std::lock_guard lock(state->baselines_mutex);
    state->computing = false;
    return SimulationRunner::Delivery{};
  });
  if (admitted != SimulationRunner::Admission::queued) {
    std::lock_guard lock(state_->baselines_mutex);
    state_->computing = false;  // the next call asks again
  }
  return std::nullopt;
}

}  // namespace quote_lab
