#pragma once
// The lab's own simulated carrier without its HTTP listener, on the fake clock: every call
// is planned by the real CarrierSimulator from the shipped scenario files (its attempt
// counted per trace id, as over HTTP), takes the drawn latency in fake time, and is
// classified as HttpCarrierClient classifies what it reads: no answer within the attempt's
// timeout is a timeout after exactly that timeout. So the scenario matrix runs in-process,
// exact, in microseconds. Behaviours only a socket can show (reset_peer, refused, slicer,
// malformed, truncated) and Retry-After are not modelled: a call that meets one throws.

#include <stdexcept>
#include <string>

#include "lab/carrier/carrier_simulator.hpp"
#include "lab/resilience/carrier_call.hpp"
#include "support/fake_clock.hpp"

namespace quote_lab::testing {

class SimulatedCarrier final : public CarrierCaller {
 public:
  /// `random` draws each call's latency (one draw per call, as CarrierSimulator::plan does).
  SimulatedCarrier(const ScenarioCatalog& catalog, RandomSource& random, FakeClock& clock)
      : simulator_(catalog, random), clock_(clock) {}

  CallOutcome call(const CarrierRequest& request) override {
    using Kind = AttemptBehaviour::Kind;
    const CallerIds ids{request.trace_id, request.idempotency_key, request.lab};
    const auto planned = simulator_.plan(request.scenario, ids, clock_.now());
    if (!planned) throw std::logic_error("unknown scenario '" + request.scenario + "'");
    const AttemptBehaviour& b = planned->behaviour;
    if (b.kind != Kind::answer && b.kind != Kind::timeout)
      throw std::logic_error("behaviour '" + b.response + "' needs a socket: test it over HTTP");
    if (!b.retry_after.empty()) throw std::logic_error("Retry-After is not modelled here");

    CallOutcome out;
    simulator_.begin_call(*planned);
    if (b.kind == Kind::timeout || planned->delay > request.timeout) {
      // The caller gives up at its timeout; the carrier's work (if any) is wasted.
      clock_.advance(request.timeout);
      simulator_.end_call(*planned, true, request.timeout);
      out.error = CallError::timeout;
      out.elapsed_ms = static_cast<double>(request.timeout.count());
      return out;
    }
    clock_.advance(planned->delay);
    simulator_.end_call(*planned, false, planned->delay);
    out.elapsed_ms = static_cast<double>(planned->delay.count());
    out.http_status = b.status;
    if (b.status == 200) {
      out.quote = simulator_.book(request.customer_id, request.items, ids, clock_.wall_now(), clock_.now()).quote;
    } else {
      out.error = b.status == 429 ? CallError::http_429 : b.status >= 500 ? CallError::http_5xx : CallError::http_4xx;
    }
    return out;
  }

  /// The simulator behind it: the lab's `embedded_carrier` (stats, mode, reset).
  CarrierSimulator& simulator() { return simulator_; }

 private:
  CarrierSimulator simulator_;
  FakeClock& clock_;
};

}  // namespace quote_lab::testing
