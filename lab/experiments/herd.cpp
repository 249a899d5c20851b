#include "lab/experiments/herd.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <queue>
#include <sstream>
#include <nlohmann/json.hpp>

#include "lab/base/random.hpp"
#include "lab/resilience/backoff.hpp"

namespace quote_lab {
namespace {

enum class Kind { arrive, finish };

struct Event {
  double at_ms;
  std::uint64_t order;  // ties resolve in scheduling order: deterministic
  int client;
  Kind kind;
  bool success;
  bool operator>(const Event& o) const { return std::tie(at_ms, order) > std::tie(o.at_ms, o.order); }
};

}  // namespace

HerdResult simulate_herd(const HerdOptions& o, Jitter jitter) {
  RetryPolicy policy = o.policy;
  policy.jitter = jitter;
  RandomSource random(o.seed);
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue;
  std::uint64_t order = 0;
  std::vector<int> attempts(static_cast<std::size_t>(o.clients), 0);
  std::vector<Millis> previous(static_cast<std::size_t>(o.clients), Millis::zero());
  std::vector<double> arrivals;
  const double recover_ms = o.recover_after_s * 1000;
  int in_flight = 0;

  HerdResult r;
  r.strategy = std::string(to_string(jitter));
  for (int c = 0; c < o.clients; ++c) queue.push({0.0, order++, c, Kind::arrive, false});
  while (!queue.empty()) {
    const Event e = queue.top();
    queue.pop();
    const auto i = static_cast<std::size_t>(e.client);
    if (e.kind == Kind::arrive) {
      ++r.carrier_calls;
      // The first calls all arrive at t = 0 by construction; the spread that matters is
      // that of the retries.
      if (++attempts[i] > 1) arrivals.push_back(e.at_ms);
      if (e.at_ms < recover_ms) {
        queue.push({e.at_ms + o.down_call_ms, order++, e.client, Kind::finish, false});
      } else if (in_flight < o.capacity) {
        ++in_flight;
        queue.push({e.at_ms + o.success_call_ms, order++, e.client, Kind::finish, true});
      } else {
        queue.push({e.at_ms + o.overload_call_ms, order++, e.client, Kind::finish, false});
      }
      continue;
    }
    if (e.success) {
      --in_flight;
      r.all_succeeded_s = std::max(r.all_succeeded_s, e.at_ms / 1000);
      continue;
    }
    if (attempts[i] >= o.max_attempts) {
      ++r.gave_up;
      continue;
    }
    const Millis wait = backoff_delay(policy, attempts[i], random.uniform(), previous[i]);
    previous[i] = wait;
    queue.push({e.at_ms + static_cast<double>(wait.count()), order++, e.client, Kind::arrive, false});
  }

  // Retries come out of the queue in time order already.
  for (std::size_t a = 0, b = 0; b < arrivals.size(); ++b) {
    while (arrivals[b] - arrivals[a] >= 10) ++a;
    r.max_arrivals_per_10ms = std::max(r.max_arrivals_per_10ms, static_cast<int>(b - a + 1));
  }
  if (arrivals.size() > 2) {
    std::vector<double> gaps;
    for (std::size_t k = 1; k < arrivals.size(); ++k) gaps.push_back(arrivals[k] - arrivals[k - 1]);
    double mean = 0;
    for (double g : gaps) mean += g;
    mean /= static_cast<double>(gaps.size());
    double var = 0;
    for (double g : gaps) var += (g - mean) * (g - mean);
    r.inter_arrival_stddev_ms = std::sqrt(var / static_cast<double>(gaps.size()));
  }
  return r;
}

std::vector<HerdResult> simulate_all_strategies(const HerdOptions& o) {
  std::vector<HerdResult> out;
  for (Jitter j : {Jitter::none, Jitter::additive, Jitter::full, Jitter::equal, Jitter::decorrelated})
    out.push_back(simulate_herd(o, j));
  return out;
}

nlohmann::ordered_json to_json(const HerdResult& r) {
  return {{"strategy", r.strategy},
          {"carrier_calls", r.carrier_calls},
          {"all_succeeded_s", std::round(r.all_succeeded_s * 1000) / 1000},
          {"gave_up", r.gave_up},
          {"max_arrivals_per_10ms", r.max_arrivals_per_10ms},
          {"inter_arrival_stddev_ms", std::round(r.inter_arrival_stddev_ms * 100) / 100}};
}

std::string format_herd_table(const HerdOptions& o, const std::vector<HerdResult>& results) {
  std::ostringstream out;
  out << std::fixed;
  out << "K = " << o.clients << " clients, carrier down for T = " << std::setprecision(1) << o.recover_after_s
      << " s, then capacity " << o.capacity << "; backoff base " << o.policy.backoff_base_ms << " ms, cap "
      << o.policy.backoff_max_ms << " ms; seed " << o.seed << "\n\n";
  out << "| jitter | carrier calls | all succeeded after | gave up | max retry arrivals in 10 ms | stddev of gaps between retries |\n";
  out << "|---|---:|---:|---:|---:|---:|\n";
  for (const auto& r : results)
    out << "| " << r.strategy << " | " << r.carrier_calls << " | " << std::setprecision(2) << r.all_succeeded_s << " s | "
        << r.gave_up << " | " << r.max_arrivals_per_10ms << " | " << std::setprecision(1) << r.inter_arrival_stddev_ms
        << " ms |\n";
  return out.str();
}

}  // namespace quote_lab
