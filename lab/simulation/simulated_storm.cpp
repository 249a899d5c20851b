#include "lab/simulation/simulated_storm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "lab/base/did_you_mean.hpp"
#include "lab/carrier/carrier_simulator.hpp"
#include "lab/experiments/arrival_schedule.hpp"
#include "lab/experiments/priority_mix.hpp"
#include "lab/experiments/storm_tally.hpp"
#include "lab/http/params.hpp"
#include "lab/http/policy_overrides.hpp"
#include "lab/resilience/circuit_breaker.hpp"
#include "lab/resilience/fallback_cache.hpp"
#include "lab/resilience/quote_executor.hpp"
#include "lab/resilience/retry_budget.hpp"
#include "lab/resilience/strategies/strategy_table.hpp"
#include "lab/simulation/sim_carrier.hpp"
#include "lab/simulation/sim_hedged_caller.hpp"

namespace quote_lab {
namespace {

// Simulated steady time starts an hour in, so no wait ever reaches back before it.
const SteadyTime kSimStart{std::chrono::hours(1)};

// A request id of 16 hex digits and a trace id of 32, unique within the run.
std::string hex_id(std::uint64_t high, std::uint64_t low, int digits) {
  char text[33];
  if (digits == 16) std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(low));
  else std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(high),
                     static_cast<unsigned long long>(low));
  return text;
}

}  // namespace

SimulationBoundReached::SimulationBoundReached(long max)
    : std::runtime_error("the simulation reached " + std::to_string(max) +
                         " quotes before its duration ended: give --requests N or a shorter --duration"),
      max_(max) {}

namespace {

// Everything one simulated storm runs with, made in the order the lab makes it.
struct SimRun {
  const StormOptions& o;
  const RetryPolicy& policy;
  SimScheduler scheduler{kSimStart};
  SimClock clock{scheduler};
  RandomSource random;
  CarrierSimulator carrier;
  SimCarrier caller;
  CircuitBreaker breaker;
  FallbackCache cache{clock};
  QuoteExecutor executor{caller, breaker, cache, clock, random};
  RetryBudget budget{clock};
  std::vector<std::unique_ptr<StrategyState>> states;
  FlowGuards guards;
  SimSlots lab_workers;
  SimSlots cores;  // the machine's: the lab's own work holds one
  std::chrono::nanoseconds lab_time;
  long started_quotes = 0;
  long max_quotes;
  std::string scenario;  // canonical
  long sequence = 0;     // requests numbered in the order they arrive
  // Carrier calls each quote made (attempts and hedges), by the simulated second it ended.
  std::vector<long> calls_ended_in_second;
  double last_answer_s = 0;      // when the last quote was answered
  int serving_at_last_answer = 0;  // carrier calls still being served then

  SimRun(const StormOptions& options, const SimulationSetup& lab, const RetryPolicy& p, const BreakerPolicy& b)
      : o(options),
        policy(p),
        random(*options.seed),
        carrier(lab.catalog, random),
        caller(carrier, scheduler, clock, lab.carrier_workers),
        breaker("carrier", b, clock),
        lab_workers(scheduler, lab.workers),
        cores(scheduler, lab.cores),
        lab_time(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double, std::milli>(lab.lab_ms_per_quote))),
        max_quotes(std::min(lab.max_quotes, kSimMaxQuotes)),
        scenario(lab.catalog.find(options.scenario)->name) {
    states = make_states(policy, StateDeps{clock, random, [this] {
                           return std::make_unique<SimHedgedCaller>(caller, scheduler, clock);
                         }});
    guards.retry_budget = &budget;
    for (const auto& s : states) s->lend(guards);
  }

  double since_start_s() const { return elapsed_ms(kSimStart, clock.now()) / 1000; }

  // One request, arrived now: it waits for a worker slot, runs the policy, and is judged as
  // the storm's client judges the lab's answer.
  void quote(ClientLog& log) {
    const long k = sequence++;
    const SteadyTime arrival = clock.now();
    QuoteRequest request;
    request.mode = o.mode;
    request.scenario = scenario;
    request.request_id = hex_id(0, static_cast<std::uint64_t>(k) + 1, 16);
    request.trace_id = hex_id(*o.seed, static_cast<std::uint64_t>(k) + 1, 32);
    const bool sheddable = sheddable_request(k, o.sheddable_share);
    if (o.sheddable_share > 0) request.priority = sheddable ? Priority::sheddable : Priority::critical;
    if (++started_quotes > max_quotes) throw SimulationBoundReached(max_quotes);
    lab_workers.acquire();
    // The lab's own work on the quote (its HTTP, its JSON), on one of the machine's cores.
    cores.acquire();
    scheduler.sleep_until(clock.now() + lab_time);
    cores.release();
    const QuoteTrace trace = executor.run(request, policy, guards);
    lab_workers.release();
    record(trace, arrival, sheddable, log);
  }

