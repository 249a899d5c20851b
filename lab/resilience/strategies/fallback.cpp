// The cached answer when the flow inside got no live one (fail soft).
#include "lab/resilience/strategies/strategies.hpp"

namespace quote_lab {
namespace {

class Fallback final : public ResilienceStrategy {
 public:
  explicit Fallback(FallbackCache& cache) : cache_(cache) {}

  Outcome execute(QuoteContext& c, const Next& next) override {
    Outcome out = end_refusal(c, next(c));
    QuoteTrace& trace = c.trace;
    if (trace.status == QuoteStatus::completed) {
      cache_.remember(c.request.customer_id, c.request.items, trace.answer->quote);
      return out;
    }
    if (c.cancelled()) {
      // Nobody waits for the answer of a flow whose client left: no fallback either.
      if (!trace.cancelled()) trace.events.push_back({.step = Step::cancelled, .attempt = trace.slots() + 1});
      return Outcome::over();
    }
    const CachedQuote cached = cache_.lookup(c.request.customer_id, c.request.items);
    trace.answer = QuoteAnswer{cached.quote, true, cached.seed, cached.cached_at, cached.age_s(c.clock.wall_now())};
    trace.status = QuoteStatus::degraded;
    // The fallback belongs to the last attempt slot, refused ones included.
    trace.events.push_back({.step = Step::fallback_used, .attempt = trace.slots(),
                            .reason = cached.seed ? Reason::seed_quote : Reason::cached_quote});
    return Outcome::over();
  }

 private:
  FallbackCache& cache_;
};

std::unique_ptr<ResilienceStrategy> make_fallback(FallbackCache& cache) { return std::make_unique<Fallback>(cache); }

}  // namespace

/// Answers from the cache when the flow inside got no live answer (a seed quote when the
/// cache holds none for the customer), and fills the cache with every live answer. A flow
/// whose client left gets no fallback: nobody waits for it.
const StrategyRow& fallback_row() {
  static const StrategyRow kRow{
      .strategy = Strategy::fallback,
      .name = "fallback",
      .rank = 0,
      .steps = {},
      .about = {{"respaldo", "fallback"},
                {"responde con la última cotización buena guardada cuando el flujo no obtiene una en vivo",
                 "answers with the last good quote kept when the flow gets no live one"},
                "Polly v8 FallbackStrategyOptions"},
      .make = [](const StrategyDeps& d) { return make_fallback(d.cache); },
  };
  return kRow;
}

}  // namespace quote_lab
