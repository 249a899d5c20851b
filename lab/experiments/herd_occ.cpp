#include "lab/experiments/herd_occ.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <queue>
#include <random>
#include <sstream>
#include <nlohmann/json.hpp>
#include <tuple>

namespace quote_lab {
namespace {

constexpr OccStrategy kStrategies[] = {OccStrategy::none, OccStrategy::exponential, OccStrategy::full,
                                       OccStrategy::equal, OccStrategy::decorrelated};

// What reaches whom: the server reads or writes the row, the client hears how its write went.
enum class Kind { read_at_server, write_at_server, answer_at_client };

struct Event {
  double at_ms;
  std::uint64_t order;  // ties resolve in scheduling order: deterministic
  int client;
  Kind kind;
  bool accepted;  // answer_at_client only
  bool operator>(const Event& o) const { return std::tie(at_ms, order) > std::tie(o.at_ms, o.order); }
};

double rounded(double x, double scale) { return std::round(x * scale) / scale; }

}  // namespace

std::string_view to_string(OccStrategy s) {
  switch (s) {
    case OccStrategy::none: return "none";
    case OccStrategy::exponential: return "exponential";
    case OccStrategy::full: return "full";
    case OccStrategy::equal: return "equal";
    case OccStrategy::decorrelated: return "decorrelated";
  }
  return "?";
}

std::vector<std::string> validate(const OccHerdOptions& o) {
  std::vector<std::string> errors;
  if (o.clients < 1 || o.clients > kOccMaxClients)
    errors.push_back("clients must be 1-" + std::to_string(kOccMaxClients) + " (got " + std::to_string(o.clients) + ")");
  if (o.runs < 1 || o.runs > kOccMaxRuns)
    errors.push_back("runs must be 1-" + std::to_string(kOccMaxRuns) + " (got " + std::to_string(o.runs) + ")");
  if (static_cast<long>(o.clients) * o.runs > kOccMaxClientRuns)
    errors.push_back("clients × runs must be at most " + std::to_string(kOccMaxClientRuns) + " (got " +
                     std::to_string(static_cast<long>(o.clients) * o.runs) + "): fewer runs for many clients");
  if (!(o.backoff_base_ms > 0) || !(o.backoff_cap_ms >= o.backoff_base_ms))
    errors.push_back("backoff base must be above 0 ms and at most the cap");
  if (!(o.delay_mean_ms >= 0) || !(o.delay_stddev_ms >= 0)) errors.push_back("network delays must be 0 ms or more");
  return errors;
}

double occ_backoff_ms(OccStrategy s, int retry, double u, double previous_ms, double base_ms, double cap_ms) {
  u = std::clamp(u, 0.0, 1.0);
  // 2^retry with the exponent bounded: past 2^40 any base is above any cap.
  const double t = std::min(cap_ms, base_ms * std::ldexp(1.0, std::clamp(retry, 0, 40)));
  double wait = 0;
  switch (s) {
    case OccStrategy::none: wait = 0; break;
    case OccStrategy::exponential: wait = t; break;
    case OccStrategy::full: wait = u * t; break;
    case OccStrategy::equal: wait = t / 2 + u * t / 2; break;
    case OccStrategy::decorrelated: {
      const double hi = std::max(base_ms, previous_ms * 3);
      wait = base_ms + u * (hi - base_ms);
      break;
    }
  }
  return std::clamp(wait, 0.0, cap_ms);
}

OccRun simulate_occ_run(const OccHerdOptions& o, OccStrategy s, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal(o.delay_mean_ms, o.delay_stddev_ms);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const auto network_ms = [&] { return std::abs(normal(engine)); };

  const auto n = static_cast<std::size_t>(o.clients);
  std::vector<std::uint64_t> version_read(n, 0);
  std::vector<int> retries(n, 0);
  std::vector<double> previous_wait_ms(n, o.backoff_base_ms);
  std::uint64_t version = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue;
  std::uint64_t order = 0;
  for (int c = 0; c < o.clients; ++c) queue.push({network_ms(), order++, c, Kind::read_at_server, false});

  OccRun run;
  while (!queue.empty()) {
    const Event e = queue.top();
    queue.pop();
    const auto i = static_cast<std::size_t>(e.client);
    switch (e.kind) {
      case Kind::read_at_server:
        version_read[i] = version;
        // The answer travels back, then the conditional write travels out.
        queue.push({e.at_ms + network_ms() + network_ms(), order++, e.client, Kind::write_at_server, false});
        break;
      case Kind::write_at_server: {
        ++run.calls;
        const bool accepted = version_read[i] == version;
        if (accepted) ++version;
        queue.push({e.at_ms + network_ms(), order++, e.client, Kind::answer_at_client, accepted});
        break;
      }
      case Kind::answer_at_client:
        if (e.accepted) {
          run.completion_s = std::max(run.completion_s, e.at_ms / 1000);
          break;
        }
        const double wait_ms =
            occ_backoff_ms(s, ++retries[i], uniform(engine), previous_wait_ms[i], o.backoff_base_ms, o.backoff_cap_ms);
        previous_wait_ms[i] = wait_ms;
        queue.push({e.at_ms + wait_ms + network_ms(), order++, e.client, Kind::read_at_server, false});
        break;
    }
  }
  return run;
}

std::vector<OccHerdResult> simulate_occ_herd(const OccHerdOptions& o) {
  std::vector<OccHerdResult> out;
  for (OccStrategy s : kStrategies) {
    OccHerdResult r;
    r.strategy = std::string(to_string(s));
    for (int k = 0; k < o.runs; ++k) {
      const OccRun run = simulate_occ_run(o, s, o.seed + static_cast<std::uint64_t>(k));
      r.calls += static_cast<double>(run.calls);
      r.completion_s += run.completion_s;
    }
    r.calls /= o.runs;
    r.completion_s /= o.runs;
    out.push_back(r);
  }
  const OccHerdResult& exponential = out[1];
  for (auto& r : out) {
    r.calls_vs_exponential = exponential.calls > 0 ? r.calls / exponential.calls : 0;
    r.completion_vs_exponential = exponential.completion_s > 0 ? r.completion_s / exponential.completion_s : 0;
  }
  return out;
}

nlohmann::ordered_json to_json(const OccHerdResult& r) {
  return {{"strategy", r.strategy},
          {"calls", rounded(r.calls, 10)},
          {"completion_s", rounded(r.completion_s, 1000)},
          {"calls_vs_exponential", rounded(r.calls_vs_exponential, 1000)},
          {"completion_vs_exponential", rounded(r.completion_vs_exponential, 1000)}};
}

std::string format_occ_table(const OccHerdOptions& o, const std::vector<OccHerdResult>& results) {
  std::ostringstream out;
  out << std::fixed;
  out << "N = " << o.clients << " clients, one optimistic-concurrency row; network delay |N(" << std::setprecision(0)
      << o.delay_mean_ms << " ms, " << o.delay_stddev_ms << " ms)|; backoff base " << o.backoff_base_ms << " ms, cap "
      << o.backoff_cap_ms << " ms; mean of " << o.runs << " runs, seed " << o.seed << "\n\n";
  out << "| strategy | calls (writes) | completion | calls vs exponential | completion vs exponential |\n";
  out << "|---|---:|---:|---:|---:|\n";
  for (const auto& r : results)
    out << "| " << r.strategy << " | " << std::setprecision(0) << r.calls << " | " << std::setprecision(2)
        << r.completion_s << " s | " << r.calls_vs_exponential << " | " << std::setprecision(3)
        << r.completion_vs_exponential << " |\n";
  return out.str();
}

}  // namespace quote_lab
