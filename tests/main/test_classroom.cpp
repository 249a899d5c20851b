// One lab, a whole class: what a careless or hostile student can send must
// neither slow the lab down nor change it. Each case runs a real `quote-lab serve`: framing,
// slow and huge heads, bounds, storms, live streams. The access rules (token, Origin, Host,
// headers) and the student labs' answers are checked in-process in test_classroom_routes.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "lab/main/classroom.hpp"
#include "support/lab_process.hpp"
#include "support/raw_socket.hpp"
#include "support/paths.hpp"

namespace test_classroom {

using namespace std::chrono_literals;
using quote_lab::testing::eventually;
using quote_lab::testing::LabProcess;
using quote_lab::testing::RawConnection;

namespace {

int count_answers(const std::string& replies) {
  int n = 0;
  for (auto at = replies.find("HTTP/1.1 "); at != std::string::npos; at = replies.find("HTTP/1.1 ", at + 1)) ++n;
  return n;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

TEST_CASE("problem 7: malformed framing is refused before any handler runs, and the lab is unchanged") {
  LabProcess lab;
  const std::string target = "POST /carrier/mode?mode=provider_down HTTP/1.1\r\n";
  struct Row {
    const char* what;
    std::string request;
  };
  const Row rows[] = {
      {"Content-Length: abc", target + "Host: 127.0.0.1\r\nContent-Length: abc\r\n\r\n"},
      {"Content-Length: -1", target + "Host: 127.0.0.1\r\nContent-Length: -1\r\n\r\n"},
      {"two Content-Length values", target + "Host: 127.0.0.1\r\nContent-Length: 2\r\nContent-Length: 0\r\n\r\n{}"},
      {"Transfer-Encoding: gzip", target + "Host: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n\r\n"},
      {"chunked and Content-Length", target + "Host: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n"},
      {"broken chunk size", target + "Host: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"},
      {"HTTP/1.1 without Host", target + "Content-Length: 0\r\n\r\n"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.what);
    RawConnection c(lab.port());
    REQUIRE(c.send(row.request));
    const std::string reply = c.receive(2000ms);
    const int status = RawConnection::status_of(reply);
    CHECK(status >= 400);
    CHECK(status < 500);
    CHECK(reply.find("\"error\"") != std::string::npos);
    CHECK(lab.get("/carrier").json.value("mode", "") == "ok");
  }
  // A body shorter than its length, the client then gone: no request to act on, no change.
  // The query alone would set the mode if a handler ran. The server closing its end says it
  // is done with the connection, so the check below comes after anything it could have done.
  {
    RawConnection c(lab.port());
    REQUIRE(c.send(target + "Host: 127.0.0.1\r\nContent-Length: 40\r\n\r\n{\"mode\":\"down\"}"));
    c.shutdown_write();
    CHECK(c.closed_by_server(5s));
  }
  CHECK(lab.get("/carrier").json.value("mode", "") == "ok");
}

TEST_CASE("problem 7: three pipelined requests get three answers, in order") {
  LabProcess lab;
  RawConnection c(lab.port());
  const std::string one = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  c.send(one + "GET /carrier HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" +
         "GET /incidents HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  const std::string replies = c.receive(2000ms);
  CHECK(count_answers(replies) == 3);
  const auto health = replies.find("\"service\"");
  const auto carrier = replies.find("\"embedded\"");
  const auto incidents = replies.find("\"incidents\"");
  CHECK(health < carrier);
  CHECK(carrier < incidents);
  CHECK(incidents != std::string::npos);
}

TEST_CASE("problem 3: a 1 MB request head is refused, the connection closed") {
  LabProcess lab;
  RawConnection c(lab.port());
  std::string head = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  const std::string line = "X-Padding: " + std::string(1000, 'a') + "\r\n";
  while (head.size() < 1024 * 1024) head += line;
  c.send(head + "\r\n");  // the lab may close before it has read everything
  const std::string reply = c.receive(2000ms);
  const int status = RawConnection::status_of(reply);
  CHECK(status >= 400);
  CHECK(status < 500);
  CHECK(c.closed_by_server(2s));
  CHECK(lab.get("/health").status == 200);
}

TEST_CASE("problem 2: 60 slow request heads neither slow /health nor outlive the head bound") {
  LabProcess lab;
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < 60; ++i) {
    slow.push_back(std::make_unique<RawConnection>(lab.port()));
    slow.back()->send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  }
  const auto started = std::chrono::steady_clock::now();
  std::vector<double> health_ms;
  // A header line every 400 ms keeps every per-read timeout happy; only a bound on the
  // whole head (3 s by default) ends them.
  while (std::chrono::steady_clock::now() - started < 6s) {
    for (auto& c : slow) c->send("X-Slow: 1\r\n");
    const auto r = lab.get("/health");
    health_ms.push_back(r.status == 200 ? r.elapsed_ms : 99999);
    std::this_thread::sleep_for(400ms);
  }
  CHECK(median(health_ms) < 1000);
  int closed = 0;
  for (auto& c : slow) {
    const bool gone = c->closed_by_server(1s);
    if (!gone) MESSAGE("open: index ", &c - slow.data(), " connected ", c->connected(), " got '", c->receive(100ms), "'");
    closed += gone ? 1 : 0;
  }
  CHECK(closed == 60);
}

// The refusal's answer (400 quote_too_long naming the bound) is checked in-process
// (test_classroom_routes.cpp); here, that 16 at once leave /health fast on a real lab.
TEST_CASE("problem 4: 16 heavy-override quotes at once leave /health fast") {
  LabProcess lab;
  std::vector<std::thread> curls;
  for (int i = 0; i < 16; ++i)
    curls.emplace_back([&lab] { lab.get("/quote-legacy?scenario=down&timeout_ms=5000&max_attempts=10"); });
  std::this_thread::sleep_for(200ms);  // the 16 are in (or already refused)
  std::vector<double> health_ms;
  for (int i = 0; i < 5; ++i) {
    const auto r = lab.get("/health");
    health_ms.push_back(r.status == 200 ? r.elapsed_ms : 99999);
  }
  for (auto& t : curls) t.join();
  CHECK(median(health_ms) < 1000);
  // What the lesson needs still runs: a long single attempt within the bound.
  CHECK(lab.get("/quote-legacy?scenario=ok&timeout_ms=1000&max_attempts=4").status == 200);
}

TEST_CASE("problem 5: a huge storm from the lab stops within 5 s of DELETE /experiments/storm, or of /reset-lab") {
  LabProcess lab;
  for (const std::string how : {"DELETE", "reset"}) {
    CAPTURE(how);
    const auto started = lab.request("POST", "/experiments/storm?mode=resilient&scenario=ok&clients=4&requests=100000");
    REQUIRE(started.status == 202);
    CHECK(lab.get("/experiments/storm").json.value("running", false));
    const auto t0 = std::chrono::steady_clock::now();
    const auto stop = how == "DELETE" ? lab.request("DELETE", "/experiments/storm") : lab.get("/reset-lab");
    CHECK(stop.status == 200);
    bool running = true;
    while (running && std::chrono::steady_clock::now() - t0 < 5s) {
      running = lab.get("/experiments/storm").json.value("running", true);
      if (running) std::this_thread::sleep_for(50ms);
    }
    CHECK_FALSE(running);
  }
}

TEST_CASE("problem 1: 30 open dashboards leave the teacher's ok quote under 300 ms (p50)") {
  LabProcess lab;
  std::atomic<bool> done{false};
  std::vector<std::unique_ptr<RawConnection>> streams;
  std::vector<std::thread> pages;
  for (int i = 0; i < 30; ++i) {
    streams.push_back(std::make_unique<RawConnection>(lab.port()));
    streams.back()->send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n");
    // Two keep-alive connections per page, each refreshing every 0.5 s.
    for (const char* path : {"/dependency/state", "/incidents?limit=10"})
      pages.emplace_back([&lab, &done, path] {
        httplib::Client client("127.0.0.1", lab.port());
        client.set_tcp_nodelay(true);
        client.set_keep_alive(true);
        while (!done) {
          client.Get(path);
          for (int t = 0; t < 5 && !done; ++t) std::this_thread::sleep_for(100ms);
        }
      });
  }
  std::this_thread::sleep_for(500ms);
  std::vector<double> quote_ms;
  for (int i = 0; i < 8; ++i) {
    const auto r = lab.get("/quote-resilient?scenario=ok");
    quote_ms.push_back(r.status == 200 ? r.elapsed_ms : 99999);
    for (auto& s : streams) s->receive(1ms, 5ms);  // a page reads its stream
  }
  done = true;
  for (auto& t : pages) t.join();
  CHECK(median(quote_ms) < 300);
}

TEST_CASE("problem 8: a closed page frees its live-stream slot within a second") {
  LabProcess lab;  // 32 live dashboards by default
  std::vector<std::unique_ptr<RawConnection>> streams;
  const auto open_stream = [&lab] {
    auto c = std::make_unique<RawConnection>(lab.port());
    c->send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n");
    return c;
  };
  for (int i = 0; i < 32; ++i) {
    streams.push_back(open_stream());
    REQUIRE(RawConnection::status_of(streams.back()->receive(300ms)) == 200);
  }
  CHECK(RawConnection::status_of(open_stream()->receive(300ms)) == 503);
  streams.back().reset();  // the page closes, right after its stream said "connected"
  const auto closed_at = std::chrono::steady_clock::now();
  int status = 0;
  while (status != 200 && std::chrono::steady_clock::now() - closed_at < 1s) {
    status = RawConnection::status_of(open_stream()->receive(200ms));
    if (status != 200) std::this_thread::sleep_for(50ms);
  }
  CHECK(status == 200);
}

TEST_CASE("keep-alive as clients expect: one connection serves many requests, both bounds are flags") {
  SUBCASE("defaults: 5 s idle, 1000 requests, announced in every answer") {
    LabProcess lab;
    RawConnection c(lab.port());
    // Twelve requests one after another on one connection (cpp-httplib's default closes after 5).
    std::string replies;
    for (int i = 0; i < 12; ++i) {
      REQUIRE(c.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
      replies += c.receive(300ms);
    }
    CHECK(count_answers(replies) == 12);
    CHECK(replies.find("Keep-Alive: timeout=5, max=1000") != std::string::npos);
    CHECK(replies.find("Connection: close") == std::string::npos);
  }
  SUBCASE("--keep-alive-max-requests 3 closes after the third answer") {
    LabProcess lab({"--keep-alive-max-requests", "3", "--keep-alive-timeout-s", "1"});
    RawConnection c(lab.port());
    const std::string one = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    c.send(one + one + one + one);
    const std::string replies = c.receive(2000ms);
    CHECK(count_answers(replies) == 3);
    CHECK(replies.find("Keep-Alive: timeout=1, max=3") != std::string::npos);
  }
}

TEST_CASE("student labs: at most 4 student storms run at once, class-wide, the teacher's is never refused") {
  LabProcess lab({"--admin-token", "t0ken"});
  const httplib::Headers teacher{{"Authorization", "Bearer t0ken"}};
  const std::string storm = "/experiments/storm?mode=resilient&scenario=ok&clients=1&duration_s=30&lab=";
  // Each student claims their name at step 0; their storms and later changes send its key.
  std::map<std::string, httplib::Headers> key;
  for (const char* name : {"s1", "s2", "s3", "s4", "s5"}) {
    const auto claimed = lab.request("POST", std::string("/claim?name=") + name);
    REQUIRE(claimed.status == 201);
    key[name] = {{"X-Lab-Key", claimed.json.value("lab_key", "")}};
  }
  for (const char* name : {"s1", "s2", "s3", "s4"}) CHECK(lab.request("POST", storm + name, key[name]).status == 202);
  const auto fifth = lab.request("POST", storm + "s5", key["s5"]);
  CHECK(fifth.status == 429);
  CHECK(fifth.json["error"] == "class_storms_busy");
  CHECK(lab.request("POST", storm + "s1", key["s1"]).status == 409);  // one's own second storm: busy, as before
  CHECK(lab.request("POST", "/experiments/storm?mode=resilient&scenario=ok&clients=1&duration_s=30", teacher).status == 202);
  // The teacher's named labs count toward no student cap (the kit's profe-paso5), and a storm
  // the teacher starts with the token in a student's lab is admitted too.
  CHECK(lab.request("POST", storm + "profe-paso5", teacher).status == 202);
  CHECK(lab.request("POST", storm + "s5", teacher).status == 202);
  CHECK(lab.request("DELETE", "/experiments/storm?lab=s5", teacher).status == 200);
  REQUIRE(eventually([&] { return lab.get("/experiments/storm?lab=s5").json["running"] == false; }, 10s));
  CHECK(lab.request("POST", storm + "s5", key["s5"]).status == 429);  // still full for the students
  CHECK(lab.request("DELETE", "/experiments/storm?lab=s2", key["s2"]).status == 200);
  // A cancelled storm frees its class-wide place once its clients have stopped: wait for that
  // (the status it reports), then the fifth student's storm is accepted at the first try.
  REQUIRE(eventually([&] { return lab.get("/experiments/storm?lab=s2").json["running"] == false; }, 10s));
  CHECK(lab.request("POST", storm + "s5", key["s5"]).status == 202);
  for (const char* name : {"s1", "s3", "s4", "s5"})
    lab.request("DELETE", std::string("/experiments/storm?lab=") + name, key[name]);
  lab.request("DELETE", "/experiments/storm?lab=profe-paso5", teacher);
  lab.request("DELETE", "/experiments/storm", teacher);
}

}  // namespace test_classroom