  void record(const QuoteTrace& t, SteadyTime arrival, bool sheddable, ClientLog& log) {
    const double latency_ms = elapsed_ms(arrival, clock.now());
    log.latency_ms.push_back(latency_ms);
    ++log.statuses[std::string(to_string(t.status))];
    for (const auto& e : t.events)
      if (e.elapsed_ms) log.attempt_ms.push_back(*e.elapsed_ms);
    // The answer as the quote route writes it (json_views.cpp): 503 without a quote.
    nlohmann::json body = nlohmann::json::object();
    if (t.answer) {
      body["quote"] = {{"source", t.answer->fallback ? "fallback" : "live"}};
      if (t.answer->fallback) body["quote"]["age_s"] = t.answer->age_s;
    }
    RequestRecord r{.arrival_s = elapsed_ms(kSimStart, arrival) / 1000, .sent = true,
                    .verdict = judge_answer(t.status == QuoteStatus::failed ? 503 : 200, body, latency_ms, o.goodput),
                    .sheddable = sheddable};
    r.live = r.verdict == AnswerVerdict::useful && t.answer && !t.answer->fallback;
    log.records.push_back(r);
    const auto second = static_cast<std::size_t>(since_start_s());
    if (calls_ended_in_second.size() <= second) calls_ended_in_second.resize(second + 1, 0);
    calls_ended_in_second[second] += t.attempts() + t.hedges();
    last_answer_s = since_start_s();
    serving_at_last_answer = caller.serving();
  }

  bool time_is_up() const { return !o.requests && since_start_s() >= o.duration_s; }
};

// Runs the scheduler; a run cut short by an exception first ends the fibers it left waiting,
// while the logs and the lab's parts they use are still alive.
void run_to_end(SimRun& run) {
  try {
    run.scheduler.run();
  } catch (...) {
    run.scheduler.unwind();
    throw;
  }
}

std::vector<ClientLog> run_closed(SimRun& run) {
  std::vector<ClientLog> logs(static_cast<std::size_t>(run.o.clients));
  long issued = 0;
  for (auto& log : logs) {
    log.is_client = true;
    run.scheduler.spawn([&run, &log, &issued] {
      while (!run.time_is_up()) {
        if (run.o.requests && issued >= *run.o.requests) break;
        ++issued;
        run.quote(log);
      }
    });
  }
  run_to_end(run);
  return logs;
}

std::vector<ClientLog> run_open(SimRun& run, ArrivalTally& tally) {
  // The arrivals draw from a source of their own, as the live storm's schedule does, so the
  // same seed gives the same arrivals whatever the policy draws.
  RandomSource arrival_random(*run.o.seed);
  ArrivalSchedule schedule(*run.o.rate_per_s, run.o.arrivals, arrival_random);
  std::vector<ClientLog> logs(2);  // [0] sent, [1] arrivals not sent
  int in_flight = 0;
  run.scheduler.spawn([&] {
    for (long n = 0;; ++n) {
      if (run.o.requests && n >= *run.o.requests) break;
      const double due_s = schedule.next_due_s();
      if (!run.o.requests && due_s >= run.o.duration_s) break;
      run.scheduler.sleep_until(kSimStart + std::chrono::duration_cast<SteadyTime::duration>(
                                                std::chrono::duration<double>(due_s)));
      ++tally.arrivals;
      tally.lag_ms.push_back(0);
      if (in_flight >= run.o.max_in_flight) {
        ++tally.not_sent;
        ++run.sequence;
        logs[1].records.push_back(
            {.arrival_s = due_s, .sent = false, .sheddable = sheddable_request(run.sequence - 1, run.o.sheddable_share)});
        continue;
      }
      tally.peak_in_flight = std::max(tally.peak_in_flight, ++in_flight);
      run.scheduler.spawn([&run, &logs, &in_flight] {
        run.quote(logs[0]);
        --in_flight;
      });
    }
    tally.window_s = run.o.requests ? run.since_start_s() : std::max(run.o.duration_s, run.since_start_s());
  });
  run_to_end(run);
  return logs;
}

}  // namespace

std::optional<RetryPolicy> policy_with_params(const StormOptions& o, const Policies& policies,
                                              std::vector<std::string>& errors) {
  const RetryPolicy* configured = policies.find(o.mode);
  if (!configured) return std::nullopt;
  const auto known = policy_override_names();
  for (const auto& [name, value] : o.params)
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      errors.push_back("--param " + name + ": not a policy override (a quote's: timeout_ms, max_attempts, ...; "
                       "docs/reference.md lists them)");
      return std::nullopt;
    }
  for (auto it = o.params.begin(); it != o.params.end(); ++it)
    if (std::any_of(o.params.begin(), it, [&](const auto& p) { return p.first == it->first; })) {
      errors.push_back("--param " + it->first + " is given twice: give each override once");
      return std::nullopt;
    }
  RetryPolicy policy = *configured;
  std::vector<std::string> changed;
  const auto lookup = [&o](const char* name) -> const std::string* {
    for (const auto& [k, v] : o.params)
      if (k == name) return &v;
    return nullptr;
  };
  if (const auto problem = apply_policy_overrides(lookup, policy, changed)) {
    errors.push_back("--param: " + problem->message);
    return std::nullopt;
  }
  return policy;
}

