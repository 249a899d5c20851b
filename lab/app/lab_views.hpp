#pragma once
// What LabApp answers, as values: json_views renders them (SPEC.md, "Routes"), so the lab's
// use cases never build JSON themselves.

#include <optional>
#include <string>

#include "lab/base/clock.hpp"
#include "lab/resilience/breaker.hpp"
#include "lab/resilience/fallback_cache.hpp"
#include "lab/resilience/policy.hpp"

namespace quote_lab {

/// Where the breaker lives (SPEC: `state_backend`): "file", or "redis" shared by replicas.
struct StateBackendView {
  std::string kind = "file";
  bool healthy = true;
  std::optional<std::string> error;  ///< the last failure (OS or Redis reason) while unhealthy
};

/// The carrier's dependency as /dependency/state shows it.
struct DependencyView {
  BreakerSnapshot breaker;
  CachedQuote fallback_quote;  ///< the latest live quote cached, or the default key's seed quote
  WallTime now{};              ///< for the fallback quote's age
  std::string state_file;
  std::optional<std::string> state_file_set_aside;  ///< where an unusable state file was moved
  std::optional<std::string> state_file_error;      ///< why the last save failed, until one succeeds
  StateBackendView state_backend;
};

/// /diagnostics/summary: per mode and scenario, the policies and the dependency.
struct DiagnosticsView {
  Policies policies;
  DependencyView dependency;
  std::string carrier_mode;
};

}  // namespace quote_lab
