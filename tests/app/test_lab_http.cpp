// Integration: a real `quote-lab serve` (lab + embedded carrier over real HTTP) on
// ephemeral ports, driven the way students drive it with curl. Only what a real process
// shows lives here: wiring, real sockets and clocks, HTTP codes and headers. The exact
// numbers of each answer (events, waits, ages, breaker views) are asserted on the fake
// clock in test_lab_app.cpp.
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <mutex>
#include <set>
#include <thread>

#include "lab/app/route_table.hpp"
#include "lab/base/time_format.hpp"
#include "support/lab_process.hpp"

using namespace quote_lab::testing;
using std::chrono::milliseconds;
using std::chrono::seconds;
using Steady = std::chrono::steady_clock;

namespace {

// Milliseconds from one timestamp the lab wrote to another (ISO 8601, millisecond precision).
double ms_between(const nlohmann::ordered_json& from, const nlohmann::ordered_json& to) {
  const auto a = quote_lab::parse_iso8601(from.get<std::string>());
  const auto b = quote_lab::parse_iso8601(to.get<std::string>());
  REQUIRE(a);
  REQUIRE(b);
  return std::chrono::duration<double, std::milli>(*b - *a).count();
}

// A fallback's age_s is its age when served, to 0.1 s: the answer's own timestamps say what
// it must be (off by at most the rounding, plus a millisecond of timestamp truncation).
void check_age_matches_timestamps(const nlohmann::ordered_json& answer) {
  const double age_ms = ms_between(answer["quote"]["cached_at"], answer["timestamp_utc"]);
  CAPTURE(age_ms);
  CHECK(std::abs(answer["quote"]["age_s"].get<double>() * 1000 - age_ms) <= 52);
}

double ms_since(Steady::time_point t) { return std::chrono::duration<double, std::milli>(Steady::now() - t).count(); }

// The embedded carrier's own counters, read from the lab's /carrier view.
nlohmann::ordered_json carrier_stats(const LabProcess& lab) { return lab.get("/carrier").json["stats"]; }

}  // namespace

// The scenario matrix (every scenario in both modes: statuses, attempts, HTTP codes, events,
// the seed fallback) is asserted exactly on the fake clock, at both ends of every latency
// range, in test_lab_app.cpp ("every scenario of the matrix in both modes"). Over a real
// process only what needs one, where no timing can change the outcome: a carrier that never
// answers, and a live answer given far more time than it takes. Resilient's provider_down
// (a 200, the seed quote) is the first step of the class sequence below.
TEST_CASE("legacy over real sockets: a live quote is a 200, provider_down is 4 real timeouts of 360 ms, a 503 and no answer") {
  LabProcess lab;
  // 115-150 ms of carrier work against 1 s: no loaded machine turns this into a timeout.
  const Reply live = lab.get("/quote-legacy?scenario=stable&customer_id=42&items=3&timeout_ms=1000");
  CHECK(live.status == 200);
  CHECK(live.json["mode"] == "legacy");
  CHECK(live.json["scenario"] == "ok");                                  // the alias is reported canonically
  CHECK(live.json["status"] == "completed");
  CHECK(live.json["attempts"] == 1);
  CHECK(live.json["quote"]["source"] == "live");

  const Reply r = lab.get("/quote-legacy?scenario=provider_down&customer_id=42&items=3");
  CHECK(r.status == 503);
  CHECK(r.json["status"] == "failed");
  CHECK(r.json["attempts"] == 4);
  CHECK(events_of(r.json) == std::vector<std::string>(4, "attempt_failed"));
  for (const auto& e : r.json["events"]) {
    CHECK(e["reason"] == "timeout");
    CHECK(e["elapsed_ms"].get<double>() >= 360);  // a real socket timeout never fires early
    // A poll timeout woken up to 100 ms late on loaded cores is still correct; a lab whose
    // timeouts take twice as long (720 ms) is not.
    CHECK(e["elapsed_ms"].get<double>() <= 460);
  }
  CHECK(r.json["timeout_count"] == 4);
  CHECK(r.json["quote"].is_null());
  CHECK(r.json["elapsed_ms"].get<double>() >= 1440);
  CHECK(r.elapsed_ms >= 1440);
  // 1440 ms of timeouts plus 1160 ms for five connections (four to the carrier, this one) and
  // the answer under a sanitizer on busy cores; a lab twice as slow (2880 ms) fails.
  CHECK(r.elapsed_ms <= 2600);
  const Reply carrier = lab.get("/carrier");
  CHECK(carrier.json["stats"]["calls_by_scenario"]["provider_down"] == 4);  // the amplification
  CHECK(carrier.json["stats"]["calls_by_scenario"]["ok"] == 1);
}

