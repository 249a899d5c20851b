#include "lab/carrier/shedding_station.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "lab/base/name_table.hpp"

namespace quote_lab {
namespace {

constexpr NameTable<ShedReason, 4> kShedReasonNames{{{
    {ShedReason::queue_full, "queue_full"},
    {ShedReason::codel, "codel"},
    {ShedReason::priority, "priority"},
    {ShedReason::workers_busy, "workers_busy"},
}}};

bool has_codel_limits(QueueDiscipline d) { return d == QueueDiscipline::codel || d == QueueDiscipline::adaptive_lifo; }

// In service below which a sheddable call may start: capacity × (1 − share), rounded up so
// that 10 × 0.8 is 8 and not 7 for a product that comes out as 7.9999999999999991.
int sheddable_slots(int capacity, double critical_share) {
  return static_cast<int>(std::ceil(capacity * (1.0 - critical_share) - 1e-9));
}

}  // namespace

std::string_view to_string(ShedReason r) { return kShedReasonNames.name(r); }

SheddingStation::SheddingStation(std::string scenario, const Shedding& config)
    : scenario_(std::move(scenario)), config_(config) {}

int SheddingStation::capacity_at(SteadyTime t) const {
  if (!config_.trigger || !since_) return config_.capacity;
  const SteadyTime start = *since_ + Millis(config_.trigger->after_ms);
  if (t < start || t >= *trigger_end()) return config_.capacity;
  return static_cast<int>(std::lround(config_.capacity * (1.0 - config_.trigger->capacity_drop)));
}

std::optional<SteadyTime> SheddingStation::trigger_end() const {
  if (!config_.trigger || !since_) return std::nullopt;
  return *since_ + Millis(config_.trigger->after_ms) + Millis(config_.trigger->length_ms);
}

bool SheddingStation::congested(SteadyTime t) const {
  return nonempty_since_ && t - *nonempty_since_ > Millis(config_.queue.interval_ms);
}

bool SheddingStation::startable(Priority p, SteadyTime t) const {
  const int in_service = static_cast<int>(serving_.size());
  const int capacity = capacity_at(t);
  if (in_service >= capacity) return false;
  return p == Priority::critical || in_service < sheddable_slots(capacity, config_.critical_share);
}

std::optional<std::size_t> SheddingStation::next_to_serve(SteadyTime t) const {
  const QueueDiscipline d = config_.queue.discipline;
  const bool newest_first = d == QueueDiscipline::lifo || (d == QueueDiscipline::adaptive_lifo && congested(t));
  const std::size_t n = waiting_.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = newest_first ? n - 1 - k : k;
    if (startable(waiting_[i].priority, t)) return i;
  }
  return std::nullopt;
}

void SheddingStation::queue_changed(SteadyTime) {
  if (waiting_.empty()) nonempty_since_.reset();
}

void SheddingStation::admit(SteadyTime t) {
  while (const auto i = next_to_serve(t)) {
    const std::uint64_t ticket = waiting_[*i].ticket;
    waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(*i));
    serving_.insert(ticket);
    ++served_;
    decided_[ticket] = StationTurn{.kind = StationTurn::Kind::serve, .ticket = ticket};
  }
  queue_changed(t);
}

void SheddingStation::drop_expired(SteadyTime t) {
  std::erase_if(waiting_, [&](const Waiter& w) {
    if (!w.expires || *w.expires > t) return false;
    StationTurn turn = shed(w.ticket, ShedReason::codel);
    turn.waited = std::chrono::duration_cast<Millis>(t - w.since);
    turn.allowed_wait = std::chrono::duration_cast<Millis>(*w.expires - w.since);
    decided_[w.ticket] = turn;
    return true;
  });
  queue_changed(t);
}

SteadyTime SheddingStation::settle(SteadyTime now) {
  now = std::max(now, settled_);  // threads read the clock before they take the lock
  for (;;) {
    std::optional<SteadyTime> expiry;
    for (const Waiter& w : waiting_)
      if (w.expires && *w.expires <= now && (!expiry || *w.expires < *expiry)) expiry = w.expires;
    const auto end = trigger_end();
    if (end && *end > settled_ && *end <= now && (!expiry || *end <= *expiry)) {
      settled_ = *end;  // the capacity comes back: places for calls still waiting then
      admit(*end);
      continue;
    }
    if (!expiry) break;
    settled_ = *expiry;
    drop_expired(*expiry);
  }
  settled_ = now;
  admit(now);
  return now;
}

StationTurn SheddingStation::shed(std::uint64_t ticket, ShedReason reason) {
  ++shed_[static_cast<int>(reason)];
  return StationTurn{.kind = StationTurn::Kind::shed, .ticket = ticket, .reason = reason,
                     .queued = queued(), .queue_max = config_.queue.max};
}

