// The composed lab in-process (lab/app/lab_app.hpp): the breaker, fallback cache,
// telemetry and JSON answers wired together as `serve` wires them, but with the fake clock,
// a fixed random draw and a scripted carrier, so the course's sequence runs in
// microseconds and every number a student reads in an answer is exact.
#include <doctest/doctest.h>

#include <functional>
#include <optional>

#include "lab/app/lab_app.hpp"
#include "support/fixed_random.hpp"
#include "support/scripted_carrier.hpp"
#include "support/simulated_carrier.hpp"
#include "support/simulated_lab.hpp"
#include "support/paths.hpp"
#include "support/quote_answers.hpp"

namespace test_lab_app {

using namespace quote_lab;
using namespace quote_lab::testing;
using json = nlohmann::ordered_json;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

const ScenarioCatalog& shipped_scenarios() {
  static const ScenarioCatalog catalog =
      ScenarioCatalog::load_dir(std::filesystem::path(quote_lab::testing::source_dir()) / "scenarios");
  return catalog;
}

// The scripted carrier, plus a hook run inside the next call: what another client does
// while this call is in flight at the carrier.
class CarrierWithHook final : public CarrierCaller {
 public:
  explicit CarrierWithHook(FakeClock& clock) : script(clock) {}
  CallOutcome call(const CarrierRequest& request) override {
    if (auto hook = std::exchange(during_next_call, nullptr)) hook();
    return script.call(request);
  }
  ScriptedCarrier script;
  std::function<void()> during_next_call;
};

// The value of gauge `family` for policy `mode` now, as /metrics shows it; empty when it has
// none. The policy must keep strategy state (the test fails otherwise).
std::optional<double> gauge(const LabApp& app, const std::string& mode, std::string_view family) {
  for (const StrategyGauges& g : app.strategy_gauges()) {
    if (g.mode != mode) continue;
    for (const GaugeReading& r : g.readings)
      if (r.family->name == family) return r.value;
    return std::nullopt;
  }
  FAIL("no gauges for " << mode);
  return std::nullopt;
}

// The lab as `serve` composes it, at the user's default settings (or with a policies file's).
struct Lab {
  explicit Lab(Policies policies = default_policies())
      : app{LabDeps{.scenarios = shipped_scenarios(), .policies = std::move(policies), .carrier = carrier,
                    .clock = clock, .random = random}} {}
  FakeClock clock;  // starts at 2026-11-29T00:00:00.000Z
  CarrierWithHook carrier{clock};
  FixedRandom random{0.5};  // first resilient backoff: 80 + 30 = 110 ms
  LabApp app;

  json quote(Mode mode, const std::string& scenario, int customer_id = 42, int items = 3) {
    return quote_answer(app, app.quote(mode, scenario, customer_id, items));
  }
  std::size_t carrier_calls() const { return carrier.script.requests().size(); }
};

json events(const char* text) { return json::parse(text); }

std::vector<std::string> event_names(const json& answer) {
  std::vector<std::string> out;
  for (const auto& e : answer["events"]) out.push_back(e["event"]);
  return out;
}

}  // namespace