// The exact sequence (events, waits, breaker view, short circuits) is in test_lab_app.cpp;
// here: the real random draw and clocks, the HTTP codes, and what the real carrier saw.
TEST_CASE("the class sequence over HTTP: provider_down opens the breaker for 30 s of wall time, the next call never reaches the carrier") {
  LabProcess lab;
  const auto reset_at = Steady::now();
  lab.get("/reset-lab");
  const Reply first = lab.get("/quote-resilient?scenario=down");
  const auto answered_at = Steady::now();
  CHECK(first.status == 200);                                            // degraded is still a 200
  CHECK(first.json["scenario"] == "provider_down");                      // the alias is reported canonically
  CHECK(first.json["status"] == "degraded");
  CHECK(first.json["attempts"] == 2);
  CHECK(first.json["timeout_count"] == 2);
  REQUIRE(events_of(first.json).size() == 5);
  // Right after a reset the fallback is the seed quote, re-seeded by the reset itself.
  CHECK(first.json["quote"]["source"] == "fallback");
  CHECK(first.json["quote"]["quote_id"] == "SEED-42-3");
  CHECK(first.json["quote"]["seed"] == true);
  check_age_matches_timestamps(first.json);
  // Real timeouts never fire early: 2 x 220 ms + a backoff of at least 95 ms = 535 ms, 0.5 s
  // rounded; and it is no older than the reset that priced it (+ rounding).
  CHECK(first.json["quote"]["age_s"].get<double>() >= 0.5);
  CHECK(first.json["quote"]["age_s"].get<double>() * 1000 <= ms_since(reset_at) + 50);
  const auto wait = first.json["events"][1]["wait_ms"].get<int>();     // 80 ms + a real jitter draw of 15-45 ms
  CHECK(wait >= 95);
  CHECK(wait <= 125);
  for (int at : {0, 2}) CHECK(first.json["events"][at]["elapsed_ms"].get<double>() >= 220);  // real 220 ms socket timeouts
  // Opened for the default 30 s: on the wall clock in opened_until, on the monotonic one in cooldown_left_ms.
  // The answer's timestamp is taken after the breaker opened (a few ms later, more under a
  // sanitizer on busy cores): opened_until is 30 s after the opening, so at most 30 s after it.
  const double open_for_ms = ms_between(first.json["timestamp_utc"], first.json["dependency"]["opened_until"]);
  CHECK(open_for_ms <= 30000);
  CHECK(open_for_ms >= 30000 - 250);

  const auto asked_at = Steady::now();
  const Reply state = lab.get("/dependency/state");
  CHECK(state.json["circuit_status"] == "open");
  CHECK(state.json["opened_until"] == first.json["dependency"]["opened_until"]);
  CHECK(state.json["cooldown_left_ms"].get<double>() <= 30000 - std::chrono::duration<double, std::milli>(asked_at - answered_at).count() + 1);
  CHECK(state.json["cooldown_left_ms"].get<double>() >= 30000 - ms_since(answered_at) - 250);

  const Reply shorted = lab.get("/quote-resilient?scenario=ok");
  CHECK(shorted.status == 200);
  CHECK(shorted.json["status"] == "degraded");
  // No carrier call, no wait (exactly 0 ms on the fake clock, test_lab_app.cpp): any call to
  // ok takes at least 115 ms, so 100 ms tells the two apart with room for a descheduled thread.
  CHECK(shorted.json["elapsed_ms"].get<double>() < 100);
  const auto calls = carrier_stats(lab)["calls_by_scenario"];
  CHECK(calls["provider_down"] == 2);
  CHECK(calls["ok"] == 0);                                               // the carrier never saw it
}

// The exact 30 s edge, the single probe and a concurrent caller are in test_lab_app.cpp;
// here: --open-duration-s reaches the breaker, and its state turns on the real clock.
TEST_CASE("with --open-duration-s 0.3 the breaker is half_open 0.3 s later without traffic, and one real probe closes it") {
  LabProcess lab({"--open-duration-s", "0.3"});
  const auto sent_at = Steady::now();
  const Reply opened = lab.get("/quote-resilient?scenario=provider_down");
  const auto answered_at = Steady::now();
  REQUIRE(opened.json["dependency"]["circuit_status"] == "open");
  REQUIRE(eventually([&] { return lab.get("/dependency/state").json["circuit_status"] == "half_open"; }, seconds(3)));
  const auto half_open_at = Steady::now();
  CHECK(half_open_at - sent_at >= milliseconds(300));                    // never before the cooldown
  // and soon after: the state is computed when asked, so 1 s is room for the polling and a
  // loaded machine's scheduling (the exact edge is on the fake clock, test_lab_app.cpp).
  CHECK(half_open_at - answered_at <= milliseconds(300 + 1000));
  const std::string prom = lab.get("/metrics-prometheus").body;
  CHECK(prom.find(R"(quote_lab_breaker_state{state="half_open",upstream="carrier"} 1)") != std::string::npos);
  CHECK(prom.find(R"(quote_lab_breaker_state{state="open",upstream="carrier"} 0)") != std::string::npos);

  // 115-150 ms of carrier work against 1 s: a probe that no loaded machine can time out.
  const Reply probe = lab.get("/quote-resilient?scenario=ok&timeout_ms=1000");
  CHECK(probe.status == 200);
  CHECK(probe.json["status"] == "completed");
  CHECK(probe.json["quote"]["source"] == "live");
  CHECK(carrier_stats(lab)["calls_by_scenario"]["ok"] == 1);            // the probe, over real HTTP
  CHECK(lab.get("/dependency/state").json["circuit_status"] == "closed");
}

// The exact age on the fake clock and seed quotes are in test_lab_app.cpp; here: a quote from
// the real carrier is cached and aged on the real wall clock.
TEST_CASE("the fallback is the last live quote for that customer and item count, aged on the wall clock") {
  LabProcess lab;
  const auto sent_at = Steady::now();
  // 115-150 ms of carrier work against 1 s: live on any loaded machine.
  const Reply live = lab.get("/quote-resilient?scenario=ok&customer_id=7&items=2&timeout_ms=1000");
  REQUIRE(live.json["quote"]["source"] == "live");
  const Reply fb = lab.get("/quote-resilient?scenario=provider_down&customer_id=7&items=2");
  CHECK(fb.status == 200);
  CHECK(fb.json["quote"]["source"] == "fallback");
  CHECK(fb.json["quote"]["quote_id"] == live.json["quote"]["quote_id"]);
  check_age_matches_timestamps(fb.json);
  CHECK(fb.json["quote"]["age_s"].get<double>() >= 0.5);                 // the provider_down flow alone takes 535 ms or more
  CHECK(fb.json["quote"]["age_s"].get<double>() * 1000 <= ms_since(sent_at) + 50);
}

