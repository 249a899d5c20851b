#include "lab/experiments/storm_timeline.hpp"

#include <algorithm>
#include <cmath>

#include "lab/experiments/priority_mix.hpp"

namespace quote_lab {

std::vector<TimelineSecond> bucket_timeline(const std::vector<RequestRecord>& records, double span_s,
                                            const std::vector<std::optional<double>>& carrier_calls_at) {
  // A span of exactly 10 s is seconds 0..9; 10.2 s adds a partial eleventh.
  std::size_t n = span_s > 0 ? static_cast<std::size_t>(std::ceil(span_s)) : 0;
  for (const auto& r : records) n = std::max(n, static_cast<std::size_t>(std::max(0.0, r.arrival_s)) + 1);
  std::vector<TimelineSecond> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i].second = static_cast<int>(i);
    if (i + 1 < carrier_calls_at.size() && carrier_calls_at[i] && carrier_calls_at[i + 1])
      out[i].carrier_calls = std::llround(*carrier_calls_at[i + 1] - *carrier_calls_at[i]);
  }
  for (const auto& r : records) {
    TimelineSecond& s = out[static_cast<std::size_t>(std::max(0.0, r.arrival_s))];
    ++s.arrivals;
    if (!r.sent) {
      ++s.not_sent;
      continue;
    }
    ++s.sent;
    if (r.verdict != AnswerVerdict::no_answer) ++s.answered;
    if (r.verdict == AnswerVerdict::useful) ++s.useful;
  }
  return out;
}

std::map<std::string, PriorityCounts> count_by_priority(const std::vector<RequestRecord>& records) {
  std::map<std::string, PriorityCounts> out{{std::string(kCritical), {}}, {std::string(kSheddable), {}}};
  for (const auto& r : records) {
    PriorityCounts& c = out[std::string(r.sheddable ? kSheddable : kCritical)];
    ++c.arrivals;
    if (!r.sent) continue;
    ++c.sent;
    if (r.verdict != AnswerVerdict::no_answer) ++c.answered;
    if (r.verdict == AnswerVerdict::useful) ++c.useful;
  }
  return out;
}

nlohmann::ordered_json to_json(const std::vector<TimelineSecond>& timeline) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& s : timeline)
    out.push_back({{"second", s.second},
                   {"arrivals", s.arrivals},
                   {"not_sent", s.not_sent},
                   {"sent", s.sent},
                   {"answered", s.answered},
                   {"useful", s.useful},
                   {"not_useful", s.not_useful()},
                   {"carrier_calls", s.carrier_calls ? nlohmann::ordered_json(*s.carrier_calls) : nlohmann::ordered_json(nullptr)}});
  return out;
}

nlohmann::ordered_json to_json(const PriorityCounts& c) {
  return {{"arrivals", c.arrivals}, {"sent", c.sent}, {"answered", c.answered}, {"useful", c.useful}};
}

}  // namespace quote_lab
