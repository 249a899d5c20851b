#pragma once
// Goodput: the answers of a storm that were of use to whoever asked, as a client judges its
// answer — not throughput, which counts a 503 or a quote that came too late just the same.
// An open-loop storm reports it against its offered load (Schroeder, Wierman and
// Harchol-Balter, NSDI '06); the metastability papers measure recovery by it (Huang et al.,
// "Metastable Failures in the Wild", OSDI '22, Fig. 5: goodput −90 % while load is 3×).

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace quote_lab {

/// 2 s: longer than legacy's and resilient's worst flows on a healthy carrier (4 × 360 ms =
/// 1.44 s; 2 × 220 ms plus one backoff ≈ 0.6 s), so on a lab that keeps up every answer of
/// the course's policies is in time and only waiting (for a lab worker, or in the carrier's
/// queue) makes one late; and about as long as a person waits for a quote before leaving.
/// A setting: `--goodput-deadline-ms`.
inline constexpr double kDefaultGoodputDeadlineMs = 2000;
/// 60 s: the carrier's price drifts at most 0.06 × 2π / 1800 s ≈ 0.021 % a second
/// (resilience/pricing.hpp), so a fallback quote at most a minute old is within 1.3 % of the
/// live price. Older ones are a wrong price, not a useful answer. A setting:
/// `--fallback-max-age-s` (raise it for a carrier that is down for longer on purpose).
inline constexpr double kDefaultFallbackMaxAgeS = 60;

/// What makes an answer useful; both bounds inclusive.
struct GoodputRule {
  double deadline_ms = kDefaultGoodputDeadlineMs;        ///< from the request's arrival to its answer
  double fallback_max_age_s = kDefaultFallbackMaxAgeS;  ///< the answer's quote.age_s, for a fallback
};

/// How a client judges one request, in the order it is checked.
enum class AnswerVerdict {
  no_answer,       ///< no HTTP answer at all (refused, reset, timed out on the client)
  not_a_quote,     ///< an HTTP status other than 200, or a 200 without a quote object
  late,            ///< a quote, after the deadline
  stale_fallback,  ///< a fallback quote in time, but older than fallback_max_age_s (or of no stated age)
  useful,          ///< HTTP 200 with a live quote, or a fresh enough fallback, in time: goodput
};

/// "no_answer", "not_a_quote", "late", "stale_fallback", "useful".
std::string_view to_string(AnswerVerdict v);
/// Every verdict, in the order above.
const std::vector<AnswerVerdict>& answer_verdicts();

/// The verdict on one request: `http_status` 0 when no answer came; `body` the answer's
/// JSON (anything, even discarded: it is checked before it is read); `latency_ms` from the
/// request's arrival to its answer. A quote is `quote` as the quote routes answer it
/// (SPEC: `source` live or fallback, a fallback's `age_s`). Pure.
AnswerVerdict judge_answer(int http_status, const nlohmann::json& body, double latency_ms, const GoodputRule& rule);

}  // namespace quote_lab
