#pragma once
// The wiring of the servers: options in, running servers out. `serve` builds the catalog,
// the policies, the embedded carrier, LabApp, the routes and the storm runner, runs them
// until SIGINT/SIGTERM and stops them in order; `carrier` runs the simulated carrier alone.

#include <filesystem>
#include <string>

#include "lab/app/options.hpp"
#include "lab/resilience/policy.hpp"

namespace quote_lab {

/// Runs the lab until a stop signal; 0 on a clean stop. Throws on a start-up error (a bad
/// scenario or policy file, a busy port, a state path that is a device or FIFO).
int run_serve(const ServeOptions& o, const CommonOptions& common);

/// The project folder holding scenarios/ and public/: the current directory, then the
/// folders above the binary, then the source tree the binary was built from.
std::filesystem::path project_dir();

/// The course's policies and the shipped ones, with `policies_file`'s on top (empty: none).
/// Throws PolicyError naming the file and every problem in it.
Policies policies_with_file(const std::string& policies_file);

/// Runs the simulated carrier alone until a stop signal; 0 on a clean stop. Throws on a
/// start-up error (bad scenario files, a busy port).
int run_carrier(const CarrierOptions& o, const CommonOptions& common);

}  // namespace quote_lab
