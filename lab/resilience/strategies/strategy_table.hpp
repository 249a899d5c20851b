#pragma once
// From a policy's list of strategies (pipeline.hpp) to the objects that run one flow of it.

#include <memory>
#include <vector>

#include "lab/resilience/pipeline.hpp"
#include "lab/resilience/strategies/strategies.hpp"

namespace quote_lab {

/// One strategy object per entry of `pipeline`, in its order (outermost first), made for one flow.
std::vector<std::unique_ptr<ResilienceStrategy>> make_pipeline(const std::vector<Strategy>& pipeline,
                                                               const StrategyDeps& deps);

}  // namespace quote_lab
