#include "lab/resilience/strategy.hpp"

namespace quote_lab {

std::optional<Millis> FlowDeadline::left(const Clock& clock) const {
  if (!steady) return std::nullopt;
  return std::chrono::duration_cast<Millis>(*steady - clock.now());
}

Outcome Next::operator()(QuoteContext& context) const {
  if (rest_.empty()) return Outcome::over();  // the pipeline ends without a call: nothing more happens
  return rest_.front()->execute(context, Next(rest_.subspan(1)));
}

Outcome end_refusal(QuoteContext& c, Outcome out) {
  if (out.end != Outcome::End::refused) return out;
  c.trace.events.push_back({.step = c.attempt == 1 ? Step::short_circuit : Step::retry_skipped,
                            .attempt = c.attempt, .reason = out.refusal, .refused = true});
  return Outcome::over();
}

}  // namespace quote_lab