TEST_CASE("the class sequence, exact: ok, legacy storm, resilient opens the breaker, short circuits from the fallback") {
  Lab lab;

  // 1. ok on resilient: a live quote on the first attempt, cached as the fallback for (42, 3).
  lab.carrier.script.succeed(130);
  const json ok = lab.quote(Mode::resilient, "ok");
  CHECK(ok["mode"] == "resilient");
  CHECK(ok["scenario"] == "ok");
  CHECK(ok["status"] == "completed");
  CHECK(ok["customer_id"] == 42);
  CHECK(ok["items"] == 3);
  CHECK(ok["quote"] == json::parse(R"({"quote_id": "Q-test-1", "amount": 59.7, "currency": "USD",
                                       "priced_at": "2026-11-29T00:00:00.130Z", "source": "live"})"));
  CHECK(ok["attempts"] == 1);
  CHECK(ok["retries"] == 0);
  CHECK(ok["timeout_count"] == 0);
  CHECK(ok["events"] == events(R"([{"event": "attempt_success", "attempt": 1, "elapsed_ms": 130}])"));
  CHECK(ok["elapsed_ms"] == 130);
  CHECK(ok["timestamp_utc"] == "2026-11-29T00:00:00.130Z");
  CHECK(ok["explanation"]["en"] == "Live quote on the first attempt.");
  CHECK(ok["explanation"]["es"] == "Cotización en vivo al primer intento.");
  CHECK(ok["dependency"]["circuit_status"] == "closed");
  CHECK(ok["dependency"]["last_outcome"] == "success");
  CHECK(ok["request_id"].get<std::string>().size() == 16);
  CHECK(ok["trace_id"].get<std::string>().size() == 32);

  lab.clock.advance(seconds(10));  // t = 10.130 s

  // 2. provider_down on legacy: 4 immediate attempts of 360 ms = 1440 ms, then failed, no quote.
  const auto legacy = lab.app.quote(Mode::legacy, "provider_down", 42, 3);
  CHECK(legacy.trace.status == QuoteStatus::failed);
  const json storm = quote_answer(lab.app, legacy);
  CHECK(storm["status"] == "failed");
  CHECK(storm["quote"].is_null());
  CHECK(storm["attempts"] == 4);
  CHECK(storm["retries"] == 3);
  CHECK(storm["timeout_count"] == 4);
  CHECK(storm["elapsed_ms"] == 1440);
  CHECK(storm["events"] == events(R"([
      {"event": "attempt_failed", "attempt": 1, "elapsed_ms": 360, "reason": "timeout"},
      {"event": "attempt_failed", "attempt": 2, "elapsed_ms": 360, "reason": "timeout"},
      {"event": "attempt_failed", "attempt": 3, "elapsed_ms": 360, "reason": "timeout"},
      {"event": "attempt_failed", "attempt": 4, "elapsed_ms": 360, "reason": "timeout"}])"));
  CHECK(storm["explanation"]["en"] == "The carrier failed 4 times and there is no fallback: 503.");
  CHECK(storm["explanation"]["es"] == "El proveedor falló 4 veces y no hay respaldo: 503.");
  CHECK(storm["dependency"]["circuit_status"] == "closed");  // legacy has no breaker
  CHECK(storm["dependency"]["consecutive_failures"] == 0);
  CHECK(lab.carrier_calls() == 5);

  // 3. provider_down on resilient: 220 ms, backoff 110 ms, 220 ms; the breaker opens on the
  //    second failed attempt; the answer is the live quote of step 1, 12.0 s old.
  const json contained = lab.quote(Mode::resilient, "provider_down");  // ends at t = 12.120 s
  CHECK(contained["status"] == "degraded");
  CHECK(contained["attempts"] == 2);
  CHECK(contained["retries"] == 1);
  CHECK(contained["timeout_count"] == 2);
  CHECK(contained["elapsed_ms"] == 550);
  CHECK(contained["events"] == events(R"([
      {"event": "attempt_failed", "attempt": 1, "elapsed_ms": 220, "reason": "timeout"},
      {"event": "backoff", "attempt": 1, "wait_ms": 110},
      {"event": "attempt_failed", "attempt": 2, "elapsed_ms": 220, "reason": "timeout"},
      {"event": "circuit_opened", "attempt": 2},
      {"event": "fallback_used", "attempt": 2, "reason": "cached_quote"}])"));
  CHECK(contained["quote"] == json::parse(R"({"quote_id": "Q-test-1", "amount": 59.7, "currency": "USD",
      "priced_at": "2026-11-29T00:00:00.130Z", "source": "fallback", "cached_at": "2026-11-29T00:00:00.130Z",
      "age_s": 12.0, "seed": false})"));
  CHECK(contained["explanation"]["en"] == "The carrier failed 2 times; the fallback quote was served.");
  CHECK(contained["explanation"]["es"] == "El proveedor falló 2 veces; se respondió con la cotización de respaldo.");
  CHECK(lab.carrier_calls() == 7);

  const json opened = dependency_state(lab.app);
  CHECK(opened["name"] == "carrier");
  CHECK(opened["circuit_status"] == "open");
  CHECK(opened["consecutive_failures"] == 2);
  CHECK(opened["opened_until"] == "2026-11-29T00:00:42.120Z");  // opened at 12.120 s, for 30 s
  CHECK(opened["cooldown_left_ms"] == 30000);
  CHECK(opened["open_events"] == 1);
  CHECK(opened["short_circuit_count"] == 0);
  CHECK(opened["last_outcome"] == "timeout");
  CHECK(opened["last_latency_ms"] == 220);
  CHECK(opened["fallback_quote"]["quote_id"] == "Q-test-1");
  CHECK(opened["state_file_set_aside"].is_null());
  CHECK(opened["state_file_error"].is_null());
  CHECK(contained["dependency"] == opened);  // the answer embeds the same view

  // 4. While open, every resilient call is answered from the fallback without a carrier call.
  lab.clock.advance(seconds(5));
  for (int i = 1; i <= 3; ++i) {
    CAPTURE(i);
    const json shorted = lab.quote(Mode::resilient, "ok");
    CHECK(shorted["status"] == "degraded");
    CHECK(shorted["attempts"] == 0);
    CHECK(shorted["retries"] == 0);
    CHECK(shorted["elapsed_ms"] == 0);
    CHECK(shorted["events"] == events(R"([{"event": "short_circuit", "attempt": 1, "reason": "circuit_open"},
                                          {"event": "fallback_used", "attempt": 1, "reason": "cached_quote"}])"));
    CHECK(shorted["quote"]["source"] == "fallback");
    CHECK(shorted["quote"]["quote_id"] == "Q-test-1");
    CHECK(shorted["quote"]["age_s"] == 17.0);
    CHECK(shorted["dependency"]["short_circuit_count"] == i);
    CHECK(shorted["dependency"]["cooldown_left_ms"] == 25000);  // short circuits do not extend it
    CHECK(shorted["explanation"]["en"] == "Circuit open: the carrier was not called; the fallback quote was served.");
    CHECK(shorted["explanation"]["es"] ==
          "Disyuntor abierto: rechaza la solicitud sin llamar al proveedor; se respondió con la cotización de respaldo.");
  }
  CHECK(lab.carrier_calls() == 7);

  // The summary counts what the students just saw.
  const json modes = diagnostics(lab.app)["modes"];
  CHECK(modes["legacy"]["requests"] == 1);
  CHECK(modes["legacy"]["failures"] == 1);
  CHECK(modes["legacy"]["attempts"] == 4);
  CHECK(modes["legacy"]["retries"] == 3);
  CHECK(modes["legacy"]["timeouts"] == 4);
  CHECK(modes["legacy"]["fallbacks"] == 0);
  CHECK(modes["legacy"]["latency_ms"]["max"] == 1440);
  CHECK(modes["resilient"]["requests"] == 5);
  CHECK(modes["resilient"]["successes"] == 1);
  CHECK(modes["resilient"]["degraded"] == 4);
  CHECK(modes["resilient"]["attempts"] == 3);
  CHECK(modes["resilient"]["fallbacks"] == 4);
  CHECK(modes["resilient"]["circuit_opens"] == 1);
  CHECK(modes["resilient"]["short_circuits"] == 3);
  CHECK(modes["resilient"]["scenarios"]["ok"]["short_circuits"] == 3);
  CHECK(modes["resilient"]["scenarios"]["provider_down"]["circuit_opens"] == 1);
}

