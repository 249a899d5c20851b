#pragma once
// The carrier as a simulation calls it: the CarrierCaller the executor uses (carrier_call.hpp)
// on the same CarrierSimulator the carrier's HTTP server plays (the scenarios' latency tables,
// faults, Retry-After, metastable episodes, shedding stations and their queues), in simulated
// time. Each call is served on a fiber of its own, as on a carrier thread of its own: the
// caller waits for the answer until its attempt's timeout and gives up then, while the carrier
// works on to the end its scenario gives it (a hung call holds a carrier place after its
// caller left, the waste a retry storm makes), with the rules of carrier_work.hpp.
//
// What a simulation leaves out: TCP and HTTP (a refused connection fails at once; no
// connection pool, no kernel queue), the threads' scheduling on real cores, and the lab's own
// milliseconds around each call.

#include <memory>

#include "lab/carrier/carrier_simulator.hpp"
#include "lab/resilience/carrier_call.hpp"
#include "lab/simulation/sim_clock.hpp"

namespace quote_lab {

class SimCarrier final : public CarrierCaller {
 public:
  /// `carrier`, `scheduler` and `clock` outlive this. `workers`: calls the carrier serves at
  /// once (its threads, `serve --carrier-workers`); one beyond waits for a place, first come
  /// first served. The stations of a shedding scenario are bounded by the same number.
  SimCarrier(CarrierSimulator& carrier, SimScheduler& scheduler, SimClock& clock, int workers);

  /// From a fiber: one attempt, answered as the lab's HTTP client would read the carrier's
  /// answer (carrier_client.cpp): a timeout at request.timeout, a refused connection at once,
  /// a status as call_error_for_status reads it, with its Retry-After.
  CallOutcome call(const CarrierRequest& request) override;
  /// Calls the carrier is serving now (waiting for a thread or a station's place included).
  int serving() const { return serving_; }

 private:
  struct Reply;
  void serve(const CarrierRequest& request, long long attempt_deadline_ms, const std::shared_ptr<Reply>& reply);
  CallOutcome work(const CarrierRequest& request, long long attempt_deadline_ms);
  bool take_turn(CarrierCall& call, Priority priority);

  CarrierSimulator& carrier_;
  SimScheduler& scheduler_;
  SimClock& clock_;
  SimSlots workers_;
  SimSignal turns_;  // a station's place came free
  int serving_ = 0;
};

}  // namespace quote_lab
