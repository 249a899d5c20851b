#include "lab/api/quote_answer.hpp"

#include <nlohmann/json.hpp>

#include "lab/formats/policy_json.hpp"

namespace quote_lab {

PolicyViews::PolicyViews(const Policies& policies) {
  views_.emplace(policies.legacy.mode, policy_view(policies.legacy, to_json(policies.legacy)));
  views_.emplace(policies.resilient.mode, policy_view(policies.resilient, to_json(policies.resilient)));
  for (const auto& n : policies.named) views_.emplace(n.retry.mode, policy_view(n.retry, to_json(n)));
}

std::string answer_quote(LabApp& app, const LabApp::QuoteResult& result, const PolicyViews& views,
                         const QuoteAnswerInput& in) {
  // A request with overrides shows the policy it ran under, rendered for it alone.
  const PolicyView overridden =
      in.overrides.empty() ? PolicyView{} : policy_view(in.ran_under, to_json(in.ran_under, !parse_mode(in.policy_name)));
  const PolicyView& shown = in.overrides.empty() ? views.of(in.policy_name) : overridden;
  // Written for the dashboards only when one is open.
  app.publish_quote(result, [&] {
    return quote_response_text(result.trace, result.dependency, shown, in.overrides, in.queue_ms, JsonLayout::one_line);
  });
  return quote_response_text(result.trace, result.dependency, shown, in.overrides, in.queue_ms, JsonLayout::pretty,
                             in.language);
}

}  // namespace quote_lab
