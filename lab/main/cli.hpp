#pragma once
// Command-line interface: `quote-lab serve` (the lab and its embedded carrier) and
// `quote-lab carrier` (the simulated carrier alone, e.g. behind a fault-injection proxy).

namespace quote_lab {

/// Parses argv, runs the chosen subcommand until SIGINT/SIGTERM and returns the exit code
/// (0 clean stop, 1 start-up error such as a bad scenario file or a busy port, 2 bad usage).
int run_cli(int argc, char** argv);

}  // namespace quote_lab
