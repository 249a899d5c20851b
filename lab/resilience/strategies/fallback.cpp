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

}  // namespace

std::unique_ptr<ResilienceStrategy> make_fallback(FallbackCache& cache) { return std::make_unique<Fallback>(cache); }

}  // namespace quote_lab
