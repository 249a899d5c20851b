#pragma once
// The strategies of a pipeline (pipeline.hpp), one class each behind ResilienceStrategy
// (strategy.hpp), each made fresh for one flow; and, for those that keep state between flows,
// their state (strategy_state.hpp), made once per policy and lab from the policy's settings,
// with the gauge families it shows. Each strategy's file has its row; strategy_table.cpp
// lists the rows, and nothing else names them.

#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "lab/resilience/breaker.hpp"
#include "lab/resilience/fallback_cache.hpp"
#include "lab/resilience/strategy.hpp"
#include "lab/resilience/strategy_state.hpp"

namespace quote_lab {

/// What the strategies of a lab share besides the guards: the breaker the policy asks and
/// the cache its fallback reads.
struct StrategyDeps {
  Breaker& breaker;
  FallbackCache& cache;
};

using StrategyMaker = std::unique_ptr<ResilienceStrategy> (*)(const StrategyDeps&);
using StateMaker = std::unique_ptr<StrategyState> (*)(const RetryPolicy&, const StateDeps&);
using GaugeList = std::span<const GaugeFamily* const> (*)();
using LongestWait = Millis (*)(const RetryPolicy&);

/// Everything the lab knows of one strategy besides its settings struct, written in the
/// strategy's own file (strategies/NAME.cpp, its `NAME_row()`, documented there) and listed
/// by strategies/strategy_table.cpp: its name in the policies file, metrics and docs, its
/// place in the shipped order, the steps it alone produces, what a student reads of it, its
/// maker, and for a strategy that keeps state between flows, its state's maker and gauge
/// families.
struct StrategyRow {
  Strategy strategy;
  std::string_view name;
  int rank;              ///< position in the shipped policies' order (0 = outermost); the gates share one
  StrategySteps steps;   ///< the steps it alone produces (metrics make their series from start)
  StrategyAbout about;   ///< what a student reads of it (GET /)
  StrategyMaker make;    ///< one strategy object for one flow
  StateMaker make_state = nullptr;   ///< null: nothing kept between flows
  GaugeList gauges = nullptr;        ///< the gauge families its state shows
  std::optional<OuterNeed> outer{};  ///< the strategy it works for, listed outside it
  LongestWait longest_wait = nullptr;  ///< the longest one pass through it may wait (null: it never waits)
};

}  // namespace quote_lab