TEST_CASE("half-open after exactly 30 s, without traffic, one probe reaches the carrier, a concurrent caller is short-circuited, success closes") {
  Lab lab;
  lab.quote(Mode::resilient, "provider_down");  // opens the breaker
  const std::size_t calls_before = lab.carrier_calls();

  lab.clock.advance(seconds(30) - milliseconds(1));
  CHECK(dependency_state(lab.app)["circuit_status"] == "open");
  CHECK(dependency_state(lab.app)["cooldown_left_ms"] == 1);
  lab.clock.advance(milliseconds(1));
  const json half_open = dependency_state(lab.app);
  CHECK(half_open["circuit_status"] == "half_open");
  CHECK(half_open["cooldown_left_ms"] == 0);

  // Another client arrives while the probe is at the carrier.
  json concurrent;
  lab.carrier.during_next_call = [&] { concurrent = lab.quote(Mode::resilient, "ok"); };
  lab.carrier.script.succeed(140);
  const json probe = lab.quote(Mode::resilient, "ok");

  CHECK(concurrent["attempts"] == 0);
  CHECK(concurrent["status"] == "degraded");
  CHECK(concurrent["events"] == events(R"([{"event": "short_circuit", "attempt": 1, "reason": "probe_in_flight"},
                                           {"event": "fallback_used", "attempt": 1, "reason": "seed_quote"}])"));
  CHECK(probe["status"] == "completed");
  CHECK(probe["events"] == events(R"([{"event": "half_open_probe", "attempt": 1},
                                      {"event": "attempt_success", "attempt": 1, "elapsed_ms": 140}])"));
  CHECK(probe["explanation"]["en"] ==
        "The breaker was half-open: this call was the probe, the carrier answered and the breaker closed.");
  CHECK(probe["explanation"]["es"] ==
        "El disyuntor estaba semiabierto: esta solicitud hizo la llamada de prueba, el proveedor respondió y el "
        "disyuntor se cerró.");
  CHECK(lab.carrier_calls() == calls_before + 1);  // exactly one probe
  const json closed = dependency_state(lab.app);
  CHECK(closed["circuit_status"] == "closed");
  CHECK(closed["consecutive_failures"] == 0);
  CHECK(closed["opened_until"].is_null());
  CHECK(closed["open_events"] == 1);
}

