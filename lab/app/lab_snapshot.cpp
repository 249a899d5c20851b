#include "lab/app/lab_snapshot.hpp"

#include <stdexcept>

#include "lab/app/class_events.hpp"

namespace quote_lab {
namespace {

using json = nlohmann::json;

// Bumped when the form changes: a replica of another version ignores the snapshot (and
// replays what the stream still holds) instead of misreading it.
constexpr int kVersion = 1;

json counters_json(const FlowCounters& c) {
  return {{"n",
           {c.requests, c.completed, c.degraded, c.failed, c.attempts, c.retries, c.timeouts, c.fallbacks,
            c.circuit_opens, c.short_circuits}},
          {"max_ms", c.max_ms},
          {"window_ms", c.latency_window_ms}};
}

FlowCounters counters_from(const json& j) {
  const auto n = j.at("n").get<std::vector<std::uint64_t>>();
  if (n.size() != 10) throw std::invalid_argument("counters need 10 numbers, got " + std::to_string(n.size()));
  FlowCounters c;
  c.requests = n[0];
  c.completed = n[1];
  c.degraded = n[2];
  c.failed = n[3];
  c.attempts = n[4];
  c.retries = n[5];
  c.timeouts = n[6];
  c.fallbacks = n[7];
  c.circuit_opens = n[8];
  c.short_circuits = n[9];
  c.max_ms = j.at("max_ms").get<double>();
  for (const json& v : j.at("window_ms")) c.latency_window_ms.push_back(v.get<double>());
  return c;
}

}  // namespace

std::string encode_lab_snapshot(const LabSnapshot& s) {
  json incidents = json::array();
  for (const Incident& i : s.telemetry.incidents) incidents.push_back(flow_to_json(FlowRecord{i}));
  json modes = json::object();
  for (const auto& [mode, c] : s.telemetry.by_mode) modes[mode] = counters_json(c);
  json scenarios = json::object();
  for (const auto& [mode, per] : s.telemetry.by_mode_scenario)
    for (const auto& [name, c] : per) scenarios[mode][name] = counters_json(c);
  const json j{{"v", kVersion},
               {"lab", s.lab},
               {"through", s.through},
               {"last_entry", s.last_entry},
               {"carrier_mode", s.carrier_mode},
               {"storm", json(s.storm)},
               {"incidents", std::move(incidents)},
               {"modes", std::move(modes)},
               {"scenarios", std::move(scenarios)},
               // As text: the snapshot is read back unordered, and a pipeline's entries read
               // best with "strategy" first.
               {"design", s.design.is_null() ? json(nullptr) : json(s.design.dump())},
               {"design_at", s.design_at}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

LabSnapshot decode_lab_snapshot(const std::string& text) {
  try {
    const json j = json::parse(text);
    if (j.at("v") != kVersion) throw std::invalid_argument("snapshot format " + j.at("v").dump() + ", not " + std::to_string(kVersion));
    LabSnapshot s;
    s.lab = j.at("lab").get<std::string>();
    s.through = j.at("through").get<std::string>();
    s.last_entry = j.at("last_entry").get<std::string>();
    s.carrier_mode = j.at("carrier_mode").get<std::string>();
    s.storm = nlohmann::ordered_json::parse(j.at("storm").dump());
    for (const json& f : j.at("incidents")) s.telemetry.incidents.push_back(flow_from_json(f).incident);
    for (const auto& [mode, c] : j.at("modes").items()) s.telemetry.by_mode[mode] = counters_from(c);
    for (const auto& [mode, per] : j.at("scenarios").items())
      for (const auto& [name, c] : per.items()) s.telemetry.by_mode_scenario[mode][name] = counters_from(c);
    // Absent from a replica older than the challenge: no design.
    if (j.contains("design") && j.at("design").is_string())
      s.design = nlohmann::ordered_json::parse(j.at("design").get<std::string>());
    s.design_at = j.value("design_at", "");
    return s;
  } catch (const json::exception& ex) {
    throw std::invalid_argument(std::string("not a lab snapshot: ") + ex.what());
  }
}

}  // namespace quote_lab
