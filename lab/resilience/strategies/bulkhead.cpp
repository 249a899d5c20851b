// The bulkhead around the flow inside it: no place (and no queue place, or the queue's wait
// ran out), no call.
#include "lab/resilience/strategies/gate.hpp"
#include "lab/resilience/overload/bulkhead.hpp"
#include "lab/resilience/strategies/strategies.hpp"

namespace quote_lab {
namespace {

class BulkheadStrategy final : public ResilienceStrategy {
 public:
  Outcome execute(QuoteContext& c, const Next& next) override {
    Bulkhead* const bulkhead = c.guards.held<Bulkhead>(Strategy::bulkhead);
    if (!bulkhead) return next(c);
    // A client that leaves while queued leaves the queue (the stop ends the wait).
    const int max_wait_ms = c.policy.overload.bulkhead.queue_timeout_ms;
    const BulkheadEntry place = bulkhead->enter(Millis(max_wait_ms), c.stop);
    if (place.permit) return next(c);
    // Refused after the whole wait in the queue, or at once: the step says which.
    return refuse(c, Reason::bulkhead_full,
                  place.refusal == BulkheadRefusal::wait_timed_out ? std::optional<long long>(max_wait_ms) : std::nullopt);
  }
};

constexpr GaugeFamily kActive{"quote_lab_bulkhead_active", "Quotes inside the policy's bulkhead now, by mode.",
                               "Cotizaciones dentro del mamparo (bulkhead) de la política ahora, por modo.",
                               {"cotizaciones dentro del mamparo", "quotes inside the bulkhead"},
                               GaugeShows::count,
                               "max_concurrent",
                               true};
constexpr GaugeFamily kQueued{"quote_lab_bulkhead_queued",
                              "Quotes waiting in the policy's bulkhead queue for a place now, by mode.",
                              "Cotizaciones en la cola del mamparo (bulkhead) de la política, esperando un lugar, "
                              "por modo.",
                              {"cotizaciones en la cola del mamparo", "quotes in the bulkhead's queue"},
                              GaugeShows::count,
                              "max_queued",
                              true};

// The places are the flows': a reset leaves them to the flows that hold them.
class BulkheadState final : public StrategyState {
 public:
  BulkheadState(const BulkheadPolicy& p, Clock& clock)
      : bulkhead_(BulkheadSettings{p.max_concurrent, p.max_queued}, clock) {}
  void lend(FlowGuards& g) override { g.lend(Strategy::bulkhead, &bulkhead_); }
  void read(std::vector<GaugeReading>& out) override {
    const BulkheadStats s = bulkhead_.stats();
    out.push_back({&kActive, static_cast<double>(s.active)});
    out.push_back({&kQueued, static_cast<double>(s.queued)});
  }
  void reset() override {}

 private:
  Bulkhead bulkhead_;
};

std::unique_ptr<ResilienceStrategy> make_bulkhead() { return std::make_unique<BulkheadStrategy>(); }

std::unique_ptr<StrategyState> make_bulkhead_state(const RetryPolicy& p, const StateDeps& d) {
  return std::make_unique<BulkheadState>(p.overload.bulkhead, d.clock);
}

std::span<const GaugeFamily* const> bulkhead_gauges() {
  static constexpr const GaugeFamily* kFamilies[] = {&kActive, &kQueued};
  return kFamilies;
}

}  // namespace

/// At most max_concurrent flows inside at once per lab, max_queued waiting up to
/// queue_timeout_ms (Bulkhead, overload/bulkhead.hpp); no place: `rejected` bulkhead_full.
const StrategyRow& bulkhead_row() {
  static const StrategyRow kRow{
      .strategy = Strategy::bulkhead,
      .name = "bulkhead",
      .rank = 1,
      .steps =
          {.rejected = Reason::bulkhead_full,
           .rejected_means =
               {"El mamparo (bulkhead) de esta política está lleno: la solicitud se rechazó al instante, sin ocupar al "
                "resto del laboratorio",
                "This policy's bulkhead is full: the request was refused at once, without holding the rest of the lab"},
           .rejected_after_wait = {"El mamparo (bulkhead) de esta política siguió lleno mientras la solicitud esperó "
                                   "{waited_ms} ms en su cola: se rechazó sin ocupar al resto del laboratorio",
                                   "This policy's bulkhead stayed full while the request waited {waited_ms} ms in its "
                                   "queue: it was refused without holding the rest of the lab"}},
      .about = {{"mamparo", "bulkhead"},
                {"deja entrar a lo sumo max_concurrent cotizaciones de la política a la vez, con una cola; sin lugar, "
                 "rechaza sin llamar al proveedor",
                 "lets at most max_concurrent quotes of the policy in at once, with a queue; no place: refused without "
                 "calling the carrier"},
                "Polly v8 ConcurrencyLimiter, resilience4j SemaphoreBulkhead"},
      .make = [](const StrategyDeps&) { return make_bulkhead(); },
      .make_state = make_bulkhead_state,
      .gauges = bulkhead_gauges,
      .longest_wait = [](const RetryPolicy& p) { return Millis(p.overload.bulkhead.queue_timeout_ms); },
  };
  return kRow;
}

}  // namespace quote_lab
