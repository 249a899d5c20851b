// Named policies through a real `quote-lab serve`: a bad policy file, flat or as pipelines,
// stopping start-up. GET /quote/{policy}, its 404, the new overrides and their 400s, and
// storms of a named policy are checked in-process (test_lab_routes.cpp).
#include <doctest/doctest.h>

#include <fstream>
#include <thread>

#include "support/lab_process.hpp"
#include "support/poll.hpp"
#include "support/raw_socket.hpp"
#include "support/temp_dir.hpp"

namespace test_named_policies_http {

using namespace quote_lab::testing;

TEST_CASE("a policy file with an unknown key or a value out of range stops start-up naming the file and the field") {
  TempDir dir;
  const auto file = dir.path() / "policies.json";
  std::ofstream(file) << R"({"strict": {"max_attempts": 3, "retry_on": ["5xx", "418"], "retries": 1}})";
  std::string log;
  try {
    LabProcess lab({"--policies", file.string()});
  } catch (const std::runtime_error& e) {
    log = e.what();  // "quote-lab exited at start: " and its log
  }
  CHECK(log.find(file.string() + ": invalid policies") != std::string::npos);
  CHECK(log.find("strict.retry_on must be a list of: 5xx, 429, timeout, connect_error, 4xx, bad_response") != std::string::npos);
  CHECK(log.find("strict: unknown key 'retries'") != std::string::npos);
}

TEST_CASE("a pipeline with an unknown strategy or a setting out of range stops start-up naming the file, the index and the setting") {
  TempDir dir;
  const auto file = dir.path() / "policies.json";
  std::ofstream(file) << R"({"strict": {"pipeline": [{"strategy": "fallback"}, {"strategy": "retyr"},
                                                      {"strategy": "bulkhead", "max_concurrent": 0},
                                                      {"strategy": "timeout", "timeout_ms": 220}]}})";
  std::string log;
  try {
    LabProcess lab({"--policies", file.string()});
  } catch (const std::runtime_error& e) {
    log = e.what();
  }
  CHECK(log.find(file.string() + ": invalid policies") != std::string::npos);
  CHECK(log.find("strict.pipeline[1]: unknown strategy 'retyr'; did you mean 'retry'?") != std::string::npos);
  CHECK(log.find("strict.pipeline[2] (bulkhead): max_concurrent must be between 1 and 1000 (got 0)") != std::string::npos);
}

}  // namespace test_named_policies_http

namespace test_named_policies_http {

namespace {
bool has_line(LabProcess& lab, const std::string& line) {
  return lab.get("/metrics-prometheus").body.find("\n" + line + "\n") != std::string::npos;
}
}  // namespace

TEST_CASE("a client that hangs up while its quote waits in a bulkhead's queue costs the carrier nothing") {
  using namespace std::chrono_literals;
  TempDir dir;
  const auto file = dir.path() / "policies.json";
  // A user's bulkhead with a queue: one place, one waiting, a 1.5 s attempt on a carrier that hangs.
  std::ofstream(file) << R"({"queued": {"pipeline": [
      {"strategy": "bulkhead", "max_concurrent": 1, "max_queued": 1, "queue_timeout_ms": 5000},
      {"strategy": "retry", "max_attempts": 1}, {"strategy": "timeout", "timeout_ms": 1500}]}})";
  LabProcess lab({"--policies", file.string()});
  const std::string quote = "/quote/queued?scenario=provider_down";
  std::thread inside([&] { lab.get(quote); });
  REQUIRE(eventually([&] { return has_line(lab, R"(quote_lab_bulkhead_active{mode="queued"} 1)"); }, 10s));
  {
    RawConnection queued(lab.port());
    REQUIRE(queued.send("GET " + quote + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    REQUIRE(eventually([&] { return has_line(lab, R"(quote_lab_bulkhead_queued{mode="queued"} 1)"); }, 10s));
  }  // the client closes its socket
  CHECK(eventually([&] { return has_line(lab, R"(quote_lab_quotes_cancelled_total{mode="queued"} 1)"); }, 5s));
  CHECK(has_line(lab, R"(quote_lab_bulkhead_queued{mode="queued"} 0)"));
  inside.join();
  // The place the first quote freed was taken by nobody: one call in all.
  CHECK(lab.get("/carrier").json["stats"]["calls_total"] == 1);
  // The incident says so: the quote made no attempt and was cancelled, the other one was not.
  const auto incidents = lab.get("/incidents").json["incidents"];
  REQUIRE(incidents.size() == 2);
  int cancelled = 0;
  for (const auto& i : incidents) {
    CAPTURE(i.dump());
    if (i["cancelled"] == true) {
      ++cancelled;
      CHECK(i["attempts"] == 0);
    }
  }
  CHECK(cancelled == 1);
}

}  // namespace test_named_policies_http
