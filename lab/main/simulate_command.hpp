#pragma once
// `quote-lab simulate`: a storm of one policy on one scenario in simulated time
// (simulation/simulated_storm.hpp), with the storm's load flags, printed as the storm's report.

#include <CLI/CLI.hpp>

namespace quote_lab {

struct SimulateCommand;

/// Adds `simulate` and its flags to `cli`; the returned command holds what they parse.
std::shared_ptr<SimulateCommand> add_simulate_command(CLI::App& cli);
/// True when `simulate` was the subcommand parsed.
bool simulate_parsed(const SimulateCommand& c);
/// Runs it: 0 with the report printed, 2 for a usage error (every problem on stderr), 1 for
/// a policies or scenarios file that cannot be read.
int run_simulate_command(SimulateCommand& c);

}  // namespace quote_lab
