#pragma once
// A metastable failure, one episode per calling lab: the trigger (an outage of down_ms from
// the lab's first call), then the carrier is up with a limited capacity, and whether (and
// when) it recovered. Per lab, because in a class 30 students reach the one embedded
// carrier: each student's trigger starts with their own first call (and again after their
// /reset-lab), and their own calls in flight fill their own capacity, so what one student
// does cannot keep another's carrier down.
//
// "Metastable failures in distributed systems" (Bronson, Aghayev, Charapko, Zhu; HotOS
// 2021): a trigger pushes the system into a bad state that a sustaining effect (here the
// retries' work, still in flight at the carrier after their callers gave up) keeps it in
// after the trigger is gone. Recovery is measured as the carrier sees it: the first run of
// kRecoveryRun consecutive calls after the trigger that all got the healthy behaviour.
//
// Not thread-safe: CarrierSimulator holds it under its own mutex.

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "lab/base/clock.hpp"
#include "lab/carrier/scenario.hpp"

namespace quote_lab {

/// What one lab's episode looks like now (GET /carrier's `metastable`).
struct MetastableView {
  std::string scenario;        ///< the metastable scenario playing
  bool trigger_over = false;   ///< the down_ms outage has ended
  double since_trigger_start_s = 0;
  int down_ms = 0;             ///< the trigger's length
  int capacity = 0;            ///< calls the carrier serves at once once up
  int in_flight = 0;           ///< this lab's calls at the carrier now
  std::uint64_t calls_after_trigger = 0;
  std::uint64_t overloaded_calls = 0;  ///< calls after the trigger that found the capacity full
  /// Seconds from the trigger's end to the first call of the first run of kRecoveryRun
  /// healthy calls; nullopt: not recovered (yet), or nothing to judge (see `recovery`).
  std::optional<double> recovered_after_trigger_s;

  /// Whether the episode shows a recovery. A null recovered_after_trigger_s means two
  /// different things: calls kept finding the carrier full, or no call came after the
  /// trigger (a breaker kept them away), and a class must not read the second as "never".
  enum class Recovery { trigger_running, no_calls_after_trigger, not_recovered, recovered };
  Recovery recovery() const;
};

/// "trigger_running", "no_calls_after_trigger", "not_recovered" or "recovered".
const char* to_string(MetastableView::Recovery r);

/// Every lab's episode, by lab name ("" is the teacher's lab, or a caller that sent no
/// X-Quote-Lab header).
class MetastableEpisodes {
 public:
  /// Consecutive healthy calls after the trigger that count as recovered.
  static constexpr int kRecoveryRun = 10;
  /// Episodes kept at most (a header anyone can send must not grow memory): the least
  /// recently called episode without calls in flight goes first.
  static constexpr std::size_t kMaxEpisodes = 256;

  /// The behaviour of a call of `lab` to metastable scenario `s` at `now`: "down" during
  /// the trigger (which starts with the lab's first call to it), "overload" when the lab
  /// already has `capacity` calls in flight, else `healthy` (the attempt's own behaviour).
  /// `overloaded` tells the caller which one played.
  AttemptBehaviour plan(std::string_view lab, const Scenario& s, const AttemptBehaviour& healthy, SteadyTime now,
                        bool& overloaded);

  /// A call of `lab` starts / ends at the carrier (the capacity counts calls in flight).
  void begin_call(std::string_view lab);
  void end_call(std::string_view lab);

  /// The lab's episode, nullopt when it has none.
  std::optional<MetastableView> view(std::string_view lab, SteadyTime now) const;

  /// The lab's next call starts a new episode (its /reset-lab, its carrier mode set).
  void restart(std::string_view lab);
  /// Every lab's (the carrier's reset).
  void clear() { episodes_.clear(); }

 private:
  struct Episode {
    const Scenario* scenario = nullptr;
    SteadyTime since{};
    SteadyTime last_call{};
    int in_flight = 0;
    std::uint64_t calls_after_trigger = 0;
    std::uint64_t overloaded = 0;
    int healthy_run = 0;
    SteadyTime run_started{};
    std::optional<Millis> recovered_after{};
  };
  Episode& episode_for(std::string_view lab, const Scenario& s, SteadyTime now);

  std::map<std::string, Episode, std::less<>> episodes_;
};

/// {"scenario", "trigger_over", "since_trigger_start_s", "down_ms", "capacity", "in_flight",
/// "calls_after_trigger", "overloaded_calls", "recovered_after_trigger_s" (null: not yet, or
/// no call to judge), "recovery" (MetastableView::recovery(): which of the two a null is)}
nlohmann::ordered_json to_json(const MetastableView& v);

}  // namespace quote_lab
