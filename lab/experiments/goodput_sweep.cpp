#include "lab/experiments/goodput_sweep.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace quote_lab {

StormOptions sweep_step_options(const StormOptions& base, double rate_per_s, int step, int steps) {
  StormOptions o = base;
  o.rate_per_s = rate_per_s;
  o.requests.reset();
  o.settle_s = step + 1 < steps ? kSweepSettleS : 0;
  return o;
}

double sweep_fraction(int step, int steps, double step_fraction) {
  if (steps <= 0) return 0;
  return std::clamp((step + std::clamp(step_fraction, 0.0, 1.0)) / steps, 0.0, 1.0);
}

int sweep_duration_s(int steps, double step_duration_s) {
  return static_cast<int>(std::ceil(steps * (step_duration_s + kSweepAnswersS) + std::max(0, steps - 1) * kSweepSettleS));
}

namespace {

std::string sweep_identity(const nlohmann::ordered_json& s) {
  return s.value("mode", "") + '\n' + s.value("scenario", "") + '\n' + s.value("params", nlohmann::ordered_json::object()).dump();
}

double started_at(const nlohmann::ordered_json& s) {
  const auto it = s.find("started_at_ms");
  return it != s.end() && it->is_number() ? it->get<double>() : 0;
}

std::size_t point_count(const nlohmann::ordered_json& s) {
  const auto it = s.find("points");
  return it != s.end() && it->is_array() ? it->size() : 0;
}

}  // namespace

nlohmann::ordered_json merge_sweeps(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b) {
  std::vector<nlohmann::ordered_json> kept;
  for (const auto* list : {&a, &b}) {
    if (!list->is_array()) continue;
    for (const auto& s : *list) {
      if (!s.is_object()) continue;
      const auto same = std::find_if(kept.begin(), kept.end(),
                                     [&s](const nlohmann::ordered_json& k) { return sweep_identity(k) == sweep_identity(s); });
      if (same == kept.end()) {
        kept.push_back(s);
      } else if (started_at(s) > started_at(*same) ||
                 (started_at(s) == started_at(*same) && point_count(s) > point_count(*same))) {
        *same = s;
      }
    }
  }
  std::stable_sort(kept.begin(), kept.end(),
                   [](const nlohmann::ordered_json& x, const nlohmann::ordered_json& y) { return started_at(x) < started_at(y); });
  if (kept.size() > kKeptSweeps) kept.erase(kept.begin(), kept.end() - static_cast<std::ptrdiff_t>(kKeptSweeps));
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (auto& s : kept) out.push_back(std::move(s));
  return out;
}

nlohmann::ordered_json sweep_point(const StormResult& r) {
  auto rounded = [](double v) { return std::round(v * 100) / 100; };
  nlohmann::ordered_json optional_ratio = nullptr, amplification = nullptr, p99 = nullptr;
  if (r.goodput_ratio) optional_ratio = std::round(*r.goodput_ratio * 10000) / 10000;
  if (r.amplification) amplification = rounded(*r.amplification);
  if (r.latency.p99_ms) p99 = rounded(*r.latency.p99_ms);
  return {{"rate_per_s", r.options.rate_per_s ? nlohmann::ordered_json(*r.options.rate_per_s) : nlohmann::ordered_json(nullptr)},
          {"offered_rps", rounded(r.offered_rps)},
          {"goodput_rps", rounded(r.goodput_rps)},
          {"goodput_live_rps", rounded(r.goodput_live_rps)},
          {"goodput_ratio", optional_ratio},
          {"arrivals_not_sent", r.arrivals_not_sent},
          {"amplification", amplification},
          {"latency_p99_ms", p99}};
}

}  // namespace quote_lab
