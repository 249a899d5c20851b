#include "lab/resilience/quote_executor.hpp"

#include "lab/resilience/strategies/strategy_table.hpp"
#include "lab/resilience/strategy.hpp"

namespace quote_lab {

QuoteExecutor::QuoteExecutor(CarrierCaller& carrier, Breaker& breaker, FallbackCache& cache,
                             Clock& clock, RandomSource& random, std::stop_token shutdown)
    : carrier_(carrier), breaker_(breaker), cache_(cache), clock_(clock), random_(random),
      shutdown_(std::move(shutdown)) {}

namespace {

// The flow's stop: the lab's shutdown or its client leaving, whichever comes first. The
// waits (the bulkhead's queue, a backoff, adaptive retry's token) end at either.
class FlowStop {
 public:
  FlowStop(const std::stop_token& shutdown, const std::stop_token& cancel)
      : on_shutdown_(shutdown, Request{source_}), on_cancel_(cancel, Request{source_}) {}
  std::stop_token token() const { return source_.get_token(); }

 private:
  struct Request {
    std::stop_source& source;
    void operator()() const noexcept { source.request_stop(); }
  };
  std::stop_source source_;
  std::stop_callback<Request> on_shutdown_;
  std::stop_callback<Request> on_cancel_;
};

}  // namespace

QuoteTrace QuoteExecutor::run(const QuoteRequest& request, const RetryPolicy& policy, const FlowGuards& guards) {
  QuoteTrace trace;
  trace.request = request;
  const FlowStop stop(shutdown_, request.cancel);
  QuoteContext context{.request = request, .policy = policy, .trace = trace, .clock = clock_, .random = random_,
                       .guards = guards, .started = clock_.now(), .stop = stop.token(), .cancel = request.cancel,
                       .shutdown = shutdown_,
                       .send = [this](const CarrierRequest& call) { return carrier_.call(call); }};
  const auto strategies = make_pipeline(policy.pipeline, StrategyDeps{breaker_, cache_});
  end_refusal(context, Next(strategies)(context));
  trace.elapsed_ms = elapsed_ms(context.started, clock_.now());
  trace.timestamp = clock_.wall_now();
  // A shared breaker's record answered with its state: no further round trip for it.
  trace.dependency = context.recorded ? std::move(*context.recorded) : breaker_.snapshot();
  return trace;
}

}  // namespace quote_lab
