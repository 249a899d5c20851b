#pragma once
// A quote flow's answer, as the client and every open dashboard of its lab get it: the
// trace and dependency LabApp returns, with the policy the flow ran under, written by
// json_views' one writer (pretty for the client, one line for the live stream).

#include <map>
#include <string>
#include <vector>

#include "lab/api/json_views.hpp"
#include "lab/app/lab_app.hpp"
#include "lab/resilience/policy.hpp"

namespace quote_lab {

/// The `policy` object and `policy_note` of every configured policy, built once when the
/// lab starts (every lab runs the same policies). Immutable afterwards: read without a lock.
class PolicyViews {
 public:
  explicit PolicyViews(const Policies& policies);
  /// The view of the policy called `name`; it must be one of the policies' names.
  const PolicyView& of(const std::string& name) const { return views_.at(name); }

 private:
  std::map<std::string, PolicyView, std::less<>> views_;
};

/// One answered quote flow: what the request asked besides the lab's result.
struct QuoteAnswerInput {
  const std::string& policy_name;  ///< legacy, resilient or a named policy
  const RetryPolicy& ran_under;    ///< that policy, with the request's overrides applied
  const std::vector<std::string>& overrides;  ///< the overrides' names (none: ran_under is the configured policy)
  double queue_ms = 0;             ///< the wait for a worker slot
  Language language = Language::en;  ///< of the client's `policy_note`
};

/// Publishes `result` to the lab's open dashboards (one line, English: one rendering serves
/// them all) and returns the client's answer (pretty, in `in.language`).
std::string answer_quote(LabApp& app, const LabApp::QuoteResult& result, const PolicyViews& views,
                         const QuoteAnswerInput& in);

}  // namespace quote_lab
