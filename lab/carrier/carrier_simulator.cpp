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

namespace {
// The key attempts are counted under: the logical quote, else its Idempotency-Key.
std::string attempt_key(CallerIds ids) {
  if (!ids.trace_id.empty()) return "t:" + std::string(ids.trace_id);
  if (!ids.idempotency_key.empty()) return "k:" + std::string(ids.idempotency_key);
  return {};
}
}  // namespace

CarrierSimulator::Seen* CarrierSimulator::seen_locked(CallerIds ids) {
  const auto it = attempts_.find(attempt_key(ids));
  return it == attempts_.end() ? nullptr : &it->second;
}

int CarrierSimulator::count_attempt_locked(CallerIds ids) {
  const std::string key = attempt_key(ids);
  if (key.empty()) return 1;
  auto [it, inserted] = attempts_.try_emplace(key);
  if (inserted) {
    attempt_order_.push_back(it->first);
    if (attempt_order_.size() > kMaxTrackedRequests) {
      attempts_.erase(attempt_order_.front());
      attempt_order_.pop_front();
    }
  }
  return ++it->second.attempts;
}

int CarrierSimulator::peek_attempt_locked(CallerIds ids) const {
  const auto it = attempts_.find(attempt_key(ids));
  return it == attempts_.end() ? 1 : it->second.attempts + 1;
}

namespace {
// The seconds a 429 asks the caller to wait; nullopt for no 429, or an HTTP-date (a
// scenario's fixed date says nothing about this call).
std::optional<Millis> retry_after_of_429(const AttemptBehaviour& b) {
  if (b.kind != AttemptBehaviour::Kind::answer || b.status != 429 || b.retry_after.empty() ||
      b.retry_after.find_first_not_of("0123456789") != std::string::npos || b.retry_after.size() > 6)
    return std::nullopt;
  return Millis(std::stol(b.retry_after) * 1000);
}

// The 429's call served instead: a quote, after the same latency.
AttemptBehaviour served_instead(const AttemptBehaviour& limited) {
  AttemptBehaviour b = limited;
  b.response = "ok";
  b.status = 200;
  b.body.reset();
  b.retry_after.clear();
  return b;
}
}  // namespace

const Scenario* CarrierSimulator::find_locked(std::string_view scenario) const {
  return catalog_.find(scenario.empty() ? std::string_view(mode_) : scenario);
}

std::optional<CarrierCall> CarrierSimulator::plan(std::string_view scenario, CallerIds ids, SteadyTime now) {
  const double u = random_.uniform();
  std::lock_guard lock(mutex_);
  const Scenario* s = find_locked(scenario);
  if (s == nullptr) return std::nullopt;
  CarrierCall call;
  call.scenario = s;
  call.attempt = count_attempt_locked(ids);
  call.behaviour = s->behaviour_for(call.attempt);
  if (s->metastable) {
    bool overloaded = false;
    call.behaviour = episodes_.plan(ids.lab, *s, call.behaviour, now, overloaded);
    call.episode = std::string(ids.lab);
    if (overloaded) count_locked(ids.lab, [](Counts& c) { ++c.overloaded_calls; });
  }
  if (s->shedding) call.station_lab = std::string(ids.lab);
  // A second draw only when a fault may play, so the course scenarios consume the seeded
  // source once per call, the same draws a carrier without fault kinds would make.
  if (!call.behaviour.faults.empty()) call.behaviour = pick_fault(call.behaviour, random_.uniform());
  call.delay = call.behaviour.kind == AttemptBehaviour::Kind::timeout
                   ? Millis(s->hang_ms)
                   : Millis(draw_latency_ms(call.behaviour, u));
  // A limiter that says "come back in 1 s" and refuses the caller who did would teach that
  // honouring Retry-After is useless. The promise is timed from when the 429 is sent (after
  // its latency), so a caller that waits the asked time from receiving it always keeps it.
  if (const auto wait = retry_after_of_429(call.behaviour); wait && !s->metastable) {
    if (Seen* seen = seen_locked(ids)) {
      if (seen->come_back_at && now >= *seen->come_back_at) {
        call.behaviour = served_instead(call.behaviour);
        seen->come_back_at.reset();
      } else {
        seen->come_back_at = now + call.delay + *wait;
      }
    }
  }
  call.lab = std::string(ids.lab);
  count_locked(ids.lab, [s](Counts& c) {
    ++c.calls_by_scenario[s->name];
    ++c.calls_total;
  });
  return call;
}