TEST_CASE("a failed half-open probe reopens the breaker for a fresh 30 s and serves the fallback") {
  Lab lab;
  lab.quote(Mode::resilient, "provider_down");
  lab.clock.advance(seconds(30));
  const json probe = lab.quote(Mode::resilient, "provider_down");
  CHECK(probe["attempts"] == 1);
  CHECK(probe["events"] == events(R"([
      {"event": "half_open_probe", "attempt": 1},
      {"event": "attempt_failed", "attempt": 1, "elapsed_ms": 220, "reason": "timeout"},
      {"event": "circuit_opened", "attempt": 1},
      {"event": "retry_skipped", "attempt": 2, "reason": "circuit_open"},
      {"event": "fallback_used", "attempt": 1, "reason": "seed_quote"}])"));  // the skip used no slot
  CHECK(probe["explanation"]["en"] ==
        "The half-open probe failed: the breaker reopened and the seed fallback quote was served (`seed: true`): no "
        "live quote has been cached yet.");
  CHECK(probe["explanation"]["es"] ==
        "La llamada de prueba del disyuntor semiabierto falló: el disyuntor se volvió a abrir y se respondió con la "
        "cotización de respaldo inicial (`seed: true`): aún no se guardó ninguna cotización en vivo.");
  CHECK(probe["dependency"]["circuit_status"] == "open");
  CHECK(probe["dependency"]["cooldown_left_ms"] == 30000);
  CHECK(probe["dependency"]["open_events"] == 2);
}

TEST_CASE("the fallback's age is exact on the fake clock, and a seed quote says it is one") {
  Lab lab;
  // No live quote yet: the seed quote, priced when the lab started.
  const json seed = lab.quote(Mode::resilient, "provider_down", 7, 2);
  CHECK(seed["quote"]["source"] == "fallback");
  CHECK(seed["quote"]["quote_id"] == "SEED-7-2");
  CHECK(seed["quote"]["seed"] == true);
  CHECK(seed["quote"]["cached_at"] == "2026-11-29T00:00:00.000Z");
  CHECK(seed["quote"]["age_s"] == 0.6);  // 550 ms of attempts and backoff, to 0.1 s

  lab.clock.advance(milliseconds(2449));  // t = 2.999 s
  CHECK(lab.quote(Mode::resilient, "ok", 7, 2)["quote"]["age_s"] == 3.0);
  lab.clock.advance(seconds(20));  // t = 22.999 s: still open (until 30.550 s), short circuits
  const json later = lab.quote(Mode::resilient, "ok", 7, 2);
  CHECK(later["attempts"] == 0);
  CHECK(later["quote"]["age_s"] == 23.0);
  CHECK(later["quote"]["cached_at"] == "2026-11-29T00:00:00.000Z");
  // Another customer and item count has a seed quote of its own.
  CHECK(lab.quote(Mode::resilient, "ok", 8, 2)["quote"]["quote_id"] == "SEED-8-2");
}

