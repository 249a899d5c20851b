#include "lab/carrier/metastable_episode.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

namespace quote_lab {

MetastableEpisodes::Episode& MetastableEpisodes::episode_for(std::string_view lab, const Scenario& s,
                                                             SteadyTime now) {
  auto it = episodes_.find(lab);
  if (it != episodes_.end() && it->second.scenario != &s) {
    // Another metastable scenario: a new episode (calls in flight still end here).
    const int in_flight = it->second.in_flight;
    it->second = Episode{.scenario = &s, .since = now, .last_call = now, .in_flight = in_flight};
  }
  if (it == episodes_.end()) {
    if (episodes_.size() >= kMaxEpisodes) {
      auto victim = episodes_.begin();
      for (auto e = episodes_.begin(); e != episodes_.end(); ++e) {
        const bool idle = e->second.in_flight == 0, victim_idle = victim->second.in_flight == 0;
        if ((idle && !victim_idle) || (idle == victim_idle && e->second.last_call < victim->second.last_call)) victim = e;
      }
      episodes_.erase(victim);
    }
    it = episodes_.emplace(std::string(lab), Episode{.scenario = &s, .since = now, .last_call = now}).first;
  }
  return it->second;
}

AttemptBehaviour MetastableEpisodes::plan(std::string_view lab, const Scenario& s, const AttemptBehaviour& healthy,
                                          SteadyTime now, bool& overloaded) {
  overloaded = false;
  const Metastable& m = *s.metastable;
  Episode& e = episode_for(lab, s, now);
  e.last_call = now;
  const SteadyTime trigger_end = e.since + Millis(m.down_ms);
  if (now < trigger_end) return m.down;
  ++e.calls_after_trigger;
  if (e.in_flight >= m.capacity) {
    overloaded = true;
    ++e.overloaded;
    e.healthy_run = 0;
    return m.overload;
  }
  if (e.healthy_run++ == 0) e.run_started = now;
  if (e.healthy_run >= kRecoveryRun && !e.recovered_after)
    e.recovered_after = std::chrono::duration_cast<Millis>(e.run_started - trigger_end);
  return healthy;
}

void MetastableEpisodes::begin_call(std::string_view lab) {
  if (auto it = episodes_.find(lab); it != episodes_.end()) ++it->second.in_flight;
}

void MetastableEpisodes::end_call(std::string_view lab) {
  // An episode restarted or evicted while the call ran keeps no count of it.
  if (auto it = episodes_.find(lab); it != episodes_.end() && it->second.in_flight > 0) --it->second.in_flight;
}

std::optional<MetastableView> MetastableEpisodes::view(std::string_view lab, SteadyTime now) const {
  const auto it = episodes_.find(lab);
  if (it == episodes_.end() || it->second.scenario == nullptr) return std::nullopt;  // restarted: no call yet
  const Episode& e = it->second;
  const Metastable& m = *e.scenario->metastable;
  const auto seconds = [](auto d) { return std::chrono::duration<double>(d).count(); };
  MetastableView v{e.scenario->name,
                   now >= e.since + Millis(m.down_ms),
                   seconds(now - e.since),
                   m.down_ms,
                   m.capacity,
                   e.in_flight,
                   e.calls_after_trigger,
                   e.overloaded,
                   std::nullopt};
  if (e.recovered_after) v.recovered_after_trigger_s = seconds(*e.recovered_after);
  return v;
}

void MetastableEpisodes::restart(std::string_view lab) {
  // Calls of the old episode still in flight hold the carrier's capacity: they are kept.
  if (auto it = episodes_.find(lab); it != episodes_.end()) {
    const int in_flight = it->second.in_flight;
    episodes_.erase(it);
    if (in_flight > 0) episodes_.emplace(std::string(lab), Episode{.in_flight = in_flight});
  }
}

MetastableView::Recovery MetastableView::recovery() const {
  if (!trigger_over) return Recovery::trigger_running;
  if (recovered_after_trigger_s) return Recovery::recovered;
  return calls_after_trigger == 0 ? Recovery::no_calls_after_trigger : Recovery::not_recovered;
}

const char* to_string(MetastableView::Recovery r) {
  switch (r) {
    case MetastableView::Recovery::trigger_running: return "trigger_running";
    case MetastableView::Recovery::no_calls_after_trigger: return "no_calls_after_trigger";
    case MetastableView::Recovery::not_recovered: return "not_recovered";
    case MetastableView::Recovery::recovered: return "recovered";
  }
  return "not_recovered";
}

nlohmann::ordered_json to_json(const MetastableView& v) {
  const auto ms3 = [](double s) { return std::round(s * 1000) / 1000; };
  return {{"scenario", v.scenario},
          {"trigger_over", v.trigger_over},
          {"since_trigger_start_s", ms3(v.since_trigger_start_s)},
          {"down_ms", v.down_ms},
          {"capacity", v.capacity},
          {"in_flight", v.in_flight},
          {"calls_after_trigger", v.calls_after_trigger},
          {"overloaded_calls", v.overloaded_calls},
          {"recovered_after_trigger_s",
           v.recovered_after_trigger_s ? nlohmann::ordered_json(ms3(*v.recovered_after_trigger_s)) : nullptr},
          {"recovery", to_string(v.recovery())}};
}

}  // namespace quote_lab