bool CarrierSimulator::take_refusal(std::string_view scenario, CallerIds ids) {
  std::lock_guard lock(mutex_);
  const Scenario* s = find_locked(scenario);
  if (s == nullptr || s->metastable || s->behaviour_for(peek_attempt_locked(ids)).kind != AttemptBehaviour::Kind::refused)
    return false;
  count_attempt_locked(ids);
  count_locked(ids.lab, [s](Counts& c) {
    ++c.calls_by_scenario[s->name];
    ++c.calls_total;
    ++c.refused_calls;
  });
  return true;
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

CarrierSimulator::Booking CarrierSimulator::book(int customer_id, int items, CallerIds ids, WallTime now,
                                                 SteadyTime steady_now) {
  {
    std::lock_guard lock(mutex_);
    if (auto kept = ledger_.replay(ids.idempotency_key, steady_now)) {
      count_locked(ids.lab, [](Counts& c) { ++c.idempotent_replays; });
      return {std::move(*kept), true};
    }
  }
  // Priced outside the lock (price() takes it for its counter), then recorded; a call with
  // the same key that finished in between has booked first, and this one replays it.
  Quote quote = price(customer_id, items, now);
  std::lock_guard lock(mutex_);
  if (auto kept = ledger_.replay(ids.idempotency_key, steady_now)) {
    count_locked(ids.lab, [](Counts& c) { ++c.idempotent_replays; });
    return {std::move(*kept), true};
  }
  const std::uint64_t duplicates_before = ledger_.duplicates();
  ledger_.book(quote, ids.trace_id, ids.idempotency_key, steady_now);
  const bool duplicate = ledger_.duplicates() > duplicates_before;
  count_locked(ids.lab, [duplicate](Counts& c) {
    ++c.bookings;
    if (duplicate) ++c.duplicate_bookings;
  });
  return {std::move(quote), false};
}

void CarrierSimulator::count_deadline_drop(std::string_view lab) {
  std::lock_guard lock(mutex_);
  count_locked(lab, [](Counts& c) { ++c.deadline_dropped; });
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
  episodes_.restart("");  // a metastable mode goes down again from its next call
  stations_.restart("");  // and a shedding mode's trigger starts again
  return true;
}

void CarrierSimulator::restart_episode(std::string_view lab) {
  std::lock_guard lock(mutex_);
  episodes_.restart(lab);
  stations_.restart(lab);
}

std::optional<MetastableView> CarrierSimulator::episode(std::string_view lab, SteadyTime now) const {
  std::lock_guard lock(mutex_);
  return episodes_.view(lab, now);
}

void CarrierSimulator::count_shed_locked(std::string_view lab, const StationTurn& turn) {
  if (turn.kind == StationTurn::Kind::shed)
    count_locked(lab, [&turn](Counts& c) { ++c.shed_calls[std::string(to_string(turn.reason))]; });
}

StationTurn CarrierSimulator::enter_station(CarrierCall& call, Priority priority, SteadyTime now) {
  std::lock_guard lock(mutex_);
  if (!call.station_lab || call.scenario == nullptr || !call.scenario->shedding) return StationTurn{};
  const StationTurn turn = stations_.arrive(*call.station_lab, *call.scenario, priority, now, call.station);
  call.ticket = turn.ticket;
  count_shed_locked(call.lab, turn);
  return turn;
}

StationTurn CarrierSimulator::station_turn(const CarrierCall& call, SteadyTime now) {
  std::lock_guard lock(mutex_);
  if (call.station.empty()) return StationTurn{.ticket = call.ticket};
  const StationTurn turn = stations_.poll(call.station, call.ticket, now);
  count_shed_locked(call.lab, turn);
  return turn;
}

void CarrierSimulator::leave_station(const CarrierCall& call, SteadyTime now) {
  std::lock_guard lock(mutex_);
  if (!call.station.empty()) stations_.leave(call.station, call.ticket, now);
}

std::optional<StationView> CarrierSimulator::station(std::string_view lab, SteadyTime now) const {
  std::lock_guard lock(mutex_);
  return stations_.view(lab, now);
}

void CarrierSimulator::set_carrier_workers(int workers) {
  std::lock_guard lock(mutex_);
  stations_.set_held_limit(std::max(1, workers - kSpareCarrierWorkers));
}

void CarrierSimulator::begin_call() { begin_call(CarrierCall{}); }

void CarrierSimulator::begin_call(const CarrierCall& call) {
  std::lock_guard lock(mutex_);
  count_locked(call.lab, [](Counts& c) { c.peak_in_flight = std::max(c.peak_in_flight, ++c.in_flight); });
  if (call.episode) episodes_.begin_call(*call.episode);
}

void CarrierSimulator::end_call(const CarrierCall& call, bool wasted, Millis spent, SteadyTime now) {
  {
    std::lock_guard lock(mutex_);
    if (call.episode) episodes_.end_call(*call.episode);
    if (!call.station.empty()) stations_.finish(call.station, call.ticket, wasted, now);
    count_locked(call.lab, [wasted, spent](Counts& c) {
      --c.in_flight;
      if (wasted) {
        ++c.wasted_calls;
        c.wasted_seconds += std::chrono::duration<double>(spent).count();
      }
    });
  }
}

void CarrierSimulator::end_call(bool wasted, Millis spent) { end_call(CarrierCall{}, wasted, spent); }

CarrierSimulator::Counts CarrierSimulator::zero_counts_locked() const {
  Counts c;
  for (const auto& sc : catalog_.all()) c.calls_by_scenario[sc.name] = 0;
  for (const ShedReason r : kShedReasons) c.shed_calls[std::string(to_string(r))] = 0;
  return c;
}

template <typename Change>
void CarrierSimulator::count_locked(std::string_view lab, Change change) {
  change(all_);
  auto it = by_lab_.find(lab);
  if (it == by_lab_.end()) {
    // X-Quote-Lab is whatever a caller of the carrier's port sends: the names kept are bounded.
    if (by_lab_.size() >= kMaxCountedLabs) return;
    it = by_lab_.emplace(std::string(lab), zero_counts_locked()).first;
  }
  change(it->second);
}

CarrierStats CarrierSimulator::to_stats_locked(const Counts& c, int queued) const {
  return CarrierStats{mode_,        c.calls_by_scenario, c.calls_total,        c.in_flight,
                      c.peak_in_flight, c.wasted_calls,  c.wasted_seconds,     c.refused_calls,
                      c.overloaded_calls, c.bookings,    c.duplicate_bookings, c.idempotent_replays,
                      c.deadline_dropped, c.shed_calls,  queued};
}

CarrierStats CarrierSimulator::stats() const {
  std::lock_guard lock(mutex_);
  return to_stats_locked(all_, stations_.queued());
}

CarrierStats CarrierSimulator::stats_for(std::string_view lab) const {
  std::lock_guard lock(mutex_);
  const auto it = by_lab_.find(lab);
  const Counts counts = it == by_lab_.end() ? zero_counts_locked() : it->second;
  int queued = 0;
  if (const auto view = stations_.view(lab, SteadyTime{})) queued = view->queued;
  return to_stats_locked(counts, queued);
}

void CarrierSimulator::reset_counts(std::string_view lab) {
  std::lock_guard lock(mutex_);
  const auto it = by_lab_.find(lab);
  if (it == by_lab_.end()) return;
  const int in_flight = it->second.in_flight;  // still running: counted until they end
  it->second = zero_counts_locked();
  it->second.in_flight = in_flight;
  it->second.peak_in_flight = in_flight;
}

void CarrierSimulator::reset() {
  std::lock_guard lock(mutex_);
  mode_ = catalog_.find(kDefaultScenario) ? std::string(kDefaultScenario)
                                          : (catalog_.all().empty() ? "" : catalog_.all().front().name);
  attempts_.clear();
  attempt_order_.clear();
  episodes_.clear();
  stations_.restart_all();  // calls waiting or in service keep their places
  ledger_.clear();
  // in-flight calls are still running: the gauges keep counting them, the peaks restart
  auto restart = [this](Counts& c) {
    const int in_flight = c.in_flight;
    c = zero_counts_locked();
    c.in_flight = c.peak_in_flight = in_flight;
  };
  restart(all_);
  for (auto& [lab, counts] : by_lab_) restart(counts);
}

nlohmann::ordered_json to_json(const CarrierStats& s) {
  return {{"mode", s.mode},
          {"calls_total", s.calls_total},
          {"calls_by_scenario", s.calls_by_scenario},
          {"in_flight", s.in_flight},
          {"peak_in_flight", s.peak_in_flight},
          {"wasted_calls", s.wasted_calls},
          {"wasted_seconds", std::round(s.wasted_seconds * 1000) / 1000},
          {"refused_calls", s.refused_calls},
          {"overloaded_calls", s.overloaded_calls},
          {"bookings", s.bookings},
          {"duplicate_bookings", s.duplicate_bookings},
          {"idempotent_replays", s.idempotent_replays},
          {"deadline_dropped", s.deadline_dropped},
          {"shed_calls", s.shed_calls},
          {"queued", s.queued}};
}

}  // namespace quote_lab
