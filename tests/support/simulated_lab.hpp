#pragma once
// The lab against the shipped scenario files, played by the real CarrierSimulator on the
// fake clock (simulated_carrier.hpp). One draw `u` for everything: every carrier latency and
// every backoff jitter is at the same point of its range (0: the fastest, near 1: the slowest).

#include <filesystem>

#include "lab/app/lab_app.hpp"
#include "support/fixed_random.hpp"
#include "support/paths.hpp"
#include "support/simulated_carrier.hpp"

namespace quote_lab::testing {

inline const ScenarioCatalog& shipped_scenario_catalog() {
  static const ScenarioCatalog catalog = ScenarioCatalog::load_dir(std::filesystem::path(source_dir()) / "scenarios");
  return catalog;
}

struct SimulatedLab {
  explicit SimulatedLab(double u) : random(u) {}
  FakeClock clock;
  FixedRandom random;
  SimulatedCarrier carrier{shipped_scenario_catalog(), random, clock};
  LabApp app{LabDeps{.scenarios = shipped_scenario_catalog(), .policies = default_policies(), .carrier = carrier,
                     .embedded_carrier = &carrier.simulator(), .clock = clock, .random = random,
                     .mode_carrier = &carrier.simulator()}};
};

}  // namespace quote_lab::testing