std::vector<std::string> validate_simulation(const StormOptions& o, const SimulationSetup& lab) {
  StormOptions checked = o;
  checked.target = "http://127.0.0.1";  // no lab is reached: the storm's other checks apply
  checked.extra_targets.clear();
  checked.mode = "resilient";  // the policy, the duration and the count have checks of their own here
  checked.duration_s = 1;
  checked.requests.reset();
  std::vector<std::string> errors = validate(checked);
  if (!o.requests && !(o.duration_s >= 0.1 && o.duration_s <= kSimMaxDurationS))
    errors.push_back("--duration must be between 0.1 and " + std::to_string(static_cast<int>(kSimMaxDurationS)) +
                     " simulated seconds");
  auto hint = [](std::string_view typed, const std::vector<std::string>& names) {
    const auto near = did_you_mean(typed, names);
    return near ? "; did you mean '" + *near + "'?" : std::string();
  };
  if (!lab.policies.find(o.mode))
    errors.push_back("--policy: no policy named '" + o.mode + "' (legacy, resilient, a shipped one or one of "
                     "--policies-file)" + hint(o.mode, lab.policies.names()));
  if (!lab.catalog.find(o.scenario))
    errors.push_back("--scenario: no scenario named '" + o.scenario + "'" + hint(o.scenario, lab.catalog.accepted_names()));
  policy_with_params(o, lab.policies, errors);
  if (!o.seed) errors.push_back("--seed is required: the same seed gives the same run");
  if (o.requests && (*o.requests < 1 || *o.requests > kSimMaxQuotes))
    errors.push_back("--requests must be between 1 and " + std::to_string(kSimMaxQuotes) + " in a simulation");
  if (!o.requests && o.rate_per_s && *o.rate_per_s * o.duration_s > static_cast<double>(kSimMaxQuotes))
    errors.push_back("--rate × --duration must be at most " + std::to_string(kSimMaxQuotes) +
                     " arrivals in a simulation (a simulation keeps every quote's record)");
  if (lab.workers < 1 || lab.carrier_workers < 1 || lab.cores < 1)
    errors.push_back("--workers, --carrier-workers and the machine's cores must be at least 1");
  if (!(lab.lab_ms_per_quote > 0 && lab.lab_ms_per_quote <= 1000))
    errors.push_back("the lab's time per quote must be above 0 and at most 1000 ms");
  return errors;
}

StormResult simulate_storm(const StormOptions& o, const SimulationSetup& lab) {
  if (const auto errors = validate_simulation(o, lab); !errors.empty()) throw std::invalid_argument(errors.front());
  std::vector<std::string> unused;
  const RetryPolicy policy = *policy_with_params(o, lab.policies, unused);
  const NamedPolicy* named = lab.policies.find_named(o.mode);
  SimRun run(o, lab, policy, named && named->breaker ? *named->breaker : lab.policies.breaker);

  ArrivalTally open;
  const std::vector<ClientLog> logs = o.rate_per_s ? run_open(run, open) : run_closed(run);

  StormResult result;
  result.options = o;
  result.options.target = "simulated";
  result.options.scenario = run.scenario;  // its canonical name, whichever alias was given
  result.seed = *o.seed;
  // As the live storm: until the last answer came (the carrier may work on after it).
  result.elapsed_s = run.last_answer_s;
  tally(result, logs, {result.options.target}, {});
  // The calls so far at each whole second, as the live storm reads them from /metrics.
  std::vector<std::optional<double>> calls_at{0.0};
  double so_far = 0;
  for (const long calls : run.calls_ended_in_second) calls_at.push_back(so_far += static_cast<double>(calls));
  tally_load(result, logs, o.rate_per_s ? &open : nullptr, calls_at);

  const CarrierStats stats = run.carrier.stats();
  const auto sent = static_cast<std::uint64_t>(so_far);
  result.carrier_calls = sent;
  result.per_target.front().carrier_calls = sent;
  if (result.requests > 0) result.amplification = static_cast<double>(sent) / static_cast<double>(result.requests);
  result.carrier_received = stats.calls_total;
  result.carrier_in_flight_after = run.serving_at_last_answer;
  result.carrier_peak_in_flight = stats.peak_in_flight;
  result.wasted_carrier_calls = stats.wasted_calls;
  result.wasted_carrier_seconds = stats.wasted_seconds;
  return result;
}

}  // namespace quote_lab
