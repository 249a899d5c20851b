#pragma once
// The sentences a quote answer says to a student: `explanation` {es, en}, what happened to
// this request in one line, and `policy_note`, which protections the policy has. Both read
// only the trace and the policy. The Spanish uses the course glossary's one term per concept
// (disyuntor, respaldo, llamada de prueba, cotización inicial...); policy names stay in code
// font (`legacy`), never translated.

#include <string>

#include "lab/http/accept.hpp"
#include "lab/resilience/policy.hpp"
#include "lab/resilience/quote_trace.hpp"

namespace quote_lab {

/// What happened to one quote request, in both of the course's languages.
struct Explanation {
  std::string es, en;
};

/// One plain sentence per outcome: a live quote (first try, after retries, the half-open
/// breaker's probe call), a fallback (breaker open, failed probe, carrier failures, the seed
/// quote), a 503, and a request the carrier rejected as wrong (a 4xx: the request's fault,
/// not a carrier failure); then, when adaptive retry made an attempt wait for its token
/// (token_wait steps), one more saying how long in all and before which attempt.
Explanation explanation(const QuoteTrace& t);

/// One sentence saying which protections `p` has (students read the `dependency` embedded
/// in a legacy answer, once "open", as legacy's own breaker). SPEC keeps
/// `dependency` in both modes; this says whether the request asked that breaker and whether
/// it may fall back, e.g. "legacy has no circuit breaker and no fallback: ...".
std::string policy_note(const RetryPolicy& p, Language language = Language::en);

}  // namespace quote_lab
