#include "lab/carrier/carrier_simulator.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "lab/formats/quote_json.hpp"
#include "lab/resilience/domain.hpp"
#include "lab/resilience/pricing.hpp"

namespace quote_lab {

CarrierSimulator::CarrierSimulator(const ScenarioCatalog& catalog, RandomSource& random)
    : catalog_(catalog), random_(random), run_id_(random.bits() & 0xffffff) {
  reset();
}

int CarrierSimulator::count_attempt_locked(std::string_view key) {
  if (key.empty()) return 1;
  auto [it, inserted] = attempts_.try_emplace(std::string(key), 0);
  if (inserted) {
    attempt_order_.push_back(it->first);
    if (attempt_order_.size() > kMaxTrackedRequests) {
      attempts_.erase(attempt_order_.front());
      attempt_order_.pop_front();
    }
  }
  return ++it->second;
}

std::optional<CarrierCall> CarrierSimulator::plan(std::string_view scenario,
                                                  std::string_view idempotency_key) {
  const double u = random_.uniform();
  std::lock_guard lock(mutex_);
  const Scenario* s = catalog_.find(scenario.empty() ? std::string_view(mode_) : scenario);
  if (s == nullptr) return std::nullopt;
  CarrierCall call;
  call.scenario = s;
  call.attempt = count_attempt_locked(idempotency_key);
  call.behaviour = s->behaviour_for(call.attempt);
  call.delay = call.behaviour.kind == AttemptBehaviour::Kind::hang
                   ? Millis(s->hang_ms)
                   : Millis(draw_latency_ms(call.behaviour, u));
  ++calls_by_scenario_[s->name];
  ++calls_total_;
  return call;
}

Quote CarrierSimulator::price(int customer_id, int items, WallTime now) {
  std::uint64_t n;
  {
    std::lock_guard lock(mutex_);
    n = ++quotes_priced_;
  }
  char id[40];
  std::snprintf(id, sizeof id, "Q-%06llx-%06llu", static_cast<unsigned long long>(run_id_),
                static_cast<unsigned long long>(n));
  return Quote{id, price_quote_usd(customer_id, items, now), "USD", now};
}

std::string CarrierSimulator::mode() const {
  std::lock_guard lock(mutex_);
  return mode_;
}

bool CarrierSimulator::set_mode(std::string_view name_or_alias) {
  const Scenario* s = catalog_.find(name_or_alias);
  if (s == nullptr) return false;
  std::lock_guard lock(mutex_);
  mode_ = s->name;
  return true;
}

void CarrierSimulator::begin_call() {
  std::lock_guard lock(mutex_);
  peak_in_flight_ = std::max(peak_in_flight_, ++in_flight_);
}

void CarrierSimulator::end_call(bool wasted, Millis spent) {
  std::lock_guard lock(mutex_);
  --in_flight_;
  if (wasted) {
    ++wasted_calls_;
    wasted_seconds_ += std::chrono::duration<double>(spent).count();
  }
}

CarrierStats CarrierSimulator::stats() const {
  std::lock_guard lock(mutex_);
  return CarrierStats{mode_, calls_by_scenario_, calls_total_, in_flight_, peak_in_flight_, wasted_calls_,
                      wasted_seconds_};
}

void CarrierSimulator::reset() {
  std::lock_guard lock(mutex_);
  mode_ = catalog_.find(kDefaultScenario) ? std::string(kDefaultScenario)
                                          : (catalog_.all().empty() ? "" : catalog_.all().front().name);
  attempts_.clear();
  attempt_order_.clear();
  calls_by_scenario_.clear();
  for (const auto& s : catalog_.all()) calls_by_scenario_[s.name] = 0;
  calls_total_ = 0;
  wasted_calls_ = 0;
  wasted_seconds_ = 0;
  // in-flight calls are still running: the gauge keeps counting them, the peak restarts
  peak_in_flight_ = in_flight_;
}

nlohmann::ordered_json to_json(const CarrierStats& s) {
  return {{"mode", s.mode},
          {"calls_total", s.calls_total},
          {"calls_by_scenario", s.calls_by_scenario},
          {"in_flight", s.in_flight},
          {"peak_in_flight", s.peak_in_flight},
          {"wasted_calls", s.wasted_calls},
          {"wasted_seconds", std::round(s.wasted_seconds * 1000) / 1000}};
}

}  // namespace quote_lab