TEST_CASE("every bad input is a 400 JSON error that says what is allowed") {
  LabProcess lab;
  struct Row {
    const char* path;
    const char* error;
    const char* says;
  };
  for (const Row& r : {
           Row{"/quote-legacy?scenario=nope", "unknown_scenario", "does not exist"},
           Row{"/quote-resilient?scenario=", "unknown_scenario", "does not exist"},
           Row{"/quote-legacy?customer_id=abc", "invalid_parameter", "customer_id must be an integer between 1 and 5000"},
           Row{"/quote-legacy?customer_id=0", "invalid_parameter", "between 1 and 5000"},
           Row{"/quote-legacy?customer_id=5001", "invalid_parameter", "between 1 and 5000"},
           Row{"/quote-resilient?items=0", "invalid_parameter", "items must be an integer between 1 and 50"},
           Row{"/quote-resilient?items=51", "invalid_parameter", "between 1 and 50"},
           Row{"/quote-resilient?items=2.5", "invalid_parameter", "between 1 and 50"},
           Row{"/quote-legacy?scenaro=down", "unknown_parameter", "scenaro"},
           Row{"/incidents?limit=0", "invalid_parameter", "limit must be an integer between 1 and 200"},
           Row{"/incidents?limit=201", "invalid_parameter", "between 1 and 200"},
           Row{"/incidents?limit=ten", "invalid_parameter", "between 1 and 200"},
           Row{"/04/quote-legacy?items=-3", "invalid_parameter", "items"},
           // Too large for any integer type, or written as a float: refused, never wrapped or truncated.
           Row{"/quote-legacy?customer_id=99999999999999999999", "invalid_parameter", "between 1 and 5000"},
           Row{"/quote-legacy?customer_id=4294967338", "invalid_parameter", "between 1 and 5000"},
           Row{"/quote-resilient?items=1e3", "invalid_parameter", "items must be an integer between 1 and 50"},
           Row{"/quote-legacy?max_attempts=4294967298", "invalid_parameter", "max_attempts must be an integer between 1 and 10"},
           Row{"/quote-legacy?timeout_ms=4294967516", "invalid_parameter", "timeout_ms must be an integer between 10 and 5000"},
           Row{"/quote-legacy?backoff_base_ms=-4294967216", "invalid_parameter", "backoff_base_ms must be an integer between 0 and 5000"},
           Row{"/incidents?limit=4294967306", "invalid_parameter", "between 1 and 200"},
       }) {
    CAPTURE(r.path);
    const Reply reply = lab.get(r.path);
    CHECK(reply.status == 400);
    CHECK(reply.content_type.find("application/json") == 0);
    CHECK(reply.json["error"] == r.error);
    CHECK(reply.json["message"].get<std::string>().find(r.says) != std::string::npos);
  }
  const Reply unknown = lab.get("/quote-legacy?scenario=nope");
  for (const char* name : {"ok", "stable", "slow_provider", "slow", "flaky_provider", "flaky", "provider_down", "down",
                           "burst_then_recover", "burst"})
    CHECK(std::find(unknown.json["allowed"].begin(), unknown.json["allowed"].end(), name) != unknown.json["allowed"].end());
  // Bad input never touches the state: nothing was recorded, the breaker is untouched.
  CHECK(lab.get("/incidents").json["incidents"].empty());
  CHECK(lab.get("/dependency/state").json["consecutive_failures"] == 0);
}

TEST_CASE("routes: index, health, /04 prefix, JSON 404, incidents, diagnostics, reset") {
  LabProcess lab;
  CHECK(lab.get("/").json["routes"].is_array());
  CHECK(lab.get("/04").json["service"] == "quote-lab");
  CHECK(lab.get("/health").json["status"] == "ok");
  CHECK(lab.get("/04/health").json["status"] == "ok");
  const Reply missing = lab.get("/no-such-route");
  CHECK(missing.status == 404);
  CHECK(missing.json["error"] == "not_found");

  const Reply a = lab.get("/quote-legacy?scenario=ok");
  const Reply b = lab.get("/04/quote-resilient?scenario=stable&customer_id=9&items=1&timeout_ms=1000");  // live on any machine
  const Reply inc = lab.get("/incidents?limit=2");
  REQUIRE(inc.json["incidents"].size() == 2);
  CHECK(inc.json["limit"] == 2);
  CHECK(inc.json["incidents"][0]["request_id"] == b.json["request_id"]);
  CHECK(inc.json["incidents"][0]["scenario"] == "ok");
  CHECK(inc.json["incidents"][1]["request_id"] == a.json["request_id"]);
  for (const char* k : {"request_id", "mode", "scenario", "status", "attempts", "elapsed_ms", "timestamp_utc"})
    CHECK(inc.json["incidents"][0].contains(k));
  CHECK(lab.get("/incidents").json["limit"] == 10);

  const Reply diag = lab.get("/diagnostics/summary");
  CHECK(diag.json["modes"]["legacy"]["requests"] == 1);
  CHECK(diag.json["modes"]["resilient"]["scenarios"]["ok"]["successes"] == 1);
  CHECK(diag.json["modes"]["legacy"]["latency_ms"]["p50"].is_number());
  CHECK(diag.json["policies"]["resilient"]["timeout_ms"] == 220);
  CHECK(diag.json["dependency"]["circuit_status"] == "closed");

  const Reply reset = lab.request("POST", "/reset-lab");
  CHECK(reset.status == 200);
  CHECK(lab.get("/incidents").json["incidents"].empty());
  CHECK(lab.get("/diagnostics/summary").json["modes"]["legacy"]["latency_ms"]["p50"].is_null());
}