std::optional<SteadyTime> SheddingStation::wake_at(const Waiter& w, SteadyTime now) const {
  std::optional<SteadyTime> at = w.expires;
  if (const auto end = trigger_end(); end && *end > now && (!at || *end < *at)) at = end;
  return at;
}

StationTurn SheddingStation::arrive(std::uint64_t ticket, Priority priority, SteadyTime now) {
  if (!since_) since_ = now;
  now = settle(now);
  // settle() left no waiting call that could start, so this one jumps ahead of none.
  if (startable(priority, now)) {
    serving_.insert(ticket);
    ++served_;
    return StationTurn{.kind = StationTurn::Kind::serve, .ticket = ticket};
  }
  const int room = config_.queue.max;
  if (queued() >= room) {
    if (priority == Priority::sheddable) {
      const bool place_kept = static_cast<int>(serving_.size()) < capacity_at(now);
      return shed(ticket, place_kept ? ShedReason::priority : ShedReason::queue_full);
    }
    const auto victim = std::find_if(waiting_.begin(), waiting_.end(),
                                     [](const Waiter& w) { return w.priority == Priority::sheddable; });
    if (victim == waiting_.end()) return shed(ticket, ShedReason::queue_full);
    decided_[victim->ticket] = shed(victim->ticket, ShedReason::priority);
    waiting_.erase(victim);  // and its place taken at once: the queue was never empty
  }
  Waiter w{.ticket = ticket, .priority = priority, .since = now};
  if (has_codel_limits(config_.queue.discipline))
    w.expires = now + Millis(congested(now) ? config_.queue.target_ms : config_.queue.interval_ms);
  if (!nonempty_since_) nonempty_since_ = now;
  waiting_.push_back(w);
  return StationTurn{.kind = StationTurn::Kind::wait, .ticket = ticket, .wake_at = wake_at(w, now)};
}

StationTurn SheddingStation::poll(std::uint64_t ticket, SteadyTime now) {
  now = settle(now);
  if (const auto it = decided_.find(ticket); it != decided_.end()) {
    const StationTurn turn = it->second;
    decided_.erase(it);
    return turn;
  }
  for (const Waiter& w : waiting_)
    if (w.ticket == ticket) return StationTurn{.kind = StationTurn::Kind::wait, .ticket = ticket, .wake_at = wake_at(w, now)};
  return StationTurn{.kind = StationTurn::Kind::serve, .ticket = ticket};
}

void SheddingStation::finish(std::uint64_t ticket, bool wasted, SteadyTime now) {
  now = settle(now);
  if (serving_.erase(ticket) > 0 && wasted) ++wasted_;
  admit(now);
}

void SheddingStation::leave(std::uint64_t ticket, SteadyTime now) {
  now = settle(now);
  std::erase_if(waiting_, [&](const Waiter& w) { return w.ticket == ticket; });
  decided_.erase(ticket);
  serving_.erase(ticket);
  admit(now);
}

void SheddingStation::restart() {
  since_.reset();
  served_ = 0;
  wasted_ = 0;
  std::fill(std::begin(shed_), std::end(shed_), 0);
}

StationView SheddingStation::view(SteadyTime now) const {
  StationView v;
  v.scenario = scenario_;
  v.discipline = std::string(to_string(config_.queue.discipline));
  v.capacity = config_.capacity;
  v.capacity_now = capacity_at(now);
  v.sheddable_limit = sheddable_slots(v.capacity_now, config_.critical_share);
  v.in_service = static_cast<int>(serving_.size());
  v.queued = queued();
  v.queue_max = config_.queue.max;
  v.congested = congested(now);
  const auto end = trigger_end();
  v.trigger_running = end && now >= *end - Millis(config_.trigger->length_ms) && now < *end;
  v.served = served_;
  v.wasted = wasted_;
  for (const ShedReason r : kShedReasons) v.shed[std::string(to_string(r))] = shed_[static_cast<int>(r)];
  return v;
}

nlohmann::ordered_json to_json(const StationView& v) {
  nlohmann::ordered_json shed = nlohmann::ordered_json::object();
  for (const ShedReason r : kShedReasons) shed[std::string(to_string(r))] = v.shed.at(std::string(to_string(r)));
  return {{"scenario", v.scenario},
          {"discipline", v.discipline},
          {"capacity", v.capacity},
          {"capacity_now", v.capacity_now},
          {"sheddable_limit", v.sheddable_limit},
          {"in_service", v.in_service},
          {"queued", v.queued},
          {"queue_max", v.queue_max},
          {"congested", v.congested},
          {"trigger_running", v.trigger_running},
          {"served", v.served},
          {"wasted", v.wasted},
          {"shed", shed}};
}

}  // namespace quote_lab