TEST_CASE("the carrier mode names the scenario of requests that name none, and reset brings the seeds back") {
  Lab lab;
  CHECK_FALSE(lab.app.set_carrier_mode("volcano"));
  CHECK(lab.app.carrier_mode() == "ok");
  CHECK(lab.app.set_carrier_mode("down"));  // an alias
  CHECK(lab.app.carrier_mode() == "provider_down");
  const json outage = lab.quote(Mode::resilient, "");
  CHECK(outage["scenario"] == "provider_down");
  CHECK(lab.carrier.script.requests().front().scenario == "provider_down");
  CHECK(dependency_state(lab.app)["circuit_status"] == "open");

  lab.app.reset();
  CHECK(lab.app.carrier_mode() == "ok");
  const json state = dependency_state(lab.app);
  CHECK(state["circuit_status"] == "closed");
  CHECK(state["open_events"] == 0);
  CHECK(state["last_outcome"].is_null());
  CHECK(state["fallback_quote"]["seed"] == true);
  CHECK(diagnostics(lab.app)["modes"]["resilient"]["requests"] == 0);
  lab.carrier.script.succeed(120);
  CHECK(lab.quote(Mode::resilient, "")["status"] == "completed");  // closed again: the carrier is called
}

TEST_CASE("one retry budget per lab and policy: resilient's requests earn adr0005 nothing, a reset empties them") {
  Lab lab;
  const auto with_budget = [&lab](const std::string& name, double ratio) {
    RetryPolicy p = *lab.app.find_policy(name);
    switch_strategy(p, Strategy::circuit_breaker, false);  // the budget alone
    p.retry_budget_ratio = ratio;
    p.retry_budget_min_per_s = 0;
    return quote_answer(lab.app, lab.app.quote(name, "provider_down", 42, 3, &p), &p, {"retry_budget_ratio"});
  };
  for (int i = 0; i < 10; ++i) CHECK(with_budget("resilient", 0)["attempts"] == 1);  // 10 requests, no retry
  // adr0005's own budget has seen 1 request: half a retry is not one (a shared one would allow it).
  const json adr = with_budget("adr0005", 0.5);
  CHECK(adr["attempts"] == 1);
  CHECK(adr["events"][1]["reason"] == "retry_budget");
  CHECK(with_budget("resilient", 0.5)["attempts"] == 2);  // 11 requests earn 5.5 retries
  lab.app.reset();
  CHECK(with_budget("resilient", 0.5)["attempts"] == 1);  // 1 request since the reset
}

TEST_CASE("a policies file that gives resilient a bulkhead gets one: a second quote while the first holds the place is rejected, then answered from the cache") {
  Policies policies = default_policies();
  switch_strategy(policies.resilient, Strategy::bulkhead, true);
  policies.resilient.overload.bulkhead.max_concurrent = 1;
  REQUIRE(validate(policies).empty());
  Lab lab(policies);
  json concurrent;
  lab.carrier.during_next_call = [&] { concurrent = lab.quote(Mode::resilient, "ok"); };
  lab.carrier.script.succeed(140);
  CHECK(lab.quote(Mode::resilient, "ok")["status"] == "completed");
  CHECK(event_names(concurrent) == std::vector<std::string>{"rejected", "fallback_used"});
  CHECK(concurrent["events"][0]["reason"] == "bulkhead_full");
  CHECK_FALSE(concurrent["events"][0].contains("wait_ms"));  // no queue: refused at once
  CHECK(concurrent["explanation"]["en"].get<std::string>().find("refused at once") != std::string::npos);
  CHECK(lab.carrier_calls() == 1);
  CHECK(gauge(lab.app, "resilient", "quote_lab_bulkhead_active") == 0.0);  // the place is back
}

