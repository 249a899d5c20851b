#pragma once
// The simulated carrier really serving on a free 127.0.0.1 port, for the carrier tests:
// scenarios from a folder, a seeded random source, the real clock; stopped at scope exit.

#include <filesystem>
#include <memory>
#include <string>

#include "lab/carrier/carrier_server.hpp"

namespace quote_lab::testing {

struct RunningCarrier {
  ScenarioCatalog catalog;
  RandomSource random{5};
  SystemClock clock;
  std::unique_ptr<CarrierSimulator> simulator;
  std::unique_ptr<CarrierServer> server;
  int port = 0;

  explicit RunningCarrier(const std::filesystem::path& scenarios, int workers = 4)
      : catalog(ScenarioCatalog::load_dir(scenarios)),
        simulator(std::make_unique<CarrierSimulator>(catalog, random)),
        server(std::make_unique<CarrierServer>(*simulator, clock)),
        port(server->start("127.0.0.1", 0, workers)) {}
  ~RunningCarrier() { server->stop(); }
  RunningCarrier(const RunningCarrier&) = delete;
  RunningCarrier& operator=(const RunningCarrier&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
};

}  // namespace quote_lab::testing
