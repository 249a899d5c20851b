// Integration: a real `quote-lab serve` (lab + embedded carrier over real HTTP) on
// ephemeral ports, driven the way students drive it with curl. Only what a real process
// shows lives here: wiring, real sockets and clocks against the real carrier. What an answer
// says over HTTP (codes, headers, errors, the index) is checked in-process in
// test_lab_routes.cpp; the exact
// numbers of each answer (events, waits, ages, breaker views) are asserted on the fake
// clock in test_lab_app.cpp.
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <mutex>
#include <set>
#include <thread>

#include "lab/api/route_table.hpp"
#include "lab/base/time_format.hpp"
#include "lab/carrier/carrier_server.hpp"
#include "support/lab_process.hpp"

namespace test_lab_http {

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
  REQUIRE(opened.json["dependency"]["circuit_status"] == "open");
  // Open now, its cooldown counted from the failure: what is left is at most 0.3 s, and no
  // less than 0.3 s minus the time since the request was sent.
  const Reply open = lab.get("/dependency/state");
  const auto read_at = Steady::now();
  REQUIRE(open.json["circuit_status"] == "open");
  const auto left = milliseconds(open.json["cooldown_left_ms"].get<long long>());
  CHECK(left <= milliseconds(300));
  CHECK(left >= milliseconds(300) - std::chrono::duration_cast<milliseconds>(read_at - sent_at) - milliseconds(1));
  // The state is a function of time, computed when asked (SPEC): one read once the cooldown
  // has passed must say half_open; a sleep only ever overshoots.
  std::this_thread::sleep_for(left + milliseconds(20));
  CHECK(lab.get("/dependency/state").json["circuit_status"] == "half_open");
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
  // A closed page frees its slot within kEventCheck (0.5 s), or at the latest when a heartbeat
  // (every kEventHeartbeatS, 1 s) fails to write: 3 s is that twice over with room for a loaded
  // machine, and one request then must get the slot.
  std::this_thread::sleep_for(seconds(3));
  CHECK(lab.raw_status("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", milliseconds(500)) == 200);
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

TEST_CASE("provider_down holds the carrier only until the caller gives up") {
  LabProcess lab;
  lab.get("/quote-legacy?scenario=down");                               // 4 hung calls, 360 ms each
  // Each hung call is released kHangGraceMs (250 ms) after its caller's deadline, not after 5 s:
  // the last one ends ~250 ms after the answer, a 5 s hang 4.6 s after it.
  CHECK(eventually([&] { return carrier_stats(lab)["in_flight"] == 0; }, milliseconds(3000)));
  const auto stats = carrier_stats(lab);
  CHECK(stats["wasted_calls"] == 4);
  const double held_s = 0.360 + quote_lab::kHangGraceMs / 1000.0;
  // Counted from when the carrier's handler started: a call that reached it late (under a
  // sanitizer beside a build: 2.389 s for 4 calls, 11 ms short of 4 x 610 ms - 40 ms) is held
  // that much less, up to the caller's deadline plus the grace. The grace alone is the floor
  // a correct lab cannot miss; a carrier that failed at once instead of hanging misses it.
  CHECK(stats["wasted_seconds"].get<double>() >= 4 * quote_lab::kHangGraceMs / 1000.0);
  // Held 610 ms each when released on time. The bound, 1.5 times that, leaves 305 ms per call
  // for late wake-ups on a loaded 2-core machine (the normal phase failed this test once with 90 ms
  // of slack and 2.5 s to release; which check missed was not kept), and a
  // hang held twice as long (1.22 s each) or for the scenario's 5 s still fails.
  CHECK(stats["wasted_seconds"].get<double>() < 4 * held_s * 1.5);
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

}  // namespace test_lab_http