TEST_CASE("/metrics speaks JSON to curl and Prometheus text to a scraper") {
  LabProcess lab;
  lab.get("/quote-resilient?scenario=ok&timeout_ms=1000");  // 115-150 ms against 1 s: completed on any machine
  const Reply json = lab.get("/metrics");
  CHECK(json.content_type.find("application/json") == 0);
  CHECK(json.json["metrics"].is_array());
  const Reply text = lab.get("/metrics", {{"Accept", "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"}});
  CHECK(text.content_type.find("text/plain; version=0.0.4") == 0);
  CHECK(text.body.find(R"(quote_lab_quote_requests_total{mode="resilient",scenario="ok",status="completed"} 1)") != std::string::npos);
  const Reply prom = lab.get("/04/metrics-prometheus");
  CHECK(prom.content_type.find("text/plain") == 0);
  CHECK(prom.body.find(R"(quote_lab_http_requests_total{code="200",route="/quote-resilient"} 1)") != std::string::npos);
}

TEST_CASE("the carrier's mode is an outage for every request that names no scenario") {
  LabProcess lab;
  CHECK(lab.get("/quote-resilient").json["scenario"] == "ok");
  const Reply set = lab.request("PUT", "/carrier/mode?mode=down");
  CHECK(set.status == 200);
  CHECK(set.json["mode"] == "provider_down");
  // 4 hung attempts of 200 ms, not 360; an ok carrier would answer the first within 150 ms.
  const Reply r = lab.get("/quote-legacy?timeout_ms=200");
  CHECK(r.json["scenario"] == "provider_down");
  CHECK(r.json["attempts"] == 4);
  CHECK(lab.request("POST", "/carrier/mode?mode=bogus").status == 400);
  lab.get("/reset-lab");
  CHECK(lab.get("/carrier").json["mode"] == "ok");
}

namespace {

// What must hold of one answer whatever ran beside it (resets, probes, other flows): the
// problems found, empty when none. Quote answers come from the resilient route only.
std::vector<std::string> torn_parts(const std::string& path, const Reply& r) {
  std::vector<std::string> bad;
  auto expect = [&](bool ok, const std::string& what) {
    if (!ok) bad.push_back(path + ": " + what + " in " + r.body.substr(0, 600));
  };
  expect(r.status == 200, "HTTP " + std::to_string(r.status));
  if (r.json.is_discarded() || !r.json.is_object()) {
    expect(false, "no JSON object");
    return bad;
  }
  const auto& j = r.json;
  auto one_of_three = [](const nlohmann::ordered_json& s) { return s == "closed" || s == "open" || s == "half_open"; };
  if (path.rfind("/quote-resilient", 0) == 0) {
    const std::string status = j.value("status", "");
    expect(status == "completed" || status == "degraded", "status " + status);  // resilient always has a fallback
    expect((status == "completed") == (j["quote"]["source"] == "live"), "completed without a live quote");
    expect((status == "degraded") == (j["quote"]["source"] == "fallback"), "degraded without the fallback");
    int attempted = 0, timeouts = 0, short_circuits = 0;
    for (const auto& e : j["events"]) {
      if (e["event"] == "attempt_failed" || e["event"] == "attempt_success") ++attempted;
      if (e["event"] == "attempt_failed" && e["reason"] == "timeout") ++timeouts;
      if (e["event"] == "short_circuit") ++short_circuits;
    }
    expect(j["attempts"] == attempted, "attempts differ from the attempt events");
    expect(j["timeout_count"] == timeouts, "timeout_count differs from the timeout events");
    expect(j["retries"] == std::max(0, attempted - 1), "retries is not attempts - 1");
    expect(short_circuits == 0 || (attempted == 0 && status == "degraded"), "a short circuit that called the carrier");
    expect(status != "completed" || j["events"].back()["event"] == "attempt_success", "completed without a success last");
    expect(one_of_three(j["dependency"]["circuit_status"]), "breaker state");
    const std::string scenario = path.substr(path.find('=') + 1);
    const std::string canonical = scenario == "down" ? "provider_down" : scenario == "flaky" ? "flaky_provider" : scenario;
    expect(j["scenario"] == canonical, "scenario");
    if (canonical == "provider_down") expect(status == "degraded", "a carrier that never answers gave a live quote");
  } else if (path == "/dependency/state") {
    const auto& s = j["circuit_status"];
    expect(one_of_three(s), "breaker state");
    expect(j["consecutive_failures"].get<int>() >= 0 && j["open_events"].get<int>() >= 0, "negative counters");
    const auto left = j["cooldown_left_ms"].get<long long>();
    if (s == "open") expect(j["opened_until"].is_string() && left > 0 && left <= 300, "open without a cooldown of 0.3 s");
    if (s == "closed") expect(j["opened_until"].is_null() && left == 0, "closed with a cooldown");
    if (s == "half_open") expect(left == 0, "half_open with a cooldown");
  } else if (path.rfind("/incidents", 0) == 0) {
    expect(j["incidents"].size() <= 200, "more incidents than the limit");
    for (const auto& i : j["incidents"]) {
      expect(i["mode"] == "resilient", "an incident of a mode nobody asked");
      expect(i["status"] == "completed" || i["status"] == "degraded", "incident status");
    }
  } else if (path == "/diagnostics/summary") {
    const auto& m = j["modes"];
    for (const char* mode : {"legacy", "resilient"}) {
      const auto& c = m[mode];
      expect(c["requests"] == c["successes"].get<long long>() + c["degraded"].get<long long>() + c["failures"].get<long long>(),
             std::string(mode) + ": requests differ from their outcomes");
      expect(c["retries"].get<long long>() <= c["attempts"].get<long long>(), std::string(mode) + ": more retries than attempts");
    }
    expect(m["legacy"]["requests"] == 0, "legacy requests nobody sent");
    expect(m["resilient"]["failures"] == 0, "a resilient failure despite the fallback");
    expect(m["resilient"]["fallbacks"] == m["resilient"]["degraded"], "fallbacks differ from degraded answers");
    expect(one_of_three(j["dependency"]["circuit_status"]), "breaker state");
  } else if (path == "/metrics") {
    expect(j["metrics"].is_array(), "metrics");
  }
  return bad;
}

}  // namespace

