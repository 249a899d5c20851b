// Integration on a real `quote-lab serve` with its embedded carrier: what only the
// process shows of the help a student gets for a mistake (the carrier's own port, `quote-lab
// storm` at a wrong target). The pages, the JSON at the same URLs and the errors in the
// reader's language are checked in-process (test_lab_routes.cpp).
#include <doctest/doctest.h>

#include "support/lab_process.hpp"

namespace test_pages_http {

using namespace quote_lab::testing;

namespace {

// The simulated carrier's own base URL, as the lab reports it.
std::string carrier_url(const LabProcess& lab) { return lab.get("/carrier").json["url"].get<std::string>(); }

}  // namespace

TEST_CASE("the carrier's port explains itself to a student who reached it by mistake") {
  LabProcess lab;
  httplib::Client carrier(carrier_url(lab));
  for (const char* path : {"/quote-legacy?scenario=down", "/", "/dependency/state"}) {
    CAPTURE(path);
    const auto res = carrier.Get(path);
    REQUIRE(res);
    CHECK(res->status == 404);
    const auto j = nlohmann::json::parse(res->body);
    CHECK(j["error"] == "not_found");
    const std::string message = j["message"];
    CHECK(message.find("this is the simulated carrier") == 0);
    CHECK(message.find("not the quote lab") != std::string::npos);
    CHECK(message.find("on the lab's port, another one") != std::string::npos);
    CHECK(std::find(j["allowed"].begin(), j["allowed"].end(), "GET /quote?customer_id=&items=&scenario=") != j["allowed"].end());
  }
  // Its real routes still answer.
  CHECK(carrier.Get("/health")->status == 200);
}

TEST_CASE("quote-lab storm refuses a target that is not a quote lab, and storms one that is") {
  LabProcess lab;
  const auto [carrier_code, carrier_out] = LabProcess::run({"storm", "--target", carrier_url(lab), "--requests", "5"});
  CHECK(carrier_code == 1);
  CHECK(carrier_out.find("is the simulated carrier, not a quote lab") != std::string::npos);
  CHECK(lab.get("/carrier").json["stats"]["calls_total"] == 0);  // nothing was stormed

  // A port where nothing listens (the lab's own, once it stopped).
  LabProcess gone;
  const std::string gone_url = "http://127.0.0.1:" + std::to_string(gone.port());
  CHECK(gone.stop() == 0);
  const auto [gone_code, gone_out] = LabProcess::run({"storm", "--target", gone_url, "--requests", "5"});
  CHECK(gone_code == 1);
  CHECK(gone_out.find("does not answer") != std::string::npos);

  const std::string lab_url = "http://127.0.0.1:" + std::to_string(lab.port());
  const auto [ok_code, ok_out] =
      LabProcess::run({"storm", "--target", lab_url, "--mode", "resilient", "--scenario", "ok", "--clients", "1",
                       "--requests", "3", "--settle-s", "0"});
  CAPTURE(ok_out);
  CHECK(ok_code == 0);
  CHECK(lab.get("/incidents").json["incidents"].size() == 3);
}

}  // namespace test_pages_http