TEST_CASE("a quote that waited out the bulkhead's queue says how long it waited, and one refused at once says so") {
  Policies policies = default_policies();
  switch_strategy(policies.legacy, Strategy::bulkhead, true);
  policies.legacy.overload.bulkhead = BulkheadPolicy{.max_concurrent = 1, .max_queued = 1, .queue_timeout_ms = 30};
  REQUIRE(validate(policies).empty());
  Lab lab(policies);
  json queued;
  lab.carrier.during_next_call = [&] { queued = lab.quote(Mode::legacy, "ok"); };  // the place is held meanwhile
  lab.carrier.script.succeed(140);
  CHECK(lab.quote(Mode::legacy, "ok")["status"] == "completed");
  CHECK(queued["events"] == events(R"([{"event": "rejected", "attempt": 1, "reason": "bulkhead_full", "wait_ms": 30}])"));
  CHECK(queued["explanation"]["en"] ==
        "This policy's bulkhead stayed full while the request waited 30 ms in its queue: it was refused without "
        "holding the rest of the lab, and there is no fallback: 503.");
  CHECK(queued["explanation"]["es"] ==
        "El mamparo (bulkhead) de esta política siguió lleno mientras la solicitud esperó 30 ms en su cola: se "
        "rechazó sin ocupar al resto del laboratorio, y no hay respaldo: 503.");
}

TEST_CASE("a reset brings the overload strategies back too: adaptive retry's pace is off again after a 429") {
  Lab lab;
  const auto send_rate = [&lab]() -> std::optional<double> {
    return gauge(lab.app, "aws_adaptive", "quote_lab_adaptive_retry_send_rate");
  };
  CHECK_FALSE(send_rate());  // no 429 seen: not pacing
  lab.carrier.script.fail(CallError::http_429, 30, milliseconds(1000)).succeed(25);
  CHECK(quote_answer(lab.app, lab.app.quote("aws_adaptive", "rate_limited", 42, 3))["attempts"] == 2);
  CHECK(send_rate());  // the 429 turned the pacing on
  lab.app.reset();
  CHECK_FALSE(send_rate());  // as a new lab: the next quote's first send does not wait
}

TEST_CASE("aws_adaptive's retry quota, per lab: 50 quotes that fail three times spend its 500, the next retries nothing and says why, a reset fills it") {
  Lab lab;
  const auto quota_left = [&lab]() -> std::optional<double> {
    return gauge(lab.app, "aws_adaptive", "quote_lab_retry_quota_available");
  };
  CHECK(quota_left() == 500.0);  // the series exists from the start
  for (int i = 0; i < 50; ++i) {
    for (int call = 0; call < 3; ++call) lab.carrier.script.fail(CallError::connect_error, 2);
    CHECK(quote_answer(lab.app, lab.app.quote("aws_adaptive", "carrier_offline", 42, 3))["attempts"] == 3);
  }
  CHECK(quote_answer(lab.app, lab.app.quote("resilient", "carrier_offline", 42, 3))["status"] == "degraded");
  CHECK(quota_left() == 0.0);  // resilient's quote took nothing from aws_adaptive's quota
  lab.carrier.script.fail(CallError::connect_error, 2);
  const json spent = quote_answer(lab.app, lab.app.quote("aws_adaptive", "carrier_offline", 42, 3));
  CHECK(spent["events"] == events(R"([
      {"event": "attempt_failed", "attempt": 1, "elapsed_ms": 2, "reason": "connect_error"},
      {"event": "retry_skipped", "attempt": 2, "reason": "retry_quota"},
      {"event": "fallback_used", "attempt": 1, "reason": "seed_quote"}])"));
  CHECK(spent["explanation"]["es"].get<std::string>().ends_with(
      "No se hizo otro reintento: a la cuota de reintentos le queda menos de lo que cuesta uno, y solo las "
      "respuestas correctas del proveedor la recargan (SDK de AWS)."));
  CHECK(spent["explanation"]["en"].get<std::string>().ends_with(
      "No further retry was made: the retry quota holds less than a retry costs, and only the carrier's successful "
      "answers refill it (AWS SDKs)."));
  lab.app.reset();
  CHECK(quota_left() == 500.0);
}

