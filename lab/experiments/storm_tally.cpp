#include "lab/experiments/storm_tally.hpp"

#include <algorithm>

namespace quote_lab {

void tally(StormResult& result, const std::vector<ClientLog>& logs, const std::vector<std::string>& targets,
           std::vector<double> health_ms) {
  const std::size_t n_targets = targets.size();
  std::vector<double> latency, attempts;
  std::vector<std::vector<double>> target_latency(n_targets);
  result.per_target.resize(n_targets);
  for (const ClientLog& log : logs) {
    StormTargetResult& per = result.per_target[log.target];
    if (log.is_client) ++per.clients;
    auto& mine = target_latency[log.target];
    mine.insert(mine.end(), log.latency_ms.begin(), log.latency_ms.end());
    latency.insert(latency.end(), log.latency_ms.begin(), log.latency_ms.end());
    attempts.insert(attempts.end(), log.attempt_ms.begin(), log.attempt_ms.end());
    for (const auto& [k, v] : log.statuses) {
      result.status_counts[k] += v;
      per.status_counts[k] += v;
    }
  }
  for (std::size_t t = 0; t < n_targets; ++t) {
    StormTargetResult& per = result.per_target[t];
    per.target = targets[t];
    per.requests = static_cast<long>(target_latency[t].size());
    per.latency = summarize_latency(std::move(target_latency[t]));
  }
  result.requests = static_cast<long>(latency.size());
  result.throughput_rps = result.elapsed_s > 0 ? static_cast<double>(result.requests) / result.elapsed_s : 0;
  result.latency = summarize_latency(std::move(latency));
  result.attempt_latency = summarize_latency(std::move(attempts));
  result.health_latency = summarize_latency(std::move(health_ms));
}

void tally_load(StormResult& result, const std::vector<ClientLog>& logs, const ArrivalTally* open,
                const std::vector<std::optional<double>>& carrier_calls_at) {
  std::vector<RequestRecord> records;
  for (const ClientLog& log : logs) records.insert(records.end(), log.records.begin(), log.records.end());
  for (const auto v : answer_verdicts()) result.verdicts[std::string(to_string(v))] = 0;
  for (const auto& r : records)
    if (r.sent) ++result.verdicts[std::string(to_string(r.verdict))];
  result.goodput = result.verdicts["useful"];
  result.goodput_live = std::count_if(records.begin(), records.end(), [](const RequestRecord& r) { return r.sent && r.live; });
  result.arrivals = open ? open->arrivals : static_cast<long>(records.size());
  result.arrivals_not_sent = open ? open->not_sent : 0;
  // Closed: the clients send until the duration is over, then wait for their last answers.
  const StormOptions& o = result.options;
  const double sending_s = o.requests ? result.elapsed_s : std::min(result.elapsed_s, o.duration_s);
  result.arrival_window_s = open ? open->window_s : sending_s;
  if (result.arrival_window_s > 0) {
    result.offered_rps = static_cast<double>(result.arrivals) / result.arrival_window_s;
    result.goodput_rps = static_cast<double>(result.goodput) / result.arrival_window_s;
    result.goodput_live_rps = static_cast<double>(result.goodput_live) / result.arrival_window_s;
  }
  if (result.arrivals > 0) result.goodput_ratio = static_cast<double>(result.goodput) / static_cast<double>(result.arrivals);
  if (open) {
    result.dispatch_lag = summarize_latency(open->lag_ms);
    result.peak_in_flight = open->peak_in_flight;
  }
  // By duration, the timeline's seconds are the duration's, not the few ms of a late wake-up.
  const double span_s = o.requests ? result.arrival_window_s : std::min(result.arrival_window_s, o.duration_s);
  result.timeline = bucket_timeline(records, span_s, carrier_calls_at);
  if (o.sheddable_share > 0) result.by_priority = count_by_priority(records);
}

}  // namespace quote_lab
