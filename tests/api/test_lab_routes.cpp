// The lab's HTTP surface in-process (support/in_process_lab.hpp): the real route table on a
// real HttpServer on 127.0.0.1, the shipped scenarios played on a fake clock. What an answer
// says over HTTP, exactly as a real `quote-lab serve` says it: 400s naming what is allowed,
// 404s, 405s with Allow, HEAD, the index, the dashboard's files, the per-request overrides,
// the reader's language. What needs a real process stays in test_lab_http.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>

#include "lab/api/route_table.hpp"
#include "lab/formats/policy_json.hpp"
#include "lab/http/policy_overrides.hpp"
#include "support/in_process_lab.hpp"
#include "support/poll.hpp"

namespace test_lab_routes {

using namespace quote_lab::testing;
using std::chrono::milliseconds;

namespace {

const httplib::Headers kBrowser{{"Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"},
                                {"Accept-Language", "es-AR,es;q=0.9,en;q=0.8"}};
const httplib::Headers kScript{{"Accept", "application/json"}};
// What Prometheus 2.x sends when it scrapes.
const httplib::Headers kPrometheus{
    {"Accept", "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
               "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"}};
const httplib::Headers kSpanish{{"Accept-Language", "es-AR,es;q=0.9,en;q=0.8"}};

}  // namespace

TEST_CASE("every bad input is a 400 JSON error that says what is allowed") {
  InProcessLab lab;
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
           Row{"/quote-legacy?priority=low", "invalid_priority", "must be `critical` or `sheddable` (got 'low')"},
           Row{"/quote/adr0005?priority=CRITICAL", "invalid_priority", "(got 'CRITICAL')"},
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
  InProcessLab lab;
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

TEST_CASE("/diagnostics/summary lists every scenario under every policy before anyone asks it") {
  InProcessLab lab;
  std::set<std::string> shipped;
  for (const auto& f : std::filesystem::directory_iterator(std::filesystem::path(source_dir()) / "scenarios"))
    if (f.path().extension() == ".json") shipped.insert(f.path().stem().string());
  REQUIRE(shipped.size() >= 12);
  const auto shape = [&] {
    std::set<std::string> keys;
    const Reply summary = lab.get("/diagnostics/summary");  // kept: items() would outlive a temporary
    for (const auto& [mode, m] : summary.json["modes"].items())
      for (const auto& [scenario, _] : m["scenarios"].items()) keys.insert(mode + "/" + scenario);
    return keys;
  };
  const auto fresh = lab.get("/diagnostics/summary").json["modes"];
  for (const char* mode : {"legacy", "resilient"}) {
    CAPTURE(mode);
    for (const std::string& name : shipped) {
      CAPTURE(name);
      const auto& c = fresh[mode]["scenarios"][name];
      CHECK(c["requests"] == 0);
      CHECK(c["failures"] == 0);
      CHECK(c["latency_ms"]["p50"].is_null());
      CHECK(c["latency_ms"]["max"].is_null());
    }
  }
  // The shape stays the same as the lesson goes on: asking fills in numbers, never keys.
  const auto before = shape();
  lab.get("/quote-legacy?scenario=slow");
  CHECK(shape() == before);
  const auto after = lab.get("/diagnostics/summary").json["modes"];
  CHECK(after["legacy"]["scenarios"]["slow_provider"]["requests"] == 1);
  CHECK(after["legacy"]["scenarios"]["slow_provider"]["latency_ms"]["p50"].is_number());
  CHECK(after["resilient"]["scenarios"]["slow_provider"]["requests"] == 0);
}

TEST_CASE("/metrics speaks JSON to curl and Prometheus text to a scraper") {
  InProcessLab lab;
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

TEST_CASE("/metrics?family= answers the families named and no other: what the dashboard reads every second") {
  InProcessLab lab;
  lab.get("/quote-resilient?scenario=ok&timeout_ms=1000");
  const auto names = [](const Reply& r) {
    std::set<std::string> out;
    for (const auto& f : r.json["metrics"]) out.insert(f["name"].get<std::string>());
    return out;
  };
  const Reply all = lab.get("/metrics", kScript);
  CHECK(names(all).size() > 10);
  // Repeated or comma-separated; a name the lab has not got is simply absent.
  const Reply some = lab.get("/metrics?family=quote_lab_fallbacks_total,quote_lab_no_such_family&family=quote_lab_retries_total",
                             kScript);
  CHECK(names(some) == std::set<std::string>{"quote_lab_fallbacks_total", "quote_lab_retries_total"});
  CHECK(some.json["dependency"]["circuit_status"] == "closed");  // the rest of the answer as before
  CHECK(some.body.size() * 10 < all.body.size());
  // Prometheus's text is the whole exposition, whatever the query.
  const Reply text = lab.get("/metrics?family=quote_lab_retries_total", kPrometheus);
  CHECK(text.body.find("quote_lab_quote_requests_total") != std::string::npos);
}

TEST_CASE("the carrier's mode is an outage for every request that names no scenario") {
  InProcessLab lab;
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

TEST_CASE("a quote's priority: ?priority= or X-Priority, critical when neither, shown in the answer, a bad one is a 400") {
  InProcessLab lab;
  CHECK(lab.get("/quote-legacy?scenario=prioritized").json["priority"] == "critical");
  CHECK(lab.get("/quote-legacy?scenario=prioritized&priority=sheddable").json["priority"] == "sheddable");
  CHECK(lab.get("/quote/adr0005?scenario=prioritized", {{"X-Priority", "sheddable"}}).json["priority"] == "sheddable");
  // The parameter is curl's way and wins over the header.
  CHECK(lab.get("/quote-resilient?priority=critical", {{"X-Priority", "sheddable"}}).json["priority"] == "critical");
  for (const auto& [language, says] : {std::pair{"es", "debe ser `critical` o `sheddable` (se recibió 'urgent')"},
                                       std::pair{"en", "must be `critical` or `sheddable` (got 'urgent')"}}) {
    CAPTURE(language);
    const Reply bad = lab.get("/quote-legacy", {{"X-Priority", "urgent"}, {"Accept-Language", language}});
    CHECK(bad.status == 400);
    CHECK(bad.json["error"] == "invalid_priority");
    CHECK(bad.json["message"].get<std::string>().find(says) != std::string::npos);
    CHECK(bad.json["allowed"] == nlohmann::ordered_json{"critical", "sheddable"});
  }
  CHECK(lab.get("/incidents").json["incidents"].size() == 4);  // the refused ones ran nothing
}

TEST_CASE("GET /carrier shows the lab's shedding station and the carrier's shed calls by reason") {
  InProcessLab lab;
  CHECK(lab.get("/carrier?lab=ana").json["shedding"].is_null());  // no call to a shedding scenario yet
  lab.get("/quote-resilient?scenario=overloaded_codel&lab=ana");
  const Reply ana = lab.get("/carrier?lab=ana");
  const auto& station = ana.json["shedding"];
  CHECK(station["scenario"] == "overloaded_codel");
  CHECK(station["discipline"] == "codel");
  CHECK(station["capacity"] == 4);
  CHECK(station["capacity_now"] == 4);
  CHECK(station["in_service"] == 0);
  CHECK(station["queued"] == 0);
  CHECK(station["queue_max"] == 16);
  CHECK(station["served"] == 1);
  CHECK(station["shed"] == nlohmann::ordered_json{{"queue_full", 0}, {"codel", 0}, {"priority", 0}, {"workers_busy", 0}});
  CHECK(ana.json["stats"]["shed_calls"] ==
        nlohmann::ordered_json{{"codel", 0}, {"priority", 0}, {"queue_full", 0}, {"workers_busy", 0}});
  CHECK(ana.json["stats"]["queued"] == 0);
  CHECK(lab.get("/carrier?lab=ben").json["shedding"].is_null());  // another lab has its own, untouched
  const std::string text = lab.get("/metrics-prometheus").body;
  CHECK(text.find("quote_lab_carrier_shed_calls_total{reason=\"codel\"} 0") != std::string::npos);
  CHECK(text.find("quote_lab_carrier_queued_calls 0") != std::string::npos);
}

TEST_CASE("GET /carrier?lab=NAME counts that lab's calls only, and the teacher's lab the class's carrier") {
  InProcessLab lab;
  lab.get("/quote-legacy?scenario=ok&lab=ana");
  lab.get("/quote-legacy?scenario=bad_request&lab=ben");
  lab.get("/quote-resilient?scenario=ok&lab=ben");
  const auto ana = lab.get("/carrier?lab=ana").json["stats"];
  CHECK(ana["calls_total"] == 1);
  CHECK(ana["calls_by_scenario"]["ok"] == 1);
  CHECK(ana["calls_by_scenario"]["bad_request"] == 0);
  CHECK(ana["bookings"] == 1);
  const auto ben = lab.get("/carrier?lab=ben").json["stats"];
  CHECK(ben["calls_total"] == 2);
  CHECK(ben["calls_by_scenario"]["bad_request"] == 1);
  CHECK(lab.get("/carrier?lab=carla").json["stats"]["calls_total"] == 0);  // a lab that called nothing
  CHECK(lab.get("/carrier").json["stats"]["calls_total"] == 3);            // the class's carrier: every call
  // ben's reset starts his counts again; ana's and the class's stay.
  CHECK(lab.request("POST", "/reset-lab?lab=ben").status == 200);
  CHECK(lab.get("/carrier?lab=ben").json["stats"]["calls_total"] == 0);
  CHECK(lab.get("/carrier?lab=ana").json["stats"]["calls_total"] == 1);
  CHECK(lab.get("/carrier").json["stats"]["calls_total"] == 3);
}

TEST_CASE("curl -X POST and -X PUT without a body answer at once, as curl sends them") {
  InProcessLab lab;
  // A server waiting for a body that never comes answers only after its 5 s read timeout:
  // each answer must come before 4.5 s, and the six requests together too. They do no
  // carrier work (milliseconds), and 4.5 s leaves room for the 2.4 s seen under
  // ThreadSanitizer on two loaded cores.
  const auto no_body_wait = std::chrono::milliseconds(4500);
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(lab.raw_status("PUT /carrier/mode?mode=provider_down HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", no_body_wait) == 200);
  CHECK(lab.get("/carrier").json["mode"] == "provider_down");
  CHECK(lab.raw_status("POST /04/reset-lab HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", no_body_wait) == 200);
  CHECK(lab.get("/carrier").json["mode"] == "ok");
  CHECK(lab.raw_status("POST /carrier/mode?mode=bogus HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", no_body_wait) == 400);
  CHECK(std::chrono::steady_clock::now() - t0 < no_body_wait);
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
  InProcessLab lab;
  const Reply down = lab.get("/quote-resilient?scenario=down");
  // A new lab has cached no live quote: the fallback is the seed quote, and it says so.
  CHECK(down.json["explanation"]["en"] ==
        "The carrier failed 2 times; the seed fallback quote was served (`seed: true`): no live quote has been "
        "cached yet.");
  CHECK(down.json["explanation"]["es"] ==
        "El proveedor falló 2 veces; se respondió con la cotización de respaldo inicial (`seed: true`): aún no se "
        "guardó ninguna cotización en vivo.");
  const Reply index = lab.get("/");
  const auto& scenarios = index.json["scenarios"];
  const auto down_scenario = std::find_if(scenarios.begin(), scenarios.end(), [](const auto& s) { return s["name"] == "provider_down"; });
  REQUIRE(down_scenario != scenarios.end());
  CHECK((*down_scenario)["then"]["response"] == "hang");
  CHECK((*down_scenario)["then"]["hang_ms"] == 5000);
}

TEST_CASE("a request the carrier rejects (a 4xx) is explained as the request's fault, not the carrier's") {
  InProcessLab lab;
  const Reply legacy = lab.get("/quote-legacy?scenario=bad_request");
  CHECK(legacy.status == 503);
  CHECK(legacy.json["explanation"]["es"] ==
        "El proveedor rechazó la solicitud (un 4xx): el error está en la solicitud, no en el proveedor, así que no se "
        "reintenta y el disyuntor no lo cuenta como fallo, y no hay respaldo: 503.");
  CHECK(legacy.json["explanation"]["en"] ==
        "The carrier rejected the request (a 4xx): the request is wrong, not the carrier, so it is not retried and the "
        "breaker does not count it as a failure, and there is no fallback: 503.");
  const Reply resilient = lab.get("/quote-resilient?scenario=bad_request");
  CHECK(resilient.status == 200);
  CHECK(resilient.json["explanation"]["es"] ==
        "El proveedor rechazó la solicitud (un 4xx): el error está en la solicitud, no en el proveedor, así que no se "
        "reintenta y el disyuntor no lo cuenta como fallo; se respondió con la cotización de respaldo inicial "
        "(`seed: true`): aún no se guardó ninguna cotización en vivo.");
  // As the sentence says: the breaker did not count it (SPEC: a 4xx is not a carrier failure).
  CHECK(lab.get("/dependency/state").json["consecutive_failures"] == 0);
}

TEST_CASE("policy_note speaks the language asked for, and English without Accept-Language as for curl") {
  InProcessLab lab;
  CHECK(lab.get("/quote-legacy?scenario=ok").json["policy_note"].get<std::string>().find(
            "legacy has no circuit breaker and no fallback") == 0);
  CHECK(lab.get("/quote-legacy?scenario=ok", {{"Accept-Language", "es"}}).json["policy_note"] ==
        "`legacy` no tiene disyuntor ni respaldo: `dependency` muestra el disyuntor del proveedor que comparten las "
        "solicitudes `resilient`; esta solicitud no lo consultó ni lo cambió");
  CHECK(lab.get("/quote-resilient?scenario=ok", {{"Accept-Language", "es-AR,es;q=0.9"}}).json["policy_note"] ==
        "`resilient` consulta el disyuntor del proveedor (`dependency`) antes de cada intento y responde con la última "
        "cotización buena (respaldo) cuando fallan todos los intentos");
}

TEST_CASE("the dashboard is served at / for browsers and under /ui/, and nothing outside public/") {
  InProcessLab lab;
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

TEST_CASE("per-request overrides vary the policy of one request and are shown in the answer") {
  InProcessLab lab;
  const Reply r = lab.get("/quote-legacy?scenario=down&timeout_ms=100&max_attempts=2");
  CHECK(r.json["attempts"] == 2);
  CHECK(r.json["policy"]["timeout_ms"] == 100);
  CHECK(r.json["policy_overrides"] == nlohmann::json::array({"timeout_ms", "max_attempts"}));
  // On the fake clock each attempt ends at its 100 ms timeout; the default 360 ms, or a
  // timeout twice as long (200 ms), would not.
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

TEST_CASE("ambiguous query strings are refused, not guessed") {
  InProcessLab lab;
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
  InProcessLab lab;
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

TEST_CASE("GET / describes every override a quote and a storm accept, from the one table the parser reads") {
  InProcessLab lab;
  const Reply index = lab.get("/", {{"Accept-Language", "es"}});
  REQUIRE(index.status == 200);
  const auto& rows = index.json["policy_overrides"];
  REQUIRE(rows.size() == quote_lab::policy_overrides().size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const quote_lab::PolicyOverride& o = quote_lab::policy_overrides()[i];
    const std::string name(o.name);
    CAPTURE(name);
    CHECK(rows[i]["name"] == name);
    CHECK(rows[i]["description"]["es"] == std::string(o.es));
    CHECK(index.json["parameters"][name].get<std::string>().find(std::string(o.es)) != std::string::npos);
    // Listed, so accepted: the quote route and the storm know it (a bad value is a 400
    // about its value, never an unknown parameter).
    const Reply quote = lab.get("/quote-resilient?" + name + "=zzz");
    CHECK(quote.status == 400);
    CHECK(quote.json["error"] == "invalid_parameter");
    const Reply storm = lab.request("POST", "/experiments/storm?clients=1&duration_s=1&" + name + "=zzz");
    CHECK(storm.status == 400);
    CHECK(storm.json["error"] == "invalid_parameter");
  }
  CHECK(rows[0]["kind"] == "integer");
  CHECK(rows[0]["min"] == 10);
  CHECK(rows[0]["max"] == 5000);
  CHECK(rows[4]["kind"] == "number");
  CHECK(rows[8]["choices"] == nlohmann::ordered_json::array({"true", "false"}));
}

TEST_CASE("GET / lists every route the server answers, and paths it does not list are 404") {
  InProcessLab lab;
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

TEST_CASE("a browser gets a page at /incidents, /diagnostics/summary, /metrics and /dependency/state, curl and scripts get the JSON") {
  InProcessLab lab;
  lab.get("/quote-legacy?scenario=ok");
  struct Row {
    const char* path;
    const char* json_key;  // a field the JSON answer has
  };
  for (const Row& r : {Row{"/incidents", "incidents"}, Row{"/diagnostics/summary", "modes"}, Row{"/metrics", "metrics"},
                       Row{"/dependency/state", "circuit_status"}, Row{"/04/incidents?limit=3", "incidents"},
                       Row{"/04/dependency/state", "circuit_status"}}) {
    CAPTURE(r.path);
    const Reply page = lab.get(r.path, kBrowser);
    CHECK(page.status == 200);
    CHECK(page.content_type.find("text/html") == 0);
    CHECK(page.body.find("/ui/pages.js") != std::string::npos);
    for (const Reply& data : {lab.get(r.path), lab.get(r.path, kScript)}) {  // curl's */*, a script's JSON
      CHECK(data.status == 200);
      CHECK(data.content_type.find("application/json") == 0);
      CHECK(data.json.contains(r.json_key));
    }
  }
  // The page's script and style are served like the dashboard's.
  CHECK(lab.get("/ui/pages.js").content_type.find("text/javascript") == 0);
  CHECK(lab.get("/ui/pages.css").content_type.find("text/css") == 0);
  // A bad query still gets the page in a browser (it shows the 400), and the 400 everywhere else.
  CHECK(lab.get("/incidents?limit=0", kBrowser).status == 200);
  CHECK(lab.get("/incidents?limit=0").status == 400);
  // The routes that are not pages stay JSON for a browser.
  CHECK(lab.get("/health", kBrowser).content_type.find("application/json") == 0);
  CHECK(lab.get("/carrier", kBrowser).content_type.find("application/json") == 0);
}

TEST_CASE("Prometheus keeps getting its text at /metrics and /metrics-prometheus, browsers or not") {
  InProcessLab lab;
  const Reply scrape = lab.get("/metrics", kPrometheus);
  CHECK(scrape.status == 200);
  CHECK(scrape.content_type == "text/plain; version=0.0.4; charset=utf-8");
  CHECK(scrape.body.find("# TYPE quote_lab_quote_requests_total counter") != std::string::npos);
  CHECK(lab.get("/metrics", {{"Accept", "text/plain"}}).content_type.find("text/plain") == 0);
  CHECK(lab.get("/metrics-prometheus", kBrowser).content_type.find("text/plain") == 0);
}

TEST_CASE("every example path of GET / works when pasted, the quote examples included") {
  InProcessLab lab;
  int tried = 0;
  const Reply index = lab.get("/");
  for (const auto& r : index.json["routes"]) {
    const std::string path = r["path"].get<std::string>();
    if (r["method"] != "GET" || path.find('?') == std::string::npos) continue;
    CAPTURE(path);
    ++tried;
    const Reply reply = lab.get(path);
    CHECK(reply.status == 200);
    CHECK(reply.json.is_object());
  }
  CHECK(tried >= 3);  // /quote-legacy, /quote-resilient, /incidents
}

TEST_CASE("scenario names are case-insensitive, and a typo gets a did-you-mean") {
  InProcessLab lab;
  const Reply upper = lab.get("/quote-resilient?scenario=OK");
  CHECK(upper.status == 200);
  CHECK(upper.json["scenario"] == "ok");  // reported canonically
  CHECK(lab.get("/quote-legacy?scenario=Stable").json["scenario"] == "ok");

  const Reply typo = lab.get("/quote-legacy?scenario=provder_down");
  CHECK(typo.status == 400);
  CHECK(typo.json["error"] == "unknown_scenario");
  CHECK(typo.json["message"] == "scenario 'provder_down' does not exist; did you mean 'provider_down'?");
  // Every accepted name, the course's five scenarios first (the fault scenarios follow).
  REQUIRE(typo.json["allowed"].size() >= 10);
  CHECK(std::vector<std::string>(typo.json["allowed"].begin(), typo.json["allowed"].begin() + 5) ==
        std::vector<std::string>{"ok", "slow_provider", "flaky_provider", "provider_down", "burst_then_recover"});
  const Reply far = lab.get("/quote-legacy?scenario=nope");
  CHECK(far.json["message"] == "scenario 'nope' does not exist; use one of the allowed names");

  const Reply param = lab.get("/quote-legacy?scenaro=down");
  CHECK(param.json["error"] == "unknown_parameter");
  CHECK(param.json["message"].get<std::string>().find("did you mean 'scenario'?") != std::string::npos);

  // A mistyped route is named too.
  const Reply route = lab.get("/incident");
  CHECK(route.status == 404);
  CHECK(route.json["error"] == "not_found");
  CHECK(route.json["message"] == "no route GET /incident; did you mean /incidents?; GET / lists the routes");
  CHECK(lab.get("/04/diagnostic/summary").json["message"].get<std::string>().find("did you mean /04/diagnostics/summary?") !=
        std::string::npos);
  CHECK(lab.get("/nothing-like-it").json["message"] == "no route GET /nothing-like-it; GET / lists the routes");

  // The carrier mode takes any case too, and a storm's scenario gets the same help.
  const Reply mode = lab.request("PUT", "/carrier/mode?mode=Provider_Down");
  CHECK(mode.status == 200);
  CHECK(mode.json["mode"] == "provider_down");
  CHECK(lab.request("PUT", "/carrier/mode?mode=slo").json["message"] ==
        "scenario 'slo' does not exist; did you mean 'slow'?");
  CHECK(lab.request("POST", "/experiments/storm?scenario=flakey").json["message"] ==
        "scenario 'flakey' does not exist; did you mean 'flaky'?");
  // Nothing a refused request asked for ran.
  CHECK(lab.get("/incidents").json["incidents"].size() == 2);
}

TEST_CASE("quote errors come in the reader's language (Accept-Language), English for curl, codes never change") {
  InProcessLab lab;
  struct Row {
    const char* path;
    const char* error;
    const char* english;
    const char* spanish;
  };
  for (const Row& r : {
           Row{"/quote-legacy?items=99", "invalid_parameter", "items must be an integer between 1 and 50 (got '99')",
               "`items` debe ser un número entero entre 1 y 50 (se recibió '99')"},
           Row{"/quote-resilient?customer_id=abc", "invalid_parameter",
               "customer_id must be an integer between 1 and 5000 (got 'abc')",
               "`customer_id` debe ser un número entero entre 1 y 5000 (se recibió 'abc')"},
           Row{"/quote-legacy?scenario=provder_down", "unknown_scenario",
               "scenario 'provder_down' does not exist; did you mean 'provider_down'?",
               "el escenario 'provder_down' no existe; ¿quisiste decir 'provider_down'?"},
           Row{"/quote-legacy?jitter=lots", "invalid_parameter", "jitter must be one of the allowed strategies (got 'lots')",
               "`jitter` (la variación aleatoria) debe ser una de las estrategias permitidas (se recibió 'lots')"},
           Row{"/quote-legacy?items=1&items=2", "invalid_parameter", "items is given more than once",
               "`items` aparece más de una vez"},
           Row{"/incidents?limit=0", "invalid_parameter", "limit must be an integer between 1 and 200 (got '0')",
               "`limit` debe ser un número entero entre 1 y 200 (se recibió '0')"},
       }) {
    CAPTURE(r.path);
    const Reply en = lab.get(r.path);
    const Reply es = lab.get(r.path, kSpanish);
    CHECK(en.status == 400);
    CHECK(es.status == 400);
    CHECK(en.json["error"] == r.error);
    CHECK(es.json["error"] == r.error);
    CHECK(en.json["message"] == r.english);
    CHECK(es.json["message"] == r.spanish);
    CHECK(lab.get(r.path, {{"Accept-Language", "en-US,en;q=0.9"}}).json["message"] == r.english);
  }
}

TEST_CASE("legacy answers say plainly that legacy has no breaker and no fallback, dependency stays in both modes") {
  InProcessLab lab;
  const Reply legacy = lab.get("/quote-legacy?scenario=ok");
  CHECK(legacy.json["policy_note"].get<std::string>().find("legacy has no circuit breaker and no fallback") == 0);
  CHECK(legacy.json["dependency"]["circuit_status"] == "closed");
  const Reply resilient = lab.get("/quote-resilient?scenario=ok");
  CHECK(resilient.json["policy_note"] ==
        "resilient asks the carrier's circuit breaker (`dependency`) before every attempt and serves the last good "
        "quote when every attempt fails");
  CHECK(resilient.json.contains("dependency"));
}

TEST_CASE("errors outside the quote routes come in the reader's language too, codes and fields never change") {
  InProcessLab lab;
  // The lab the rows change is its owner's, claimed at step 0: they send its key
  // (test_lab_keys.cpp).
  const Reply claimed = lab.request("POST", "/claim?name=i18n");
  REQUIRE(claimed.status == 201);
  const std::string key = claimed.json.value("lab_key", "");
  REQUIRE_FALSE(key.empty());
  const httplib::Headers owner{{"X-Lab-Key", key}};
  const httplib::Headers owner_es{{"X-Lab-Key", key}, {"Accept-Language", "es"}};
  struct Row {
    const char* method;
    const char* path;
    int status;
    const char* error;
    const char* english;
    const char* spanish;
  };
  for (const Row& r : {
           Row{"GET", "/incident", 404, "not_found", "no route GET /incident; did you mean /incidents?; GET / lists the routes",
               "no existe la ruta GET /incident; ¿quisiste decir /incidents? GET / lista las rutas"},
           Row{"GET", "/nothing-like-it", 404, "not_found", "no route GET /nothing-like-it; GET / lists the routes",
               "no existe la ruta GET /nothing-like-it; GET / lista las rutas"},
           Row{"DELETE", "/health", 405, "method_not_allowed", "DELETE is not allowed on /health; use GET",
               "DELETE no está permitido en /health; usa GET"},
           Row{"POST", "/experiments/storm?mode=sideways&lab=i18n", 400, "invalid_parameter",
               "there is no policy 'sideways'; use one of the allowed names (GET / lists them)",
               "no existe la política 'sideways'; usa uno de los nombres permitidos (GET / los lista)"},
           Row{"POST", "/experiments/storm?mode=adr005&lab=i18n", 400, "invalid_parameter",
               "there is no policy 'adr005'; did you mean 'adr0005'?", "no existe la política 'adr005'; ¿quisiste decir 'adr0005'?"},
           Row{"POST", "/experiments/storm?clients=0&lab=i18n", 400, "invalid_parameter",
               "clients must be an integer between 1 and 100 (got '0')",
               "`clients` debe ser un número entero entre 1 y 100 (se recibió '0')"},
           Row{"POST", "/experiments/storm?rate=20&clients=5&lab=i18n", 400, "invalid_parameter",
               "`rate` and `clients` exclude each other: `rate=R` sends R arrivals a second without waiting for answers "
               "(open loop); `clients=N` keeps N clients, each waiting for its answer (closed loop)",
               "`rate` y `clients` se excluyen: `rate=R` envía R llegadas por segundo sin esperar las respuestas (carga "
               "abierta); `clients=N` mantiene N clientes, cada uno esperando su respuesta (carga cerrada)"},
           Row{"POST", "/experiments/storm?rate=501&lab=i18n", 400, "invalid_parameter",
               "rate must be a number between 0.1 and 500 (got '501')",
               "`rate` debe ser un número entre 0.1 y 500 (se recibió '501')"},
           Row{"POST", "/experiments/storm?rate=fast&lab=i18n", 400, "invalid_parameter",
               "rate must be a number between 0.1 and 500 (got 'fast')",
               "`rate` debe ser un número entre 0.1 y 500 (se recibió 'fast')"},
           Row{"POST", "/experiments/storm?rate=50&arrivals=bursty&lab=i18n", 400, "invalid_parameter",
               "arrivals must be one of the allowed values (got 'bursty')",
               "`arrivals` debe ser uno de los valores permitidos (se recibió 'bursty')"},
           Row{"POST", "/experiments/storm?rate=50&max_in_flight=101&lab=i18n", 400, "invalid_parameter",
               "max_in_flight must be an integer between 1 and 100 (got '101')",
               "`max_in_flight` debe ser un número entero entre 1 y 100 (se recibió '101')"},
           Row{"POST", "/experiments/storm?sheddable_share=1.5&lab=i18n", 400, "invalid_parameter",
               "sheddable_share must be a number between 0 and 1 (got '1.5')",
               "`sheddable_share` debe ser un número entre 0 y 1 (se recibió '1.5')"},
           Row{"POST", "/experiments/storm?sweep=10&lab=i18n", 400, "invalid_parameter",
               "a sweep has 2 to 12 values of arrivals per second, separated by commas (got 1)",
               "un barrido tiene de 2 a 12 valores de llegadas por segundo, separados por comas (se recibieron 1)"},
           Row{"POST", "/experiments/storm?sweep=1,2,3,4,5,6,7,8,9,10,11,12,13&lab=i18n", 400, "invalid_parameter",
               "a sweep has 2 to 12 values of arrivals per second, separated by commas (got 13)",
               "un barrido tiene de 2 a 12 valores de llegadas por segundo, separados por comas (se recibieron 13)"},
           Row{"POST", "/experiments/storm?sweep=&lab=i18n", 400, "invalid_parameter",
               "a sweep has 2 to 12 values of arrivals per second, separated by commas (got 0)",
               "un barrido tiene de 2 a 12 valores de llegadas por segundo, separados por comas (se recibieron 0)"},
           Row{"POST", "/experiments/storm?sweep=10,,40&lab=i18n", 400, "invalid_parameter",
               "sweep must be a number between 0.1 and 500 (got '')", "`sweep` debe ser un número entre 0.1 y 500 (se recibió '')"},
           Row{"POST", "/experiments/storm?sweep=10,fast&lab=i18n", 400, "invalid_parameter",
               "sweep must be a number between 0.1 and 500 (got 'fast')",
               "`sweep` debe ser un número entre 0.1 y 500 (se recibió 'fast')"},
           Row{"POST", "/experiments/storm?sweep=10,20&rate=5&lab=i18n", 400, "invalid_parameter",
               "`sweep` replaces `rate`, `clients` and `requests`: `sweep=10,20,40` runs one open-loop storm per arrival "
               "rate, each for duration_s seconds, and draws goodput against offered load",
               "`sweep` reemplaza a `rate`, `clients` y `requests`: `sweep=10,20,40` lanza una tormenta de carga abierta por "
               "cada valor de llegadas por segundo, de duration_s segundos cada una, y dibuja las respuestas útiles frente "
               "a la carga ofrecida"},
           Row{"POST", "/experiments/storm?sweep=10,20,30&duration_s=30&lab=i18n", 400, "invalid_parameter",
               "a sweep of 3 values × 30 s would send for more than 60 s: lower duration_s or give fewer values",
               "un barrido de 3 valores × 30 s enviaría durante más de 60 s: baja duration_s o da menos valores"},
           Row{"POST", "/experiments/storm?clientes=5&lab=i18n", 400, "unknown_parameter",
               "unknown query parameter 'clientes'", "parámetro de consulta desconocido: 'clientes'"},
           Row{"GET", "/carrier?lab=a_b", 400, "invalid_lab_name",
               "a lab name uses only letters a-z, digits and '-', and '_' is not one of them: write 'a-b' instead",
               "un nombre de laboratorio usa solo letras a-z, dígitos y '-', y «_» no es una de ellas: escribe «a-b» en su "
               "lugar"},
           Row{"GET", "/carrier?lab=bego%C3%B1a-paso0", 400, "invalid_lab_name",
               "a lab name uses only letters a-z, digits and '-', and 'ñ' is not one of them: write 'begona-paso0' instead",
               "un nombre de laboratorio usa solo letras a-z, dígitos y '-', y «ñ» no es una de ellas: escribe "
               "«begona-paso0» en su lugar"},
           Row{"GET", "/carrier?lab=", 400, "invalid_lab_name", "a lab name has 1 to 32 characters (got 0)",
               "un nombre de laboratorio tiene de 1 a 32 caracteres (se recibieron 0)"},
           Row{"GET", "/carrier?lab=ana&lab=bruno", 400, "invalid_parameter", "lab is given more than once; name one lab",
               "el parámetro `lab` aparece más de una vez; indica un solo laboratorio"},
           Row{"PUT", "/carrier/mode?lab=i18n", 400, "unknown_scenario",
               "name the carrier mode: ?mode=NAME, or a JSON body with a \"mode\" field",
               "indica el modo del proveedor: ?mode=NOMBRE, o un cuerpo JSON con el campo \"mode\""},
           Row{"PUT", "/carrier/mode?mode=slo&lab=i18n", 400, "unknown_scenario",
               "scenario 'slo' does not exist; did you mean 'slow'?", "el escenario 'slo' no existe; ¿quisiste decir 'slow'?"},
           Row{"POST", "/claim?name=i18n", 409, "name_taken",
               "the name 'i18n' is already claimed: its labs are its owner's. If it is yours and you lost the key, ask "
               "the teacher for a new one; if not, choose another name (e.g. YO=i18n2)",
               "el nombre 'i18n' ya tiene dueño: sus laboratorios son de quien lo reclamó. Si es el tuyo y perdiste la "
               "clave, pide una nueva al profesor; si no, elige otro nombre (por ejemplo YO=i18n2)"},
           Row{"POST", "/claim", 400, "invalid_parameter",
               "say which name you claim: POST /claim?name=YOUR_NAME (letters a-z, digits and '-', e.g. ana)",
               "di qué nombre reclamas: POST /claim?name=TU_NOMBRE (letras a-z, dígitos y '-', por ejemplo ana)"},
           Row{"POST", "/class/reset?lab=i18n", 400, "invalid_parameter",
               "/class/reset acts on every student lab at once: leave out ?lab= (for one lab, add ?lab=NAME to "
               "/reset-lab or /carrier/mode)",
               "/class/reset actúa sobre todos los laboratorios de estudiantes a la vez: quita ?lab= (para uno solo, "
               "agrega ?lab=NOMBRE a /reset-lab o /carrier/mode)"},
       }) {
    CAPTURE(r.method);
    CAPTURE(r.path);
    const Reply en = lab.request(r.method, r.path, owner);
    const Reply es = lab.request(r.method, r.path, owner_es);
    CHECK(en.status == r.status);
    CHECK(es.status == r.status);
    CHECK(en.json["error"] == r.error);
    CHECK(es.json["error"] == r.error);
    CHECK(en.json["message"] == r.english);
    CHECK(es.json["message"] == r.spanish);
    CHECK(en.json.contains("allowed") == es.json.contains("allowed"));
    if (en.json.contains("allowed")) CHECK(en.json["allowed"] == es.json["allowed"]);
  }
  // A storm already running, and a body that is not a JSON object.
  REQUIRE(lab.request("POST", "/experiments/storm?mode=resilient&scenario=ok&clients=1&duration_s=30&lab=i18n", owner)
              .status == 202);
  const Reply busy = lab.request("POST", "/experiments/storm?lab=i18n", owner_es);
  CHECK(busy.status == 409);
  CHECK(busy.json["error"] == "storm_running");
  CHECK(busy.json["message"] == "ya hay una tormenta en curso; GET /experiments/storm muestra su avance");
  CHECK(lab.request("DELETE", "/experiments/storm?lab=i18n", owner).status == 200);
}

TEST_CASE("GET /quote/adr0005 answers like /quote-resilient, under ADR-0005's numbers and its own breaker") {
  InProcessLab lab;
  const Reply r = lab.get("/quote/adr0005?scenario=ok");
  CHECK(r.status == 200);
  CHECK(r.json["mode"] == "adr0005");
  CHECK(r.json["status"] == "completed");
  CHECK(r.json["policy"]["max_attempts"] == 3);
  CHECK(r.json["policy"]["retry_on"] == nlohmann::json::array({"5xx", "429", "timeout", "connect_error"}));
  CHECK(r.json["policy"]["breaker"]["failure_threshold"] == 5);
  CHECK(r.json["dependency"]["name"] == "carrier:adr0005");
  // The course routes are as they were: no issue-14 key in their policy objects.
  const Reply course = lab.get("/quote-resilient?scenario=ok");
  CHECK_FALSE(course.json["policy"].contains("retry_on"));
  CHECK(course.json["dependency"]["name"] == "carrier");

  const Reply index = lab.get("/");
  CHECK(index.json["policies"].contains("adr0005"));
  const Reply diag = lab.get("/diagnostics/summary");
  CHECK(diag.json["policies"].contains("adr0005"));
  CHECK(diag.json["modes"]["adr0005"]["requests"] == 1);
}

TEST_CASE("GET / shows each policy's pipeline beside the keys it showed before, and reads back to the lab's policies") {
  InProcessLab lab;
  const Reply index = lab.get("/");
  const auto& shown = index.json["policies"];
  const quote_lab::Policies defaults = quote_lab::default_policies();
  for (const auto& name : defaults.names()) {
    CAPTURE(name);
    REQUIRE(shown.contains(name));
    CHECK(shown[name].contains("timeout_ms"));  // the keys the index showed before are all there
    CHECK(shown[name].contains("fallback"));
    CHECK(shown[name]["pipeline"].is_array());
    CHECK(shown[name]["pipeline"].back()["strategy"] == "timeout");
  }
  CHECK(shown["resilient"]["pipeline"] == nlohmann::ordered_json::parse(R"([
      {"strategy": "fallback"},
      {"strategy": "retry", "max_attempts": 2, "backoff_base_ms": 80, "backoff_max_ms": 2000, "jitter": "additive",
       "jitter_min_ms": 15, "jitter_max_ms": 45, "retry_on": ["5xx", "429", "timeout", "connect_error"],
       "retry_budget_ratio": null, "retry_budget_min_per_s": 10, "idempotency_key": "per_flow"},
      {"strategy": "circuit_breaker"},
      {"strategy": "timeout", "timeout_ms": 220}])"));
  CHECK(shown["adr0005"]["pipeline"][2] ==
        nlohmann::ordered_json::parse(R"({"strategy": "circuit_breaker", "failure_threshold": 5, "open_duration_s": 30})"));
  CHECK(shown["adr0005"]["breaker"]["failure_threshold"] == 5);  // still shown beside it
  CHECK(shown["bulkhead"]["pipeline"][0]["strategy"] == "bulkhead");
  CHECK(shown["hedged"]["pipeline"][2]["delay"]["mode"] == "observed_percentile");
  CHECK_FALSE(shown["resilient"].contains("retry_on"));  // the course's keys as before
  // Copied into a policies file, the index's policies are the lab's policies.
  CHECK(quote_lab::to_json(quote_lab::policies_from_json(shown, defaults)) == quote_lab::to_json(defaults));
  // /diagnostics/summary's policies are as they were: the keys alone.
  CHECK_FALSE(lab.get("/diagnostics/summary").json["policies"]["resilient"].contains("pipeline"));
}

TEST_CASE("an unknown policy is a 404 naming the policies, with a did-you-mean, in English or Spanish") {
  InProcessLab lab;
  const Reply r = lab.get("/quote/adr005");
  CHECK(r.status == 404);
  CHECK(r.json["error"] == "unknown_policy");
  CHECK(r.json["message"] == "there is no policy 'adr005'; did you mean 'adr0005'?");
  CHECK(r.json["allowed"] == nlohmann::json::array({"legacy", "resilient", "adr0005", "throttled", "adaptive_limit", "bulkhead", "hedged", "aws_adaptive"}));
  const Reply es = lab.get("/quote/zzz", {{"Accept-Language", "es"}});
  CHECK(es.status == 404);
  CHECK(es.json["message"] == "no existe la política 'zzz'; usa uno de los nombres permitidos (GET / los lista)");
}

TEST_CASE("the new overrides: each bad value is a 400 naming it, a refused retry is counted by reason") {
  InProcessLab lab;
  struct Row {
    const char* query;
    const char* says;
    std::size_t allowed;
  };
  for (const Row& row : {Row{"retry_budget_ratio=2", "retry_budget_ratio must be a number between 0 and 1", 0},
                         Row{"retry_budget_ratio=abc", "retry_budget_ratio must be a number between 0 and 1", 0},
                         Row{"retry_budget_min_per_s=-1", "retry_budget_min_per_s must be an integer between 0 and 1000", 0},
                         Row{"deadline_ms=5", "deadline_ms must be an integer between 10 and 5000", 0},
                         Row{"idempotency_key=twice", "idempotency_key must be one of the allowed values", 3},
                         Row{"circuit_breaker=maybe", "circuit_breaker must be one of the allowed values", 2}}) {
    CAPTURE(row.query);
    const Reply r = lab.get(std::string("/quote/adr0005?") + row.query);
    CHECK(r.status == 400);
    CHECK(r.json["message"].get<std::string>().find(row.says) == 0);
    if (row.allowed > 0) CHECK(r.json["allowed"].size() == row.allowed);
  }
  // No budget left for a retry (ratio 0, no floor) and no breaker: one call, then the fallback.
  const Reply r = lab.get("/quote-resilient?scenario=down&retry_budget_ratio=0&retry_budget_min_per_s=0&circuit_breaker=false");
  CHECK(r.status == 200);
  CHECK(r.json["attempts"] == 1);
  CHECK(r.json["events"][1]["event"] == "retry_skipped");
  CHECK(r.json["events"][1]["reason"] == "retry_budget");
  CHECK(r.json["dependency"]["circuit_status"] == "closed");
  const std::string metrics = lab.get("/metrics-prometheus").body;
  CHECK(metrics.find(R"(quote_lab_retries_skipped_total{mode="resilient",reason="retry_budget"} 1)") != std::string::npos);
}

TEST_CASE("POST /experiments/storm storms any named policy with the quote routes' overrides and refuses a bad value with a 400 naming it") {
  InProcessLab lab;
  const std::string base = "/experiments/storm?mode=adr0005&scenario=provider_down&clients=2&requests=4&";
  struct Bad {
    const char* given;
    const char* named;
  };
  for (const auto& [given, named] : {Bad{"circuit_breaker=maybe", "circuit_breaker"}, Bad{"retry_budget_ratio=2", "retry_budget_ratio"},
                                     Bad{"retry_budget_min_per_s=-1", "retry_budget_min_per_s"}, Bad{"max_attempts=0", "max_attempts"},
                                     Bad{"deadline_ms=5", "deadline_ms"}, Bad{"idempotency_key=twice", "idempotency_key"},
                                     Bad{"jitter=wild", "jitter"}, Bad{"layers=4", "layers"}, Bad{"layers=0", "layers"}}) {
    CAPTURE(given);
    const Reply r = lab.request("POST", base + given);
    CHECK(r.status == 400);
    CHECK(r.json["error"] == "invalid_parameter");
    CHECK(r.json["message"].get<std::string>().find(named) != std::string::npos);
  }
  // A JSON body is read the same way: values of any JSON type, checked as the query's.
  httplib::Client client("127.0.0.1", lab.port());
  const auto body = client.Post("/experiments/storm", R"({"mode": "adr0005", "retry_budget_ratio": 1.5})", "application/json");
  REQUIRE(body);
  CHECK(body->status == 400);
  CHECK(nlohmann::json::parse(body->body)["message"] == "retry_budget_ratio must be a number between 0 and 1 (got '1.5')");
  // A field the storm does not know is named as a field of the body, in the asker's language.
  const auto unknown_field = client.Post("/experiments/storm", {{"Accept-Language", "es"}}, R"({"mode": "legacy", "clientes": 5})",
                                         "application/json");
  REQUIRE(unknown_field);
  CHECK(unknown_field->status == 400);
  CHECK(nlohmann::json::parse(unknown_field->body)["error"] == "unknown_parameter");
  CHECK(nlohmann::json::parse(unknown_field->body)["message"] == "campo desconocido en el cuerpo JSON: 'clientes'");
  // A policy the lab does not serve: every one it does is allowed.
  const Reply unknown = lab.request("POST", "/experiments/storm?mode=adr05");
  CHECK(unknown.status == 400);
  CHECK(unknown.json["allowed"] == nlohmann::json::array({"legacy", "resilient", "adr0005", "throttled", "adaptive_limit", "bulkhead", "hedged", "aws_adaptive"}));
  CHECK(unknown.json["message"] == "there is no policy 'adr05'; did you mean 'adr0005'?");
  CHECK(lab.get("/experiments/storm").json["options"].is_null());  // none of them started a storm

  // ADR-0005 without its breaker against a carrier that never answers: 3 attempts per request.
  const Reply started = lab.request("POST", base + "circuit_breaker=false");
  REQUIRE(started.status == 202);
  CHECK(started.json["options"]["mode"] == "adr0005");
  CHECK(started.json["options"]["params"] == nlohmann::json{{"circuit_breaker", "false"}});
  CHECK(started.json["options"]["layers"] == 1);
  Reply done;
  REQUIRE(eventually([&] { return (done = lab.get("/experiments/storm")).json["running"] == false; }, std::chrono::seconds(60),
                     std::chrono::milliseconds(100)));
  const auto& result = done.json["last_result"];
  CHECK(result["mode"] == "adr0005");
  CHECK(result["params"] == nlohmann::json{{"circuit_breaker", "false"}});
  CHECK(result["requests"] == 4);
  CHECK(result["status_counts"] == nlohmann::json{{"degraded", 4}});  // fail soft: the fallback answers
  CHECK(result["carrier_calls"] == 12);
  CHECK(result["amplification"] == 3.0);
}

TEST_CASE("POST /experiments/storm?rate=R starts an open-loop storm: its options and its result say so") {
  InProcessLab lab;
  const Reply started =
      lab.request("POST", "/experiments/storm?mode=resilient&scenario=ok&rate=20&arrivals=uniform&duration_s=1&sheddable_share=0.5");
  REQUIRE(started.status == 202);
  const auto& options = started.json["options"];
  CHECK(options["load_model"] == "open");
  CHECK(options["rate_per_s"] == 20.0);
  CHECK(options["arrivals"] == "uniform");
  CHECK(options["max_in_flight"] == 100);  // the default
  CHECK(options["clients"].is_null());
  CHECK(options["sheddable_share"] == 0.5);
  Reply done;
  REQUIRE(eventually([&] { return (done = lab.get("/experiments/storm")).json["running"] == false; }, std::chrono::seconds(20),
                     std::chrono::milliseconds(50)));
  const auto& result = done.json["last_result"];
  CHECK(result["load_model"] == "open");
  CHECK(result["arrivals"] == 20);  // uniform: 0, 50 ms, ..., 950 ms
  CHECK(result["arrivals_not_sent"] == 0);
  CHECK(result["goodput"] == 20);  // ok answers in 115-150 ms: every one a live quote in time
  CHECK(result["by_priority"]["sheddable"]["arrivals"] == 10);
  REQUIRE(result["timeline"].size() == 1);
  CHECK(result["timeline"][0]["useful"] == 20);
  CHECK(result["timeline"][0]["carrier_calls"].is_number());  // the lab's own /metrics, read on each second
}

TEST_CASE("POST /experiments/storm?sweep= runs a goodput sweep: GET shows each point as it is measured") {
  InProcessLab lab;
  // Without duration_s each step gets an even share of the minute, 10 s at most.
  const Reply long_one = lab.request("POST", "/experiments/storm?mode=legacy&scenario=ok&sweep=5,10,15,20,25,30,35,40");
  REQUIRE(long_one.status == 202);
  CHECK(long_one.json["options"]["duration_s"] == 7.0);  // 60 s ÷ 8 steps, whole seconds
  CHECK(long_one.json["sweep"]["rates_per_s"] == nlohmann::json{5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0, 40.0});
  REQUIRE(lab.request("DELETE", "/experiments/storm").status == 200);
  Reply done;
  REQUIRE(eventually([&] { return (done = lab.get("/experiments/storm")).json["running"] == false; }, std::chrono::seconds(20),
                     std::chrono::milliseconds(50)));
  CHECK(done.json["sweep"]["points"].empty());  // cancelled during its first step: no point from part of one
  CHECK(done.json["sweep"]["state"] == "cancelled");

  // A JSON body's list works as the query's.
  httplib::Client client("127.0.0.1", lab.port());
  const auto started = client.Post("/experiments/storm",
                                   R"({"mode": "resilient", "scenario": "ok", "sweep": [10, 20], "duration_s": 1, "arrivals": "uniform"})",
                                   "application/json");
  REQUIRE(started);
  REQUIRE(started->status == 202);
  REQUIRE(eventually([&] { return (done = lab.get("/experiments/storm")).json["running"] == false; }, std::chrono::seconds(20),
                     std::chrono::milliseconds(50)));
  const auto& points = done.json["sweep"]["points"];
  REQUIRE(points.size() == 2);
  CHECK(points[0]["rate_per_s"] == 10.0);
  CHECK(points[1]["rate_per_s"] == 20.0);
  // ok answers in 115-150 ms: every arrival a live quote in time, one carrier call each.
  CHECK(points[1]["goodput_rps"] == points[1]["offered_rps"]);
  CHECK(points[1]["goodput_live_rps"] == points[1]["offered_rps"]);
  CHECK(points[1]["amplification"] == 1.0);
  CHECK(done.json["last_result"]["arrivals"] == 20);
}

}  // namespace test_lab_routes