TEST_CASE("aws_adaptive on rate_limited: the retry's wait for its token is a token_wait step of the answer, with its wait_ms and its sentence") {
  Lab lab;
  // The lesson's path: a 429 in 20 ms with Retry-After: 1, then the quote in 25 ms.
  lab.carrier.script.fail(CallError::http_429, 20, milliseconds(1000)).succeed(25);
  const json answer = quote_answer(lab.app, lab.app.quote("aws_adaptive", "rate_limited", 42, 3));
  // The 429 turned the pacing on at 0.5 tokens a second with 0.02 earned (20 ms at the starting
  // 1 a second); after the 1 s Retry-After, 0.52: the retry's token is (1 - 0.52) / 0.5 = 960 ms away.
  CHECK(answer["events"] == events(R"([
      {"event": "attempt_failed", "attempt": 1, "elapsed_ms": 20, "reason": "http_429"},
      {"event": "retry_after", "attempt": 1, "wait_ms": 1000},
      {"event": "token_wait", "attempt": 2, "wait_ms": 960},
      {"event": "attempt_success", "attempt": 2, "elapsed_ms": 25}])"));
  CHECK(answer["elapsed_ms"] == 20 + 1000 + 960 + 25);
  CHECK(answer["explanation"]["en"] == "Live quote after 2 attempts: the retry helped. Adaptive retry waited 960 ms for "
                                       "its token before attempt 2: after a 429 the client slows its pace.");
  CHECK(answer["explanation"]["es"] == "Cotización en vivo tras 2 intentos: el reintento sirvió. El reintento adaptativo "
                                       "esperó 960 ms su ficha antes del intento 2: tras un 429 el cliente reduce su ritmo.");
}

// The scenario matrix (SPEC.md, "Scenarios" and "Default policies"): what each mode shows
// for each course scenario, at both ends of every latency range the scenario files give
// (u = 0: every carrier latency at its minimum and the shortest jitter, 95 ms of resilient
// backoff; u = 0.9999: every maximum, 125 ms). The HTTP code is the one the route sends.
// Over a real process only what needs one is left (test_lab_http.cpp).
TEST_CASE("every scenario of the matrix in both modes, exact: statuses, attempts, HTTP codes, events and the seed fallback") {
  struct Row {
    const char* scenario;
    Mode mode;
    const char* status;
    int http;
    int attempts;
    std::vector<std::string> events;
    int elapsed_ms_at_min;  // u = 0
    int elapsed_ms_at_max;  // u = 0.9999
  };
  using V = std::vector<std::string>;
  const V legacy_storm(4, "attempt_failed");
  const V contained{"attempt_failed", "backoff", "attempt_failed", "circuit_opened", "fallback_used"};
  const Row rows[] = {
      // ok: 115-150 ms, under both timeouts.
      {"ok", Mode::legacy, "completed", 200, 1, V{"attempt_success"}, 115, 150},
      {"ok", Mode::resilient, "completed", 200, 1, V{"attempt_success"}, 115, 150},
      // slow_provider: 640-730 ms, over both timeouts: legacy 4 x 360 ms; resilient 220 + backoff + 220.
      {"slow_provider", Mode::legacy, "failed", 503, 4, legacy_storm, 1440, 1440},
      {"slow_provider", Mode::resilient, "degraded", 200, 2, contained, 535, 565},
      // flaky_provider: attempt 1 takes 520-560 ms (a timeout), attempt 2 answers in 150-195 ms.
      {"flaky_provider", Mode::legacy, "completed", 200, 2, V{"attempt_failed", "attempt_success"}, 360 + 150, 360 + 195},
      {"flaky_provider", Mode::resilient, "completed", 200, 2, V{"attempt_failed", "backoff", "attempt_success"},
       220 + 95 + 150, 220 + 125 + 195},
      // provider_down: every attempt hangs until the caller gives up.
      {"provider_down", Mode::legacy, "failed", 503, 4, legacy_storm, 1440, 1440},
      {"provider_down", Mode::resilient, "degraded", 200, 2, contained, 535, 565},
      // burst_then_recover: attempts 1 and 2 time out, attempt 3 answers in 130-180 ms; resilient
      // opens its breaker on the second failure and never gets there.
      {"burst_then_recover", Mode::legacy, "completed", 200, 3,
       V{"attempt_failed", "attempt_failed", "attempt_success"}, 720 + 130, 720 + 180},
      {"burst_then_recover", Mode::resilient, "degraded", 200, 2, contained, 535, 565},
  };
  for (const double u : {0.0, 0.9999}) {
    for (const Row& row : rows) {
      CAPTURE(u);
      CAPTURE(row.scenario);
      const std::string mode(to_string(row.mode));
      CAPTURE(mode);
      SimulatedLab lab(u);
      lab.clock.advance(seconds(10));
      lab.app.reset();  // at t = 10 s: the seed quotes are priced again now
      const auto result = lab.app.quote(row.mode, row.scenario, 42, 3);
      const json answer = quote_answer(lab.app, result);
      CHECK(quote_http_status(result.trace) == row.http);
      CHECK(answer["mode"] == mode);
      CHECK(answer["scenario"] == row.scenario);
      CHECK(answer["status"] == row.status);
      CHECK(answer["attempts"] == row.attempts);
      CHECK(event_names(answer) == row.events);
      const int elapsed_ms = u == 0.0 ? row.elapsed_ms_at_min : row.elapsed_ms_at_max;
      CHECK(answer["elapsed_ms"] == elapsed_ms);
      for (const auto& e : answer["events"])
        if (e["event"] == "attempt_failed") CHECK(e["reason"] == "timeout");
      CHECK(answer["timeout_count"] == std::count(row.events.begin(), row.events.end(), "attempt_failed"));
      // The amplification: each attempt is one call the carrier saw, and nothing else.
      const auto stats = lab.app.carrier_stats();
      REQUIRE(stats);
      CHECK(stats->calls_total == static_cast<std::uint64_t>(row.attempts));
      CHECK(stats->calls_by_scenario.at(row.scenario) == static_cast<std::uint64_t>(row.attempts));
      const std::string status = row.status;
      if (status == "failed") {
        CHECK(answer["quote"].is_null());
      } else if (status == "degraded") {
        // Right after a reset the fallback is the seed quote the reset priced, as old as the flow.
        CHECK(answer["quote"]["source"] == "fallback");
        CHECK(answer["quote"]["quote_id"] == "SEED-42-3");
        CHECK(answer["quote"]["seed"] == true);
        CHECK(answer["quote"]["cached_at"] == "2026-11-29T00:00:10.000Z");
        CHECK(answer["quote"]["age_s"] == (elapsed_ms == 535 ? 0.5 : 0.6));
        CHECK(answer["dependency"]["circuit_status"] == "open");
      } else {
        CHECK(answer["quote"]["source"] == "live");
        CHECK(answer["quote"]["quote_id"].get<std::string>().rfind("Q-", 0) == 0);
        CHECK(answer["dependency"]["circuit_status"] == "closed");
      }
    }
  }
}

