#pragma once
// One interface for every strategy of a pipeline (Polly v8's ResilienceStrategy,
// resilience4j's decorators): a strategy wraps the rest of the pipeline, `execute(context,
// next)`, and the executor (quote_executor.hpp) only composes them in the policy's order,
// outermost first. The innermost, `timeout`, is the carrier call itself.
//
// What flows through is one QuoteContext: the request and its trace, the deadline, the
// stop (the lab's shutdown or the client leaving), the attempt number the retry sets, the
// breaker's admission (is this call the half-open probe?) and the way a call is sent
// (hedging replaces it). A strategy owns no thread and never sleeps by itself: its waits go
// through the context's clock and its calls through the injected caller, so the same
// objects run against the real carrier and in simulated time.
//
// Strategies are made per flow (strategy_table.hpp) and may keep that flow's state (the
// retry quota's payment); what lasts between flows lives in the lab's guards (FlowGuards).

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>

#include "lab/base/clock.hpp"
#include "lab/base/random.hpp"
#include "lab/resilience/breaker.hpp"
#include "lab/resilience/carrier_call.hpp"
#include "lab/resilience/flow_guards.hpp"
#include "lab/resilience/policy.hpp"
#include "lab/resilience/quote_trace.hpp"

namespace quote_lab {


/// A flow's total deadline (the `deadline` strategy), steady for the lab's own decisions and
/// wall for the carrier, which drops work past it; both empty without one.
struct FlowDeadline {
  std::optional<SteadyTime> steady;
  std::optional<WallTime> wall;
  /// Time left to it at the clock's now; empty without a deadline (may be negative).
  std::optional<Millis> left(const Clock& clock) const;
};

/// Everything one flow's strategies read and pass inwards. Strategies change a field for
/// the strategies inside them and put it back when `next` returns.
struct QuoteContext {
  const QuoteRequest& request;
  const RetryPolicy& policy;
  QuoteTrace& trace;  ///< the flow's steps, appended in order
  Clock& clock;
  RandomSource& random;
  const FlowGuards& guards;       ///< what lasts between flows: the retry budget, each strategy's state
  SteadyTime started;             ///< when the flow began
  FlowDeadline deadline{};        ///< set by `deadline`
  std::stop_token stop{};         ///< the lab's shutdown or the client leaving: ends every wait
  std::stop_token cancel{};       ///< the client leaving (QuoteRequest::cancel)
  std::stop_token shutdown{};     ///< the lab stopping
  int attempt = 1;                ///< the attempt slot, set by `retry` (1 outside it)
  bool probe = false;             ///< the call is the half-open breaker's one probe
  /// The breaker as its last record left it (the answer shows it); empty when nothing
  /// was recorded since the last wait, and the executor reads the breaker once more.
  std::optional<BreakerSnapshot> recorded{};
  /// How a call goes out: to the carrier, or as a hedged call (`hedging` replaces it).
  std::function<CallOutcome(const CarrierRequest&)> send{};

  bool cancelled() const { return cancel.stop_requested(); }
};

/// How the strategies inside ended, as the one outside sees it.
struct Outcome {
  enum class End {
    call,     ///< a call reached the carrier: `call` says how it went
    refused,  ///< the breaker refused the slot (`refusal`); no step written yet
    ended,    ///< the flow is over, its step written: rejected, cancelled, answered from the cache
  };
  End end = End::ended;
  CallOutcome call{};
  Reason refusal = Reason::circuit_open;
  BreakerState breaker_after = BreakerState::closed;  ///< the breaker after recording `call`

  static Outcome of_call(CallOutcome c) { return {.end = End::call, .call = std::move(c)}; }
  static Outcome over() { return {}; }
};

/// A breaker refusal that reached `context`'s strategy with its step unwritten (no `retry`
/// inside to decide on it) ends the flow here: short_circuit on the first slot,
/// retry_skipped on a later one. Any other outcome is returned as it is.
Outcome end_refusal(QuoteContext& context, Outcome outcome);

class ResilienceStrategy;

/// The rest of the pipeline, as a strategy calls it: `next(context)`.
class Next {
 public:
  explicit Next(std::span<const std::unique_ptr<ResilienceStrategy>> rest) : rest_(rest) {}
  Outcome operator()(QuoteContext& context) const;
  /// The strategies it runs, outermost first (a `retry` asks them before a retry).
  std::span<const std::unique_ptr<ResilienceStrategy>> rest() const { return rest_; }

 private:
  std::span<const std::unique_ptr<ResilienceStrategy>> rest_;
};

/// One strategy of a pipeline.
class ResilienceStrategy {
 public:
  virtual ~ResilienceStrategy() = default;
  /// Runs the rest of the pipeline (`next`) under this strategy, or ends the flow here
  /// (a refusal's step written to the trace).
  virtual Outcome execute(QuoteContext& context, const Next& next) = 0;
  /// Asked by a `retry` outside this strategy once it decided to retry, before its wait:
  /// why this retry may not go (a `retry_skipped` reason), or nullopt. `failure` is what the
  /// attempt before it failed with. May spend (the retry quota pays).
  virtual std::optional<Reason> admit_retry(QuoteContext&, CallError /*failure*/) { return std::nullopt; }
  /// Told by that `retry` that the attempt it admitted will not be made after all (the lab
  /// stopping, the deadline, the client gone during the wait).
  virtual void retry_dropped(QuoteContext&) {}
};

}  // namespace quote_lab