// Every answer given during a storm of quotes, reads and resets must be one the lab could
// give alone (torn_parts); afterwards a reset must leave the exact state of a fresh lab.
TEST_CASE("concurrent requests and resets never tear the state") {
  LabProcess lab({"--open-duration-s", "0.3", "--workers", "16"});
  std::mutex mutex;
  std::vector<std::string> problems;  // guarded by mutex
  std::set<std::string> request_ids;  // guarded by mutex
  int quotes = 0;                      // guarded by mutex
  std::atomic<int> answered{0};
  std::vector<std::thread> clients;
  const auto until = Steady::now() + milliseconds(2500);
  for (int i = 0; i < 8; ++i)
    clients.emplace_back([&, i] {
      const char* paths[] = {"/quote-resilient?scenario=down", "/quote-resilient?scenario=ok",
                             "/dependency/state", "/incidents?limit=200", "/diagnostics/summary", "/metrics",
                             "/quote-resilient?scenario=flaky", "/reset-lab"};
      for (int n = 0; Steady::now() < until; ++n) {
        const std::string path = paths[(i + n) % 8];
        const Reply r = lab.get(path);
        auto found = torn_parts(path, r);
        std::lock_guard lock(mutex);
        problems.insert(problems.end(), found.begin(), found.end());
        if (path.rfind("/quote", 0) == 0 && r.json.is_object()) {
          ++quotes;
          if (!request_ids.insert(r.json.value("request_id", "")).second) problems.push_back("request_id given twice");
        }
        ++answered;
      }
    });
  for (auto& t : clients) t.join();
  for (const auto& p : problems) CHECK_MESSAGE(false, p);
  CHECK(problems.empty());
  CHECK(answered > 20);
  CHECK(quotes > 5);

  // After the storm: the counters move by exactly one per request ...
  const auto before = lab.get("/diagnostics/summary").json["modes"]["resilient"];
  const Reply one = lab.get("/quote-resilient?scenario=down");
  CHECK(torn_parts("/quote-resilient?scenario=down", one).empty());
  const auto after = lab.get("/diagnostics/summary").json["modes"]["resilient"];
  CHECK(after["requests"] == before["requests"].get<long long>() + 1);
  CHECK(after["degraded"] == before["degraded"].get<long long>() + 1);
  CHECK(after["attempts"] == before["attempts"].get<long long>() + one.json["attempts"].get<long long>());

  // ... and a reset leaves exactly a fresh lab's state: nothing half-reset survived.
  lab.get("/reset-lab");
  const Reply state = lab.get("/dependency/state");
  CHECK(state.json["circuit_status"] == "closed");
  CHECK(state.json["consecutive_failures"] == 0);
  CHECK(state.json["open_events"] == 0);
  CHECK(state.json["short_circuit_count"] == 0);
  CHECK(state.json["fallback_quote"]["seed"] == true);
  CHECK(lab.get("/incidents?limit=200").json["incidents"].empty());
  const auto fresh = lab.get("/diagnostics/summary").json["modes"];
  CHECK(fresh["resilient"]["requests"] == 0);
  CHECK(fresh["resilient"]["circuit_opens"] == 0);
  const Reply seeded = lab.get("/quote-resilient?scenario=down");
  CHECK(seeded.json["status"] == "degraded");
  CHECK(seeded.json["attempts"] == 2);
  CHECK(seeded.json["quote"]["quote_id"] == "SEED-42-3");
  CHECK(seeded.json["dependency"]["open_events"] == 1);
  CHECK(lab.get("/incidents?limit=200").json["incidents"].size() == 1);
}

TEST_CASE("curl -X POST and -X PUT without a body answer at once, as curl sends them") {
  LabProcess lab;
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(lab.raw_status("PUT /carrier/mode?mode=provider_down HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") == 200);
  CHECK(lab.get("/carrier").json["mode"] == "provider_down");
  CHECK(lab.raw_status("POST /04/reset-lab HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") == 200);
  CHECK(lab.get("/carrier").json["mode"] == "ok");
  CHECK(lab.raw_status("POST /carrier/mode?mode=bogus HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") == 400);
  // Six requests that do no carrier work: a server waiting for a body that never comes would
  // take its 5 s read timeout on the first; 1.5 s is ample room for a loaded machine.
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(1500));
  // a JSON body works too
  httplib::Client client("127.0.0.1", lab.port());
  auto res = client.Put("/carrier/mode", R"({"mode": "flaky"})", "application/json");
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(lab.get("/carrier").json["mode"] == "flaky_provider");
}

// Every explanation, exact, is in test_lab_app.cpp (the failed half-open probe's included);
// here: the Spanish text arrives intact over real HTTP, and the index describes the scenario.
TEST_CASE("every answer explains itself in plain Spanish and English") {
  LabProcess lab;
  const Reply down = lab.get("/quote-resilient?scenario=down");
  CHECK(down.json["explanation"]["en"] == "The carrier failed 2 times; the fallback quote was served.");
  CHECK(down.json["explanation"]["es"] == "El proveedor falló 2 veces; se respondió con la cotización de respaldo.");
  const Reply index = lab.get("/");
  const auto& scenarios = index.json["scenarios"];
  const auto down_scenario = std::find_if(scenarios.begin(), scenarios.end(), [](const auto& s) { return s["name"] == "provider_down"; });
  REQUIRE(down_scenario != scenarios.end());
  CHECK((*down_scenario)["then"]["response"] == "hang");
  CHECK((*down_scenario)["then"]["hang_ms"] == 5000);
}

