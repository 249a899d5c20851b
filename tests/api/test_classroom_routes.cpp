// One lab, a whole class, in-process (support/in_process_lab.hpp): the classroom's access
// rules (lab/main/classroom.hpp) in front of the real route table, and the student labs
// (?lab=NAME) over HTTP, each answer as a real `quote-lab serve` gives it. What needs a real
// process (slow heads, connection bounds, storms, live streams, starvation) stays in
// test_classroom.cpp.
#include <doctest/doctest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "support/in_process_lab.hpp"
#include "support/poll.hpp"
#include "support/raw_socket.hpp"

namespace test_classroom_routes {

using quote_lab::testing::InProcessLab;
using quote_lab::testing::InProcessOptions;
using quote_lab::testing::RawConnection;
using quote_lab::testing::Reply;

namespace {

std::string header_of(const std::string& reply, const std::string& name) {
  const std::regex line("\r\n" + name + ": ([^\r]*)\r\n", std::regex::icase);
  std::smatch m;
  return std::regex_search(reply, m, line) ? m[1].str() : std::string();
}

std::string file_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// `serve --admin-token TOKEN`.
InProcessOptions with_token(const std::string& token) {
  InProcessOptions o;
  o.classroom.admin_token = token;
  return o;
}

// `serve --allowed-hosts a,b`.
InProcessOptions with_hosts(std::vector<std::string> hosts) {
  InProcessOptions o;
  o.classroom.allowed_hosts = std::move(hosts);
  return o;
}

// `serve --max-labs N`.
InProcessOptions with_max_labs(int n) {
  InProcessOptions o;
  o.classroom.max_labs = n;
  return o;
}

struct Call {
  const char* method;
  const char* path;
};
// Every route that changes the lab for everyone.
const Call kChangingRoutes[] = {
    {"GET", "/reset-lab"},
    {"POST", "/reset-lab"},
    {"POST", "/carrier/mode?mode=ok"},
    {"PUT", "/carrier/mode?mode=ok"},
    {"POST", "/experiments/storm?mode=resilient&scenario=ok&clients=1&duration_s=1"},
    {"DELETE", "/experiments/storm"},
    {"POST", "/class/reset"},
    {"POST", "/class/carrier-mode?mode=ok"},
    {"PUT", "/class/carrier-mode?mode=ok"},
};

// The X-Admin-Token header of GET `path` with the extra request header lines `extra`:
// what the page reads to know whether to ask for the token, without trying a change.
std::string admin_token_header(int port, const std::string& path, const std::string& extra = "") {
  RawConnection c(port);
  c.send("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra + "Connection: close\r\n\r\n");
  return header_of(c.receive(), "X-Admin-Token");
}

}  // namespace

TEST_CASE("problem 9: every answer says nosniff, and the page may be framed only by the lab itself") {
  InProcessLab lab;
  const auto page = [&] {
    RawConnection c(lab.port());
    c.send("GET /ui/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    return c.receive();
  }();
  CHECK(RawConnection::status_of(page) == 200);
  CHECK(header_of(page, "X-Content-Type-Options") == "nosniff");
  const std::string csp = header_of(page, "Content-Security-Policy");
  CHECK(csp.find("frame-ancestors 'self'") != std::string::npos);
  CHECK(csp.find("script-src 'self'") != std::string::npos);

  RawConnection api(lab.port());
  api.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  CHECK(header_of(api.receive(), "X-Content-Type-Options") == "nosniff");

  // The CSP allows no inline script: the page must need none (no <script> without src,
  // no on...= handler attributes).
  const std::string html = file_text(std::filesystem::path(quote_lab::testing::source_dir()) / "public" / "index.html");
  CHECK_FALSE(std::regex_search(html, std::regex("<script(?![^>]*\\bsrc=)[^>]*>", std::regex::icase)));
  CHECK_FALSE(std::regex_search(html, std::regex("\\son[a-z]+\\s*=", std::regex::icase)));
}

TEST_CASE("problem 4: a heavy-override quote is refused naming the bound") {
  InProcessLab lab;
  const auto heavy = lab.get("/quote-legacy?scenario=down&timeout_ms=5000&max_attempts=10");
  CHECK(heavy.status == 400);
  CHECK(heavy.json.value("error", "") == "quote_too_long");
  CHECK(heavy.json.value("message", "").find("5000 ms") != std::string::npos);
}

TEST_CASE("problem 6: with a teacher token every route that changes the lab needs it, quotes and reads never do") {
  InProcessLab lab(with_token("s3cret"));
  for (const auto& call : kChangingRoutes) {
    CAPTURE(call.method);
    CAPTURE(call.path);
    const auto none = lab.request(call.method, call.path);
    CHECK(none.status == 401);
    CHECK(none.json.value("error", "") == "admin_token_required");
    CHECK(none.json.value("message", "").find("Authorization: Bearer") != std::string::npos);
    const auto wrong = lab.request(call.method, call.path, {{"Authorization", "Bearer s3cre"}});
    CHECK(wrong.status == 401);
    CHECK(wrong.json.value("error", "") == "wrong_teacher_token");
    CHECK(wrong.json.value("message", "").find("LAB_ADMIN_TOKEN") != std::string::npos);
    const auto ok = lab.request(call.method, call.path, {{"Authorization", "Bearer s3cret"}});
    CHECK(ok.status >= 200);
    CHECK(ok.status < 300);
  }
  for (const char* read : {"/health", "/quote-resilient?scenario=ok", "/dependency/state", "/incidents", "/metrics", "/"})
    CHECK(lab.get(read).status == 200);
  CHECK(admin_token_header(lab.port(), "/carrier") == "required");
  CHECK(admin_token_header(lab.port(), "/carrier", "Authorization: Bearer nope\r\n") == "required");
  CHECK(admin_token_header(lab.port(), "/carrier", "Authorization: Bearer s3cret\r\n") == "accepted");
}

TEST_CASE("problem 6: without a token curl works as before, but another site's page cannot change the lab") {
  InProcessLab lab;
  for (const auto& call : kChangingRoutes) {
    CAPTURE(call.method);
    CAPTURE(call.path);
    CHECK(lab.request(call.method, call.path).status < 300);  // the course's curl lines
    const auto img = lab.request(call.method, call.path, {{"Sec-Fetch-Site", "cross-site"}});
    CHECK(img.status == 403);
    CHECK(img.json.value("error", "") == "cross_site_request");
    CHECK(lab.request(call.method, call.path, {{"Origin", "http://evil.example"}}).status == 403);
  }
  CHECK(lab.request("POST", "/carrier/mode?mode=provider_down", {{"Origin", "http://evil.example"}}).status == 403);
  CHECK(lab.get("/carrier").json.value("mode", "") == "ok");
  const std::string self = "http://127.0.0.1:" + std::to_string(lab.port());
  CHECK(lab.request("POST", "/carrier/mode?mode=provider_down", {{"Origin", self}, {"Sec-Fetch-Site", "same-origin"}}).status == 200);
  CHECK(lab.get("/carrier").json.value("mode", "") == "provider_down");
  lab.get("/reset-lab");
}

TEST_CASE("problem 6: a Host the lab does not answer to is refused (DNS rebinding), --allowed-hosts adds names") {
  InProcessLab lab(with_hosts({"lab", "classroom.local"}));
  CHECK(lab.get("/health", {{"Host", "localhost:8080"}}).status == 200);
  CHECK(lab.get("/health", {{"Host", "lab:8080"}}).status == 200);
  CHECK(lab.get("/health", {{"Host", "classroom.local"}}).status == 200);
  const auto rebound = lab.get("/dependency/state", {{"Host", "rebound.evil.example"}});
  CHECK(rebound.status == 403);
  CHECK(rebound.json.value("error", "") == "host_not_allowed");
  CHECK(lab.get("/reset-lab", {{"Host", "rebound.evil.example"}}).status == 403);
}

// A lab per student. What one student does in their lab (?lab=NAME) reaches
// neither the teacher's projected lab nor another student's.
TEST_CASE("student labs: a student resets and breaks their own lab without the token, the teacher's lab is unchanged") {
  InProcessLab lab(with_token("s3cret"));
  const httplib::Headers teacher{{"Authorization", "Bearer s3cret"}};
  REQUIRE(lab.get("/quote-resilient?scenario=ok").status == 200);  // the teacher's lab: one incident
  // The student's claim, carrier mode, quote and reset need no token (her key, which her
  // claim's answer carries: test_lab_keys.cpp) ...
  const auto claimed = lab.request("POST", "/claim?name=ana");
  REQUIRE(claimed.status == 201);
  const httplib::Headers ana{{"X-Lab-Key", claimed.json.value("lab_key", "")}};
  CHECK(lab.request("PUT", "/carrier/mode?mode=provider_down&lab=ana", ana).status == 200);
  const auto down = lab.get("/quote-resilient?lab=ana", ana);
  CHECK(down.json["scenario"] == "provider_down");
  CHECK(down.json["dependency"]["circuit_status"] == "open");
  CHECK(lab.get("/dependency/state?lab=ana").json["circuit_status"] == "open");
  CHECK(lab.get("/incidents?lab=Ana").json["incidents"].size() == 1);  // names fold to lower case
  CHECK(lab.request("POST", "/reset-lab?lab=ana", ana).status == 200);
  CHECK(lab.get("/incidents?lab=ana").json["incidents"].empty());
  CHECK(lab.request("POST", "/experiments/storm?lab=ana&mode=resilient&scenario=ok&clients=1&requests=1", ana).status == 202);
  // ... while the teacher's still does.
  CHECK(lab.request("POST", "/reset-lab").status == 401);
  CHECK(lab.request("PUT", "/carrier/mode?mode=slow").status == 401);
  // The teacher's lab saw none of it: breaker closed, its one incident, carrier mode ok.
  CHECK(lab.get("/dependency/state").json["circuit_status"] == "closed");
  const auto incidents = lab.get("/incidents").json["incidents"];
  REQUIRE(incidents.size() == 1);
  CHECK(incidents[0]["scenario"] == "ok");
  CHECK(lab.get("/carrier").json["mode"] == "ok");
  const auto next = lab.get("/quote-resilient");
  CHECK(next.json["status"] == "completed");
  CHECK(next.json["attempts"] == 1);
  // The page learns it may show every control of a student's lab: no X-Admin-Token there.
  CHECK(admin_token_header(lab.port(), "/carrier") == "required");
  CHECK(admin_token_header(lab.port(), "/carrier?lab=ana") == "");
  // Another site's page still cannot change a student's lab, even with her key, nor claim a name.
  const auto cross = lab.request("POST", "/reset-lab?lab=ana", {{"Origin", "http://evil.example"}, *ana.begin()});
  CHECK(cross.status == 403);
  CHECK(cross.json["error"] == "cross_site_request");
  const auto cross_claim = lab.request("POST", "/claim?name=bruno", {{"Origin", "http://evil.example"}});
  CHECK(cross_claim.status == 403);
  CHECK(cross_claim.json["error"] == "cross_site_request");
  CHECK(lab.request("POST", "/reset-lab", teacher).status == 200);
}

TEST_CASE("student labs: ?lab= on every route, a bad name is a 400, one lab past --max-labs a 503") {
  InProcessLab lab(with_max_labs(2));
  for (const char* path : {"/dependency/state?lab=ana", "/incidents?lab=ana&limit=5", "/diagnostics/summary?lab=ana",
                           "/metrics?lab=ana", "/metrics-prometheus?lab=ana", "/carrier?lab=Bruno",
                           "/experiments/storm?lab=ana", "/health?lab=ana", "/quote-legacy?lab=ana&scenario=ok"}) {
    CAPTURE(path);
    CHECK(lab.get(path).status == 200);
  }
  for (const char* bad : {"/dependency/state?lab=ana%20b", "/incidents?lab=", "/quote-legacy?lab=a_b",
                          "/carrier?lab=ana&lab=bruno"}) {
    CAPTURE(bad);
    const auto r = lab.get(bad);
    CHECK(r.status == 400);
    CHECK(r.json.value("message", "").find("lab") != std::string::npos);
  }
  const auto full = lab.get("/quote-legacy?lab=carla&scenario=ok");
  CHECK(full.status == 503);
  CHECK(full.json["error"] == "too_many_labs");
  CHECK(lab.get("/quote-legacy?scenario=ok").status == 200);  // the teacher's lab is never refused
  // The class view lists both labs, for curl as JSON and for a browser as a page.
  const auto view = lab.get("/class");
  CHECK(view.content_type.find("application/json") == 0);
  REQUIRE(view.json["labs"].size() == 2);
  CHECK(view.json["labs"][0]["name"] == "ana");  // 1 call per request; bruno made none
  CHECK(view.json["labs"][0]["carrier_calls_per_request"] == 1.0);
  CHECK(view.json["labs"][1]["name"] == "bruno");
  CHECK(view.json["labs"][1]["carrier_calls_per_request"].is_null());
  CHECK(lab.get("/class", {{"Accept", "text/html"}}).content_type.find("text/html") == 0);
}

TEST_CASE("student labs: the teacher resets, or sets the carrier mode of, every student lab at once, a ?lab= is no token") {
  InProcessLab lab(with_token("s3cret"));
  const httplib::Headers teacher{{"Authorization", "Bearer s3cret"}};
  REQUIRE(lab.get("/quote-resilient?scenario=ok").status == 200);  // the teacher's lab: one incident
  REQUIRE(lab.request("PUT", "/carrier/mode?mode=provider_down&lab=ana").status == 200);
  REQUIRE(lab.get("/quote-resilient?lab=ana").json["dependency"]["circuit_status"] == "open");
  REQUIRE(lab.get("/quote-legacy?scenario=ok&lab=bruno").status == 200);

  // Without the token: 401, in the reader's language; naming a lab does not stand in for it.
  const auto refused = lab.request("POST", "/class/reset");
  CHECK(refused.status == 401);
  CHECK(refused.json["error"] == "admin_token_required");
  const auto refused_es = lab.request("POST", "/class/reset", {{"Accept-Language", "es"}});
  CHECK(refused_es.json["error"] == "admin_token_required");
  CHECK(refused_es.json["message"].get<std::string>().find("token del docente") != std::string::npos);
  CHECK(lab.request("POST", "/class/reset?lab=ana").status == 401);
  CHECK(lab.request("PUT", "/class/carrier-mode?mode=ok&lab=ana").status == 401);
  // With it, a ?lab= is refused: a class-wide route acts on no single lab.
  const auto named = lab.request("POST", "/class/reset?lab=ana", teacher);
  CHECK(named.status == 400);
  CHECK(named.json["error"] == "invalid_parameter");
  CHECK(lab.get("/dependency/state?lab=ana").json["circuit_status"] == "open");  // nothing ran

  const auto reset = lab.request("POST", "/class/reset", teacher);
  CHECK(reset.status == 200);
  CHECK(reset.json["labs"] == nlohmann::ordered_json::array({"ana", "bruno"}));
  CHECK(reset.json["count"] == 2);
  CHECK(lab.get("/dependency/state?lab=ana").json["circuit_status"] == "closed");
  CHECK(lab.get("/carrier?lab=ana").json["mode"] == "ok");
  CHECK(lab.get("/incidents?lab=ana").json["incidents"].empty());
  CHECK(lab.get("/incidents?lab=bruno").json["incidents"].empty());
  CHECK(lab.get("/incidents").json["incidents"].size() == 1);  // the teacher's lab is left alone

  // Every student lab's carrier mode at once (aliases and any case name the canonical mode).
  const auto mode = lab.request("PUT", "/class/carrier-mode?mode=Slow", teacher);
  CHECK(mode.status == 200);
  CHECK(mode.json["mode"] == "slow_provider");
  CHECK(mode.json["count"] == 2);
  CHECK(lab.get("/carrier?lab=ana").json["mode"] == "slow_provider");
  CHECK(lab.get("/carrier?lab=bruno").json["mode"] == "slow_provider");
  CHECK(lab.get("/carrier").json["mode"] == "ok");
  const auto typo = lab.request("POST", "/class/carrier-mode?mode=provder_down", teacher);
  CHECK(typo.status == 400);
  CHECK(typo.json["error"] == "unknown_scenario");
  CHECK(typo.json["message"].get<std::string>().find("did you mean 'provider_down'?") != std::string::npos);
  const auto missing = lab.request("POST", "/class/carrier-mode", teacher);
  CHECK(missing.status == 400);
  CHECK(missing.json["error"] == "unknown_scenario");
  CHECK(lab.get("/carrier?lab=ana").json["mode"] == "slow_provider");  // refused changes change nothing
  // The class page offers the modes by their canonical names.
  CHECK(lab.get("/class").json["carrier_modes"][0] == "ok");
}

TEST_CASE("student labs: without a teacher token the class-wide actions answer anyone on the lab's own page or curl") {
  InProcessLab lab;
  REQUIRE(lab.get("/quote-resilient?scenario=provider_down&lab=ana").status == 200);
  CHECK(lab.request("POST", "/class/reset", {{"Origin", "http://evil.example"}}).status == 403);
  CHECK(lab.get("/dependency/state?lab=ana").json["circuit_status"] == "open");
  const auto reset = lab.request("POST", "/class/reset");
  CHECK(reset.status == 200);
  CHECK(reset.json["count"] == 1);
  CHECK(lab.get("/dependency/state?lab=ana").json["circuit_status"] == "closed");
}

// The teacher's labs (`--teacher-name`, profe by default: ?lab=profe, ?lab=profe-paso1) are
// the teacher's demos in front of the class: no student limit counts them, and the class-wide
// actions leave them alone.
TEST_CASE("the teacher's labs: profe-... labs count toward no --max-labs, and /class and its actions leave them alone") {
  InProcessLab lab(with_max_labs(2));
  CHECK(lab.get("/quote-legacy?scenario=ok&lab=ana").status == 200);
  CHECK(lab.get("/quote-legacy?scenario=ok&lab=bruno").status == 200);
  const auto full = lab.get("/quote-legacy?scenario=ok&lab=carla");
  CHECK(full.status == 503);
  CHECK(full.json["error"] == "too_many_labs");
  // With two student labs held, the teacher's labs are still created.
  for (const char* name : {"profe-paso1", "profe-x", "profe"}) {
    CAPTURE(name);
    CHECK(lab.get(std::string("/quote-legacy?scenario=ok&lab=") + name).status == 200);
  }
  // "profesor" is not profe's: a student's lab, one too many.
  CHECK(lab.get("/quote-legacy?scenario=ok&lab=profesor").status == 503);
  const auto view = lab.get("/class");
  REQUIRE(view.json["labs"].size() == 2);
  CHECK(view.json["labs"][0]["name"] == "ana");
  CHECK(view.json["labs"][1]["name"] == "bruno");
  CHECK(view.json["count"] == 2);
  REQUIRE(view.json["students"].size() == 2);  // nor is profe a student of the leaderboard
  CHECK(view.json["students"][0]["name"] == "ana");
  CHECK(view.json["students"][1]["name"] == "bruno");

  // The class-wide reset and carrier mode act on the students' labs alone.
  REQUIRE(lab.request("PUT", "/carrier/mode?mode=slow&lab=profe-paso1").status == 200);
  REQUIRE(lab.get("/quote-resilient?scenario=provider_down&lab=profe-paso1").json["dependency"]["circuit_status"] == "open");
  REQUIRE(lab.request("PUT", "/carrier/mode?mode=slow&lab=ana").status == 200);
  const auto reset = lab.request("POST", "/class/reset");
  CHECK(reset.status == 200);
  CHECK(reset.json["labs"] == nlohmann::ordered_json::array({"ana", "bruno"}));
  CHECK(lab.get("/carrier?lab=ana").json["mode"] == "ok");
  CHECK(lab.get("/carrier?lab=profe-paso1").json["mode"] == "slow_provider");
  CHECK(lab.get("/dependency/state?lab=profe-paso1").json["circuit_status"] == "open");
  CHECK(lab.get("/incidents?lab=profe-paso1").json["incidents"].size() == 2);  // its two quotes
  const auto mode = lab.request("PUT", "/class/carrier-mode?mode=provider_down");
  CHECK(mode.status == 200);
  CHECK(mode.json["labs"] == nlohmann::ordered_json::array({"ana", "bruno"}));
  CHECK(lab.get("/carrier?lab=bruno").json["mode"] == "provider_down");
  CHECK(lab.get("/carrier?lab=profe-paso1").json["mode"] == "slow_provider");
  CHECK(lab.get("/carrier?lab=profe").json["mode"] == "ok");
}

TEST_CASE("the teacher's labs: --teacher-name names their owner, and profe is then a student like any other") {
  InProcessOptions o = with_max_labs(1);
  o.classroom.teacher_name = "maestra";
  InProcessLab lab(o);
  CHECK(lab.get("/health?lab=profe-paso1").status == 200);  // a student's lab now: the one allowed
  CHECK(lab.get("/health?lab=ana").status == 503);
  CHECK(lab.get("/health?lab=maestra-paso1").status == 200);
  const auto view = lab.get("/class");
  REQUIRE(view.json["labs"].size() == 1);
  CHECK(view.json["labs"][0]["name"] == "profe-paso1");
}

// Each lab serves at most --workers quotes at once on slots of its own (a bulkhead): a quote
// that holds every slot of one lab, or a storm that does, queues that lab's next quote and
// never another lab's. A held carrier call (support/held_carrier.hpp) keeps the slot taken;
// queue_ms is measured on the lab's fake clock, which only the test moves.
TEST_CASE("student labs: each has its own --workers slots, so a quote held in one lab queues its next quote, never another lab's") {
  InProcessOptions o;
  o.workers = 1;
  InProcessLab lab(o);
  REQUIRE(lab.get("/quote-resilient?scenario=ok&lab=ana").status == 200);
  REQUIRE(lab.get("/quote-resilient?scenario=ok&lab=bruno").status == 200);
  const std::string ana_name = "ana";
  const auto ana = lab.labs().find(&ana_name).lab;
  REQUIRE(ana);

  lab.carrier_gate().hold("ana");
  Reply first, second;
  struct Senders {  // however the case ends, the gate opens and both quotes end first
    InProcessLab& lab;
    std::thread first, second;
    ~Senders() {
      lab.carrier_gate().release();
      if (first.joinable()) first.join();
      if (second.joinable()) second.join();
    }
  } senders{lab, {}, {}};
  senders.first = std::thread([&] { first = lab.get("/quote-resilient?scenario=ok&lab=ana"); });
  // Ana's first quote holds her one slot, at the carrier ...
  REQUIRE(quote_lab::testing::eventually([&] { return lab.carrier_gate().waiting() == 1; }, std::chrono::seconds(10)));
  senders.second = std::thread([&] { second = lab.get("/quote-resilient?scenario=ok&lab=ana"); });
  // ... so her second waits for it.
  REQUIRE(quote_lab::testing::eventually([&] { return ana->slots.waiting() == 1; }, std::chrono::seconds(10)));

  // Bruno's quote, and the teacher's, are served meanwhile, having waited for nothing.
  const Reply bruno = lab.get("/quote-resilient?scenario=ok&lab=bruno");
  CHECK(bruno.status == 200);
  CHECK(bruno.json["queue_ms"] == 0);
  const Reply teacher = lab.get("/quote-resilient?scenario=ok");
  CHECK(teacher.status == 200);
  CHECK(teacher.json["queue_ms"] == 0);
  CHECK(lab.get("/health?lab=bruno").status == 200);
  CHECK(lab.carrier_gate().waiting() == 1);  // ana's first still holds her slot
  CHECK(ana->slots.waiting() == 1);          // and her second still waits

  // Ana's second waits until her first gives its slot back: at least the 250 ms the lab's
  // clock moves meanwhile.
  lab.clock().advance(std::chrono::milliseconds(250));
  lab.carrier_gate().release();
  senders.first.join();
  senders.second.join();
  CHECK(first.status == 200);
  CHECK(first.json["queue_ms"] == 0);
  CHECK(second.status == 200);
  CAPTURE(second.json["queue_ms"]);
  CHECK(second.json["queue_ms"].get<double>() >= 250);
}

}  // namespace test_classroom_routes
