#pragma once
// The lab's answers as the API writes them (api/quote_answer.hpp, api/json_views.hpp), for
// tests that drive LabApp below the HTTP layer.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lab/api/json_views.hpp"
#include "lab/api/quote_answer.hpp"
#include "lab/app/lab_app.hpp"

namespace quote_lab::testing {

/// The client's answer to `result` (pretty, English), as GET /quote-… writes it; open
/// dashboards get it too. `ran_under`: the policy with the request's overrides (null: the
/// configured one), `overrides` their names.
inline std::string quote_answer_text(LabApp& app, const LabApp::QuoteResult& result, const RetryPolicy* ran_under = nullptr,
                                     const std::vector<std::string>& overrides = {}, double queue_ms = 0) {
  const PolicyViews views(app.policies());
  const std::string& name = result.trace.request.mode;
  return answer_quote(app, result, views,
                      {name, ran_under ? *ran_under : *app.find_policy(name), overrides, queue_ms, Language::en});
}

inline nlohmann::ordered_json quote_answer(LabApp& app, const LabApp::QuoteResult& result, const RetryPolicy* ran_under = nullptr,
                                   const std::vector<std::string>& overrides = {}, double queue_ms = 0) {
  return nlohmann::ordered_json::parse(quote_answer_text(app, result, ran_under, overrides, queue_ms));
}

/// GET /dependency/state's answer.
inline nlohmann::ordered_json dependency_state(LabApp& app) { return dependency_json(app.dependency_view()); }

/// GET /diagnostics/summary's answer.
inline nlohmann::ordered_json diagnostics(LabApp& app) {
  return diagnostics_json(app.mode_summary(), app.diagnostics_view());
}

}  // namespace quote_lab::testing