TEST_CASE("the dashboard is served at / for browsers and under /ui/, and nothing outside public/") {
  LabProcess lab;
  const Reply html = lab.get("/", {{"Accept", "text/html,application/xhtml+xml,*/*;q=0.8"}});
  CHECK(html.status == 200);
  CHECK(html.content_type.find("text/html") == 0);
  CHECK(html.body.find("/ui/app.js") != std::string::npos);
  CHECK(lab.get("/").json["service"] == "quote-lab");                 // curl still gets JSON
  CHECK(lab.get("/ui/").content_type.find("text/html") == 0);
  CHECK(lab.get("/04/ui/app.js").content_type.find("text/javascript") == 0);
  CHECK(lab.get("/ui/vendor/chart.min.js").status == 200);             // Debian's Chart.js
  CHECK(lab.get("/ui/nothing.js").status == 404);
  CHECK(lab.get("/uix").status == 404);
  for (const char* evil : {"/ui/../CMakeLists.txt", "/ui/%2e%2e/CMakeLists.txt", "/ui/..%2fCMakeLists.txt",
                           "/ui/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd", "/ui/index.html%00.js", "/ui//etc/passwd",
                           "/ui/..\\CMakeLists.txt", "/04/ui/../../scenarios/ok.json"}) {
    CAPTURE(evil);
    const int code = lab.raw_status(std::string("GET ") + evil + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    CHECK(code >= 400);
    CHECK(code < 500);
  }
}

TEST_CASE("the event stream pushes quote completions and is bounded in clients") {
  LabProcess lab({"--max-event-clients", "1"});
  std::mutex mutex;
  std::string received;  // guarded by mutex: the reader appends while the test reads
  auto stream_has = [&](const std::string& text) {
    std::lock_guard lock(mutex);
    return received.find(text) != std::string::npos;
  };
  std::atomic<bool> stop{false};
  httplib::Client stream("127.0.0.1", lab.port());
  std::thread reader([&] {
    stream.Get("/events", [&](const char* data, std::size_t n) {
      std::lock_guard lock(mutex);
      received.append(data, n);
      return !stop.load();
    });
  });
  REQUIRE(eventually([&] { return stream_has(": connected"); }, seconds(5)));  // the stream holds the slot
  const Reply second = lab.get("/events");                             // the one slot is taken
  CHECK(second.status == 503);
  CHECK(second.json["error"] == "too_many_event_clients");
  const Reply q = lab.get("/quote-resilient?scenario=ok");
  CHECK(eventually([&] { return stream_has(q.json["request_id"].get<std::string>()); }, seconds(2)));
  CHECK(stream_has("event: quote"));
  stop = true;
  lab.get("/health");
  stream.stop();
  reader.join();
  // The closed stream's slot is freed by the next heartbeat, at most kEventHeartbeatS (5 s) later:
  // that wait is the behaviour under test.
  CHECK(eventually([&] { return lab.raw_status("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", milliseconds(500)) == 200; },
                   seconds(8), milliseconds(250)));
}

TEST_CASE("per-request overrides vary the policy of one request and are shown in the answer") {
  LabProcess lab;
  const Reply r = lab.get("/quote-legacy?scenario=down&timeout_ms=100&max_attempts=2");
  CHECK(r.json["attempts"] == 2);
  CHECK(r.json["policy"]["timeout_ms"] == 100);
  CHECK(r.json["policy_overrides"] == nlohmann::json::array({"timeout_ms", "max_attempts"}));
  // A 100 ms timeout woken up to 60 ms late on loaded cores is still correct; the default
  // 360 ms, or a timeout twice as long (200 ms), is not.
  for (const auto& e : r.json["events"]) CHECK(e["elapsed_ms"].get<double>() < 160);
  // Equal jitter waits at least half the exponential delay: a backoff event every time (full
  // jitter may draw 0 ms, which is no wait and no event: 1 run in about 30 failed on that).
  const Reply j = lab.get("/quote-legacy?scenario=down&max_attempts=3&jitter=equal&backoff_base_ms=50&timeout_ms=50");
  CHECK(events_of(j.json) == std::vector<std::string>{"attempt_failed", "backoff", "attempt_failed", "backoff", "attempt_failed"});
  const Reply bad = lab.get("/quote-resilient?jitter=wild");
  CHECK(bad.status == 400);
  CHECK(bad.json["allowed"].size() == 5);
  CHECK(lab.get("/quote-resilient?timeout_ms=1").json["message"].get<std::string>().find("timeout_ms") == 0);
  CHECK(lab.get("/quote-resilient").json["policy_overrides"].empty());     // the defaults otherwise
}

TEST_CASE("the carrier counts the work it finished after the lab gave up") {
  LabProcess lab;
  lab.get("/quote-legacy?scenario=slow");                                // 4 x (360 ms timeout vs 640-730 ms of work)
  // The last attempt's work ends up to 730 - 360 ms after the answer.
  REQUIRE(eventually([&] { return carrier_stats(lab)["in_flight"] == 0; }, seconds(3)));
  const auto stats = carrier_stats(lab);
  CHECK(stats["wasted_calls"] == 4);
  CHECK(stats["wasted_seconds"].get<double>() >= 4 * 0.640);
  // Each call sleeps its drawn 640-730 ms; 0.6 s over four calls is room for late wake-ups on
  // a loaded machine, while four calls twice as long (5.1 s or more) fail.
  CHECK(stats["wasted_seconds"].get<double>() <= 4 * 0.730 + 0.6);
  CHECK(lab.get("/metrics-prometheus").body.find("quote_lab_carrier_wasted_calls_total 4") != std::string::npos);
}

TEST_CASE("POST /experiments/storm runs one storm at a time and keeps the last result") {
  LabProcess lab;
  CHECK(lab.get("/experiments/storm").json["running"] == false);
  const Reply started = lab.request("POST", "/experiments/storm?mode=legacy&scenario=flaky&clients=2&requests=4");
  CHECK(started.status == 202);
  CHECK(started.json["running"] == true);
  CHECK(lab.request("POST", "/experiments/storm?mode=legacy&scenario=ok&clients=2&requests=4").status == 409);
  Reply done;
  CHECK(eventually([&] { return (done = lab.get("/experiments/storm")).json["running"] == false; }, seconds(5), milliseconds(50)));
  CHECK(done.json["last_result"]["requests"] == 4);
  CHECK(done.json["last_result"]["amplification"] == 2.0);
  CHECK(lab.request("POST", "/experiments/storm?clients=1000").status == 400);
  CHECK(lab.request("POST", "/experiments/storm?mode=chaos").status == 400);
  CHECK(lab.request("POST", "/experiments/storm?colour=red").status == 400);
}

TEST_CASE("ambiguous query strings are refused, not guessed") {
  LabProcess lab;
  for (const char* path : {"/quote-resilient?scenario=nope=ok", "/quote-resilient?customer_id=abc=7",
                           "/quote-resilient?scenario=ok&scenario=nope", "/incidents?limit=5&limit=abc",
                           "/incidents?limit=999=2", "/quote-legacy?scenario=ok;items=7", "/quote-legacy?=ok"}) {
    CAPTURE(path);
    const Reply r = lab.get(path);
    CHECK(r.status == 400);
    CHECK(r.json.contains("message"));
  }
  CHECK(lab.get("/incidents").json["incidents"].empty());
}

TEST_CASE("methods: HEAD never has effects, wrong methods get 405 with Allow") {
  LabProcess lab;
  lab.get("/quote-resilient?scenario=ok");
  CHECK(lab.raw_status("HEAD /reset-lab HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") == 405);
  CHECK(lab.raw_status("HEAD /quote-legacy?scenario=down HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") == 405);
  CHECK(lab.get("/incidents").json["incidents"].size() == 1);         // neither reset nor a new flow
  CHECK(lab.raw_status("HEAD /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") == 200);
  httplib::Client client("127.0.0.1", lab.port());
  auto del = client.Delete("/health");
  REQUIRE(del);
  CHECK(del->status == 405);
  CHECK(del->get_header_value("Allow") == "GET");
  auto put = client.Put("/04/reset-lab", "", "application/json");
  REQUIRE(put);
  CHECK(put->status == 405);
  CHECK(put->get_header_value("Allow") == "GET, POST");
  CHECK(client.Delete("/nowhere")->status == 404);
}

TEST_CASE("provider_down holds the carrier only until the caller gives up") {
  LabProcess lab;
  lab.get("/quote-legacy?scenario=down");                               // 4 hung calls, 360 ms each
  // Each hung call is released kHangGraceMs (50 ms) after its caller's deadline, not after 5 s.
  CHECK(eventually([&] { return carrier_stats(lab)["in_flight"] == 0; }, milliseconds(1500)));
  const auto stats = carrier_stats(lab);
  CHECK(stats["wasted_calls"] == 4);
  CHECK(stats["wasted_seconds"].get<double>() >= 4 * (0.360 + 0.050) - 0.04);
  // Held 410 ms each when released on time; under 500 ms each leaves 90 ms per call for late
  // wake-ups, and a hang held for the scenario's 5 s (or twice 410 ms) fails.
  CHECK(stats["wasted_seconds"].get<double>() < 4 * 0.5);
}

TEST_CASE("--workers bounds the requests served at once: a legacy storm starves /health, an open dashboard does not") {
  LabProcess lab({"--workers", "2"});
  // The carrier answers on its own listener, so it can be asked while both lab workers are busy.
  const std::string carrier_url = lab.get("/health").json["carrier_url"];
  httplib::Client carrier(carrier_url);
  auto carrier_in_flight = [&] {
    auto res = carrier.Get("/stats");
    return res ? nlohmann::json::parse(res->body)["in_flight"].get<int>() : -1;
  };
  // Two open event streams hold threads of their own, not the two workers.
  std::atomic<int> streams_open{0};
  httplib::Client s1("127.0.0.1", lab.port()), s2("127.0.0.1", lab.port());
  auto open_stream = [&](httplib::Client& c) {
    c.Get("/events", [&, counted = false](const char*, std::size_t) mutable {
      if (!std::exchange(counted, true)) ++streams_open;
      return true;
    });
  };
  std::thread t1([&] { open_stream(s1); });
  std::thread t2([&] { open_stream(s2); });
  REQUIRE(eventually([&] { return streams_open == 2; }, seconds(5)));
  CHECK(lab.get("/health").elapsed_ms < 100);  // nothing to wait for: both streams hold threads of their own
  // Two legacy provider_down requests take both workers for 4 x 360 ms.
  std::atomic<Steady::rep> first_done{Steady::time_point::max().time_since_epoch().count()};
  auto storm = [&] {
    lab.get("/quote-legacy?scenario=down");
    Steady::rep now = Steady::now().time_since_epoch().count(), seen = first_done;
    while (now < seen && !first_done.compare_exchange_weak(seen, now)) {}
  };
  std::thread a(storm);
  std::thread b(storm);
  REQUIRE(eventually([&] { return carrier_in_flight() == 2; }, seconds(2), milliseconds(5)));  // both workers are busy
  const Reply health = lab.get("/health");
  const auto health_done = Steady::now().time_since_epoch().count();
  a.join();
  b.join();
  CHECK(health.status == 200);
  CHECK(health.elapsed_ms > 700);  // waited for a worker: 4 x 360 ms, at least half of it left when it was sent ...
  // ... until a legacy request gave its worker back (50 ms: the two clients wake in either order).
  CHECK(health_done + std::chrono::duration_cast<Steady::duration>(milliseconds(50)).count() >= first_done.load());
  s1.stop();
  s2.stop();
  t1.join();
  t2.join();
}

TEST_CASE("GET / lists every route the server answers, and paths it does not list are 404") {
  LabProcess lab;
  const Reply index = lab.get("/");
  REQUIRE(index.status == 200);
  // (method, path without its example query) as the index lists them: "GET|POST" is two.
  std::set<std::pair<std::string, std::string>> listed;
  for (const auto& r : index.json["routes"]) {
    const std::string path = r["path"].get<std::string>().substr(0, r["path"].get<std::string>().find('?'));
    std::string methods = r["method"].get<std::string>();
    for (std::size_t at = 0; at != std::string::npos;) {
      const auto bar = methods.find('|', at);
      listed.emplace(methods.substr(at, bar == std::string::npos ? bar : bar - at), path);
      at = bar == std::string::npos ? bar : bar + 1;
    }
    CHECK(r["description"].is_string());
  }
  // Routes the dashboard, the storm button and Prometheus use, which the index once lacked.
  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"GET", "/"}, {"GET", "/health"}, {"GET", "/events"}, {"GET", "/ui"}, {"GET", "/ui/{file}"},
           {"GET", "/experiments/storm"}, {"POST", "/experiments/storm"}, {"GET", "/metrics-prometheus"},
           {"GET", "/reset-lab"}, {"POST", "/reset-lab"}, {"PUT", "/carrier/mode"}, {"POST", "/carrier/mode"}}) {
    CAPTURE(method);
    CAPTURE(path);
    CHECK(listed.count({method, path}) == 1);
  }
  // The server registers nothing but the route table, so the table is what it answers.
  std::size_t entries = 0;
  for (const quote_lab::Route& route : quote_lab::lab_route_table())
    for (const auto& m : route.methods) {
      ++entries;
      CAPTURE(route.path);
      CHECK(listed.count({m, route.path}) == 1);
    }
  CHECK(listed.size() == entries);
  // Every listed GET that changes nothing and ends by itself answers, also under /04.
  for (const auto& [method, path] : listed) {
    if (method != "GET" || path == "/events" || path.rfind("/quote", 0) == 0 || path == "/reset-lab") continue;
    const std::string concrete = path == "/ui/{file}" ? "/ui/app.js" : path;
    CAPTURE(concrete);
    CHECK(lab.get(concrete).status / 100 != 4);
    CHECK(lab.get("/04" + (concrete == "/" ? std::string() : concrete)).status / 100 != 4);
  }
  // Paths that look like routes but are none.
  for (const char* path : {"/quote", "/quote-legacy/x", "/healthz", "/health/x", "/events/x", "/uix", "/04/nope",
                           "/experiments", "/experiments/storm/x", "/carrier/mode/x", "/metrics/x", "/05/health"}) {
    CAPTURE(path);
    const Reply r = lab.get(path);
    CHECK(r.status == 404);
    CHECK(r.json["error"] == "not_found");
  }
}

