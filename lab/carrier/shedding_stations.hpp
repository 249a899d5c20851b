#pragma once
// Every calling lab's shedding station (shedding_station.hpp), one per lab and scenario, so
// that one student's storm never fills another student's carrier: each lab has the whole
// capacity and queue its scenario declares, and its trigger starts with its own first call
// (and again after its /reset-lab), as metastable episodes do.
//
// The stations share one thing that is not simulated: the carrier's worker threads (a
// waiting call holds one, carrier_server.cpp). So that queues never take them all (the
// carrier's /stats and /health, and calls to other scenarios, need some), the stations
// together hold at most held_limit calls: a call beyond it is shed at once (workers_busy).
// CarrierServer::start sets it from its worker count (kSpareCarrierWorkers kept free).
//
// Not thread-safe: CarrierSimulator holds it under its mutex.

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "lab/carrier/scenario.hpp"
#include "lab/carrier/shedding_station.hpp"

namespace quote_lab {

/// Carrier worker threads the shedding stations leave free for everything else.
inline constexpr int kSpareCarrierWorkers = 4;

class SheddingStations {
 public:
  /// Stations kept at most (a header anyone can send must not grow memory): the least
  /// recently called one without calls goes first; when every one holds calls, a call of a
  /// new lab is served without a station.
  static constexpr std::size_t kMaxStations = 256;

  /// The most calls every station together may hold (in service or waiting); unlimited
  /// until set.
  void set_held_limit(int calls) { held_limit_ = calls; }

  /// A call of `lab` to shedding scenario `s` arrives (SheddingStation::arrive), with a new
  /// ticket; `key` is set to its station's key, for the calls below (empty: no station).
  StationTurn arrive(std::string_view lab, const Scenario& s, Priority priority, SteadyTime now, std::string& key);
  /// SheddingStation::poll at the station `key` names; a station no longer kept serves.
  StationTurn poll(const std::string& key, std::uint64_t ticket, SteadyTime now);
  /// SheddingStation::finish at the station `key` names (nothing when it is no longer kept).
  void finish(const std::string& key, std::uint64_t ticket, bool wasted, SteadyTime now);
  /// SheddingStation::leave at the station `key` names (nothing when it is no longer kept).
  void leave(const std::string& key, std::uint64_t ticket, SteadyTime now);

  /// The lab's most recently called station, nullopt when it has none.
  std::optional<StationView> view(std::string_view lab, SteadyTime now) const;
  /// The lab's stations start again (SheddingStation::restart): its reset, its carrier mode.
  void restart(std::string_view lab);
  /// Every station starts again and those without calls are forgotten (the carrier's reset).
  void restart_all();
  /// Calls waiting in every station now.
  int queued() const;

 private:
  struct Entry {
    std::string lab;
    SheddingStation station;
    SteadyTime last_call{};
  };
  int held() const;
  SheddingStation* find(const std::string& key);

  std::map<std::string, Entry, std::less<>> stations_;  // "lab\nscenario" → station
  std::uint64_t next_ticket_ = 1;
  int held_limit_ = std::numeric_limits<int>::max();
};

}  // namespace quote_lab
