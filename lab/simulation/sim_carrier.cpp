#include "lab/simulation/sim_carrier.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "lab/carrier/carrier_work.hpp"
#include "lab/carrier/http_date.hpp"
#include "lab/formats/quote_json.hpp"

namespace quote_lab {

// One call's answer, handed from the carrier's fiber to the caller's (who may have left).
struct SimCarrier::Reply {
  std::optional<CallOutcome> outcome;
  std::optional<SimScheduler::Waker> caller;  // set while the caller waits for it
};

namespace {

// How long the carrier's server re-checks a station wait that has no time of its own
// (carrier_server.cpp does the same, for a wake-up that went elsewhere).
constexpr Millis kStationRecheck{1000};

CallOutcome status_outcome(int status) {
  CallOutcome out;
  out.http_status = status;
  out.error = call_error_for_status(status);
  return out;
}

}  // namespace

SimCarrier::SimCarrier(CarrierSimulator& carrier, SimScheduler& scheduler, SimClock& clock, int workers)
    : carrier_(carrier), scheduler_(scheduler), clock_(clock), workers_(scheduler, workers), turns_(scheduler) {
  carrier_.set_carrier_workers(workers);
}

CallOutcome SimCarrier::call(const CarrierRequest& request) {
  const SteadyTime started = clock_.now();
  if (carrier_.take_refusal(request.scenario, CallerIds{request.trace_id, request.idempotency_key})) {
    CallOutcome refused;  // nothing listens: the connection fails at once
    refused.error = CallError::connect_error;
    return refused;
  }
  auto reply = std::make_shared<Reply>();
  const long long attempt_deadline_ms = unix_ms(clock_.wall_now()) + request.timeout.count();
  scheduler_.spawn([this, request, attempt_deadline_ms, reply] { serve(request, attempt_deadline_ms, reply); });
  reply->caller = scheduler_.waker();
  scheduler_.park_until(started + request.timeout);
  reply->caller.reset();
  if (!reply->outcome) {  // the caller's deadline came first: it gives up, the carrier works on
    CallOutcome timed_out;
    timed_out.error = CallError::timeout;
    timed_out.elapsed_ms = elapsed_ms(started, clock_.now());
    return timed_out;
  }
  CallOutcome out = std::move(*reply->outcome);
  out.elapsed_ms = elapsed_ms(started, clock_.now());
  return out;
}

void SimCarrier::serve(const CarrierRequest& request, long long attempt_deadline_ms,
                       const std::shared_ptr<Reply>& reply) {
  ++serving_;
  workers_.acquire();  // a carrier thread, as the HTTP server's pool gives one
  CallOutcome out = work(request, attempt_deadline_ms);
  workers_.release();
  --serving_;
  reply->outcome = std::move(out);
  if (reply->caller) scheduler_.wake(*reply->caller);
}

bool SimCarrier::take_turn(CarrierCall& call, Priority priority) {
  StationTurn turn = carrier_.enter_station(call, priority, clock_.now());
  if (turn.kind == StationTurn::Kind::wait) turns_.notify_all();  // it may have displaced a sheddable call
  while (turn.kind == StationTurn::Kind::wait) {
    const SteadyTime recheck = clock_.now() + kStationRecheck;
    turns_.wait_until(std::min(turn.wake_at.value_or(recheck), recheck));
    turn = carrier_.station_turn(call, clock_.now());
  }
  return turn.kind == StationTurn::Kind::serve;
}

CallOutcome SimCarrier::work(const CarrierRequest& request, long long attempt_deadline_ms) {
  using Kind = AttemptBehaviour::Kind;
  const CallerIds ids{request.trace_id, request.idempotency_key, request.lab};
  const std::optional<long long> request_deadline_ms =
      request.deadline ? std::optional(unix_ms(*request.deadline)) : std::nullopt;
  if (request_deadline_ms && unix_ms(clock_.wall_now()) >= *request_deadline_ms) {
    carrier_.count_deadline_drop(ids.lab);
    return status_outcome(504);
  }
  auto call = carrier_.plan(request.scenario, ids, clock_.now());
  if (!call) return status_outcome(404);
  if (call->station_lab && !take_turn(*call, request.priority)) return status_outcome(503);  // shed
  const CarrierWork planned = plan_work(*call, attempt_deadline_ms, request_deadline_ms, unix_ms(clock_.wall_now()));
  carrier_.begin_call(*call);
  const SteadyTime started = clock_.now();
  scheduler_.sleep_until(started + planned.delay);
  const bool wasted = !planned.dropped && unix_ms(clock_.wall_now()) > attempt_deadline_ms;
  std::optional<CarrierSimulator::Booking> booking;
  if (!planned.dropped && books_quote(call->behaviour))
    booking = carrier_.book(request.customer_id, request.items, ids, clock_.wall_now(), clock_.now());
  if (planned.dropped) carrier_.count_deadline_drop(ids.lab);
  carrier_.end_call(*call, wasted, std::chrono::duration_cast<Millis>(clock_.now() - started), clock_.now());
  if (!call->station.empty()) turns_.notify_all();  // its place goes to a waiting call

  const AttemptBehaviour& b = call->behaviour;
  if (planned.dropped || b.kind == Kind::timeout) return status_outcome(504);
  if (b.kind == Kind::answer && b.status != 200) {
    CallOutcome out = status_outcome(b.status);
    if (!b.retry_after.empty()) out.retry_after = parse_retry_after(b.retry_after, clock_.wall_now());
    return out;
  }
  if (b.kind == Kind::malformed || b.kind == Kind::truncated) {  // a 200 whose body is no quote
    CallOutcome out = status_outcome(200);
    out.error = CallError::bad_response;
    return out;
  }
  if (b.kind == Kind::reset_peer || b.kind == Kind::refused) {  // the connection ends mid-answer
    CallOutcome out;
    out.error = CallError::connect_error;
    return out;
  }
  CallOutcome out = status_outcome(200);
  out.quote = booking->quote;
  if (b.kind == Kind::slicer) {
    // The answer comes a slice at a time, a pause before each, on this carrier thread.
    auto body = to_json(booking->quote);
    body["scenario"] = call->scenario->name;
    body["attempt"] = call->attempt;
    const auto bytes = static_cast<long long>(body.dump().size());
    const long long slices = (bytes + b.slice_bytes - 1) / std::max(1, b.slice_bytes);
    scheduler_.sleep_until(clock_.now() + Millis(slices * b.slice_delay_ms));
  }
  return out;
}

}  // namespace quote_lab