TEST_CASE("queue_ms: at the default --workers, a quote sent during a legacy provider_down storm says how long it waited for a worker") {
  LabProcess lab;
  // Idle, a flow of 3 real 100 ms timeouts: the wait it reports is for a worker, not the flow.
  const auto idle = lab.get("/quote-legacy?scenario=down&timeout_ms=100&max_attempts=3");
  REQUIRE(idle.json.contains("queue_ms"));
  CAPTURE(idle.json["queue_ms"]);
  CHECK(idle.json["elapsed_ms"].get<double>() >= 300);
  CHECK(idle.json["queue_ms"].get<double>() >= 0);
  // With 16 idle workers the wait is a thread hand-off: 250 ms leaves room for a descheduled
  // thread on loaded sanitizer cores, and is less than the 300 ms flow it must not include.
  CHECK(idle.json["queue_ms"].get<double>() < 250);
  const std::string carrier_url = lab.get("/health").json["carrier_url"];
  httplib::Client carrier(carrier_url);
  // 30 legacy clients on the default 16 workers: each request holds a worker for 4 x 360 ms.
  REQUIRE(lab.request("POST", "/experiments/storm?mode=legacy&scenario=provider_down&clients=30&duration_s=4").status == 202);
  REQUIRE(eventually(
      [&] {
        auto res = carrier.Get("/stats");
        return res && nlohmann::json::parse(res->body)["in_flight"].get<int>() >= 16;
      },
      seconds(5), milliseconds(5)));  // every worker is busy
  const auto queued = lab.get("/quote-resilient?scenario=ok");
  CHECK(queued.status == 200);
  CAPTURE(queued.json["queue_ms"]);
  CHECK(queued.json["queue_ms"].get<double>() > 0);
  CHECK(queued.elapsed_ms >= queued.json["queue_ms"].get<double>());  // the client waited at least that long
  lab.request("DELETE", "/experiments/storm");
  // Its incident says the same.
  bool found = false;
  const auto reply = lab.get("/incidents?limit=200");
  CAPTURE(reply.status);
  CAPTURE(reply.body.substr(0, 300));
  const auto listed = reply.json["incidents"];
  CAPTURE(listed.size());
  CAPTURE(queued.json["request_id"]);
  for (const auto& i : listed)
    if (i["request_id"] == queued.json["request_id"]) {
      found = true;
      CHECK(i["queue_ms"] == queued.json["queue_ms"]);
    }
  CHECK(found);
}
