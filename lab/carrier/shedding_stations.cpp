#include "lab/carrier/shedding_stations.hpp"

namespace quote_lab {

int SheddingStations::held() const {
  int n = 0;
  for (const auto& [_, e] : stations_) n += e.station.held();
  return n;
}

int SheddingStations::queued() const {
  int n = 0;
  for (const auto& [_, e] : stations_) n += e.station.queued();
  return n;
}

SheddingStation* SheddingStations::find(const std::string& key) {
  const auto it = stations_.find(key);
  return it == stations_.end() ? nullptr : &it->second.station;
}

StationTurn SheddingStations::arrive(std::string_view lab, const Scenario& s, Priority priority, SteadyTime now,
                                     std::string& key) {
  const std::uint64_t ticket = next_ticket_++;
  key = std::string(lab) + "\n" + s.name;
  auto it = stations_.find(key);
  if (it == stations_.end()) {
    if (stations_.size() >= kMaxStations) {
      auto victim = stations_.end();
      for (auto e = stations_.begin(); e != stations_.end(); ++e)
        if (e->second.station.held() == 0 && (victim == stations_.end() || e->second.last_call < victim->second.last_call))
          victim = e;
      if (victim == stations_.end()) {
        key.clear();
        return StationTurn{.kind = StationTurn::Kind::serve, .ticket = ticket};
      }
      stations_.erase(victim);
    }
    it = stations_.emplace(key, Entry{std::string(lab), SheddingStation(s.name, *s.shedding), now}).first;
  }
  Entry& e = it->second;
  e.last_call = now;
  if (const int held_now = held(); held_now >= held_limit_) {
    e.station.count_shed(ShedReason::workers_busy);
    return StationTurn{.kind = StationTurn::Kind::shed, .ticket = ticket, .reason = ShedReason::workers_busy,
                       .held = held_now};
  }
  return e.station.arrive(ticket, priority, now);
}

StationTurn SheddingStations::poll(const std::string& key, std::uint64_t ticket, SteadyTime now) {
  if (SheddingStation* s = find(key)) return s->poll(ticket, now);
  return StationTurn{.kind = StationTurn::Kind::serve, .ticket = ticket};
}

void SheddingStations::finish(const std::string& key, std::uint64_t ticket, bool wasted, SteadyTime now) {
  if (SheddingStation* s = find(key)) s->finish(ticket, wasted, now);
}

void SheddingStations::leave(const std::string& key, std::uint64_t ticket, SteadyTime now) {
  if (SheddingStation* s = find(key)) s->leave(ticket, now);
}

std::optional<StationView> SheddingStations::view(std::string_view lab, SteadyTime now) const {
  const Entry* latest = nullptr;
  for (const auto& [_, e] : stations_)
    if (e.lab == lab && (latest == nullptr || e.last_call > latest->last_call)) latest = &e;
  if (latest == nullptr) return std::nullopt;
  return latest->station.view(now);
}

void SheddingStations::restart(std::string_view lab) {
  for (auto& [_, e] : stations_)
    if (e.lab == lab) e.station.restart();
}

void SheddingStations::restart_all() {
  std::erase_if(stations_, [](const auto& kv) { return kv.second.station.held() == 0; });
  for (auto& [_, e] : stations_) e.station.restart();
}

}  // namespace quote_lab