TEST_CASE("queue_ms is the wait the route measured before the flow ran, to 0.01 ms, in the answer and its incident") {
  Lab lab;
  lab.carrier.script.succeed(130);
  const json waited = lab.quote(Mode::resilient, "ok");
  CHECK(waited["queue_ms"] == 0);  // the default: no wait measured
  lab.carrier.script.succeed(130);
  const json queued = quote_answer(lab.app, lab.app.quote(Mode::resilient, "ok", 42, 3, nullptr, 12.3456), nullptr, {}, 12.3456);
  CHECK(queued["queue_ms"] == 12.35);
  CHECK(queued["elapsed_ms"] == 130);  // the flow's own time does not include the wait
  const auto incidents = lab.app.incidents(1);
  REQUIRE(incidents.size() == 1);
  CHECK(incidents[0].request_id == queued["request_id"]);
  CHECK(incidents[0].queue_ms == 12.3456);
}

}  // namespace test_lab_app

namespace test_lab_app {

TEST_CASE("a quote whose client left says so: a cancelled step, no fallback, and the incident marked cancelled") {
  Lab lab;
  std::stop_source client;
  client.request_stop();  // gone before its turn
  const auto result = lab.app.quote("resilient", "ok", 42, 3, nullptr, 0, Priority::critical, client.get_token());
  const json answer = quote_answer(lab.app, result);
  CHECK(event_names(answer) == std::vector<std::string>{"cancelled"});
  CHECK(answer["status"] == "failed");
  CHECK(answer["quote"].is_null());
  CHECK(answer["explanation"]["en"] ==
        "The client left before the answer: the quote was cancelled where it was (queued, waiting or in its call), "
        "with no further call to the carrier and no fallback.");
  CHECK(answer["explanation"]["es"] ==
        "El cliente se fue antes de la respuesta: la cotización se canceló donde estaba (en la cola, en una espera o "
        "en su llamada), sin más llamadas al proveedor y sin respaldo.");
  CHECK(lab.carrier_calls() == 0);
  CHECK(result.flow.incident.cancelled);
}

}  // namespace test_lab_app
