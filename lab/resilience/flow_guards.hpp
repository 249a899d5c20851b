#pragma once
// What one policy keeps between flows in one lab, lent to each of its flows: the course's
// retry budget, and what each stateful strategy of its pipeline keeps (a bulkhead, a quota, a
// limit: strategy_state.hpp), in that strategy's slot. Each strategy lends and finds its
// own, so this names none of them. Not owned; each is thread-safe.

#include <array>
#include <stdexcept>
#include <typeinfo>

#include "lab/resilience/pipeline.hpp"
#include "lab/resilience/retry_budget.hpp"

namespace quote_lab {

struct FlowGuards {
  /// One strategy's slot: what it keeps, and its type (a slot is read as the type it was lent as).
  struct Lent {
    void* held = nullptr;
    const std::type_info* type = nullptr;
  };

  RetryBudget* retry_budget = nullptr;    ///< the retry strategy's budget (retry_budget_ratio); null: none
  std::array<Lent, kStrategyCount> lent{};  ///< by Strategy; empty: the strategy passes its flows through

  /// Puts `held` in strategy `s`'s slot; returns *this, so a test can lend several in one expression.
  template <class T>
  FlowGuards& lend(Strategy s, T* held) {
    lent[static_cast<std::size_t>(s)] = {held, &typeid(T)};
    return *this;
  }
  /// What strategy `s` was lent, null when nothing was. Throws std::logic_error when it was
  /// lent as another type than T: a strategy and its state disagree, a bug, never a flow's fault.
  template <class T>
  T* held(Strategy s) const {
    const Lent& slot = lent[static_cast<std::size_t>(s)];
    if (!slot.held) return nullptr;
    if (*slot.type != typeid(T)) throw std::logic_error("FlowGuards: a strategy's slot read as another type");
    return static_cast<T*>(slot.held);
  }
};

}  // namespace quote_lab
