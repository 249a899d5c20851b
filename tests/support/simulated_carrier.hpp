#pragma once
// The lab's own simulated carrier without its HTTP listener, on the fake clock: what
// HttpCarrierClient reports for each call the real CarrierSimulator plans from the shipped
// scenario files (carrier_client.hpp's classification), the clock advanced by the call's
// duration instead of real sockets and waits. So the scenario matrix and every fault
// scenario's `expected` run in-process, exact, in microseconds.
//
// - A refused attempt fails at once (connect_error), counted by the carrier.
// - An answer later than the attempt's timeout is a timeout after exactly that timeout; a
//   hang holds the carrier until the caller's timeout plus kHangGraceMs.
// - A flow's total deadline drops the work with a 504, as the carrier server does.
// - Calls end at the carrier when their work does, not when the lab gives up, so a
//   metastable capacity fills as it would for real.
// - malformed and truncated answers are bad responses; reset_peer resets mid-answer.
// - A shedding scenario's call goes through its lab's station: served, or shed at once (a
//   503 after no time).
// A slicer's byte-by-byte timing and a wait in a shedding queue (which needs other calls
// to end meanwhile) are not modelled: a call that meets either throws. The real
// sockets (a refused connect, a real RST, the watchdog against a slicer) are tested in
// test_carrier_faults.cpp and test_fault_scenarios.py.
// Thread-safe: the in-process lab's HTTP threads call it at once (a storm over its routes).

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab/carrier/carrier_server.hpp"
#include "lab/carrier/carrier_simulator.hpp"
#include "lab/carrier/http_date.hpp"
#include "lab/resilience/carrier_call.hpp"
#include "support/fake_clock.hpp"

namespace quote_lab::testing {

class SimulatedCarrier final : public CarrierCaller {
 public:
  /// `random` draws each call's latency (one draw per call, as CarrierSimulator::plan does).
  SimulatedCarrier(const ScenarioCatalog& catalog, RandomSource& random, FakeClock& clock)
      : simulator_(catalog, random), clock_(clock) {}

  CallOutcome call(const CarrierRequest& r) override {
    using Kind = AttemptBehaviour::Kind;
    finish_calls_due();
    const CallerIds ids{r.trace_id, r.idempotency_key, r.lab};
    CallOutcome out;
    if (simulator_.take_refusal(r.scenario, ids)) {
      out.error = CallError::connect_error;
      return out;
    }
    auto planned = simulator_.plan(r.scenario, ids, clock_.now());
    if (!planned) throw std::logic_error("unknown scenario '" + r.scenario + "'");
    if (planned->station_lab) {
      const StationTurn turn = simulator_.enter_station(*planned, r.priority, clock_.now());
      if (turn.kind == StationTurn::Kind::wait)
        throw std::logic_error("a wait in a shedding queue is not modelled here: test it over HTTP");
      if (turn.kind == StationTurn::Kind::shed) {
        out.error = CallError::http_5xx;
        out.http_status = 503;
        return out;
      }
    }
    const AttemptBehaviour& b = planned->behaviour;
    if (b.kind == Kind::slicer) throw std::logic_error("a slicer's timing is not modelled here: test it over HTTP");
    Millis work = planned->delay;
    if (b.kind == Kind::timeout) work = std::min(work, r.timeout + Millis(kHangGraceMs));
    bool dropped = false;
    if (r.deadline) {
      const auto left = std::max(Millis::zero(), std::chrono::duration_cast<Millis>(*r.deadline - clock_.wall_now()));
      if (left < work) {
        work = left;
        dropped = true;
      }
    }
    simulator_.begin_call(*planned);
    {
      std::lock_guard lock(pending_mutex_);
      pending_.push_back({*planned, clock_.now() + work, !dropped && work > r.timeout, work});
    }
    if (work >= r.timeout) {
      clock_.advance(r.timeout);
      out.error = CallError::timeout;
      out.elapsed_ms = static_cast<double>(r.timeout.count());
      return out;
    }
    clock_.advance(work);
    finish_calls_due();
    out.elapsed_ms = static_cast<double>(work.count());
    if (dropped || b.kind == Kind::timeout) {
      out.error = CallError::http_5xx;
      out.http_status = 504;
      return out;
    }
    switch (b.kind) {
      case Kind::answer:
        out.http_status = b.status;
        if (b.status == 200) {
          out.quote = simulator_.book(r.customer_id, r.items, ids, clock_.wall_now(), clock_.now()).quote;
          return out;
        }
        if (!b.retry_after.empty()) out.retry_after = parse_retry_after(b.retry_after, clock_.wall_now());
        out.error = b.status == 429   ? CallError::http_429
                    : b.status >= 500 ? CallError::http_5xx
                    : b.status >= 400 ? CallError::http_4xx
                                      : CallError::bad_response;
        return out;
      case Kind::malformed:
      case Kind::truncated:
        out.http_status = 200;
        out.error = CallError::bad_response;
        return out;
      default:  // reset_peer: reset mid-answer
        out.error = CallError::connect_error;
        return out;
    }
  }

  /// The simulator behind it: the lab's `embedded_carrier` (stats, mode, reset).
  CarrierSimulator& simulator() { return simulator_; }

 private:
  struct Pending {
    CarrierCall call;
    SteadyTime ends;
    bool wasted;
    Millis spent;
  };
  void finish_calls_due() {
    std::lock_guard lock(pending_mutex_);
    std::erase_if(pending_, [&](const Pending& p) {
      if (p.ends > clock_.now()) return false;
      simulator_.end_call(p.call, p.wasted, p.spent, p.ends);
      return true;
    });
  }

  CarrierSimulator simulator_;
  FakeClock& clock_;
  std::mutex pending_mutex_;  // guards pending_
  std::vector<Pending> pending_;
};

}  // namespace quote_lab::testing
