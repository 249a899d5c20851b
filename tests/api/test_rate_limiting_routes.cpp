// serve --rate-limit in-process (support/in_process_lab.hpp): the real route table behind
// the limiter, on the fake clock, driven as a class drives it with curl: which routes are
// limited, what a refused client sees, each lab's and each client's own count. The limiter's
// arithmetic is in resilience/test_rate_limiter.cpp; the flags' start-up errors in
// test_rate_limiting.cpp.
#include <doctest/doctest.h>

#include "support/in_process_lab.hpp"

namespace test_rate_limiting_routes {

using namespace quote_lab;
using namespace quote_lab::testing;

namespace {

std::string header(const Reply& r, const std::string& name) {
  const auto it = r.headers.find(name);
  return it == r.headers.end() ? "" : it->second;
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

// `serve --rate-limit LIMIT [--rate-window-s WINDOW_S] [--trusted-proxy-header HEADER]`.
InProcessOptions limited(int limit, int window_s = RateLimitSettings::kDefaultWindowS, std::string header = {}) {
  InProcessOptions o;
  o.rate_limit.limit = limit;
  o.rate_limit.window_s = window_s;
  o.rate_limit.trusted_proxy_header = std::move(header);
  return o;
}

}  // namespace

TEST_CASE("N+1 quote requests in a window: the last is a 429 with Retry-After, the limit and the window") {
  InProcessLab lab(limited(3, 60));
  for (int i = 0; i < 3; ++i) CHECK(lab.get("/quote-resilient?scenario=ok").status == 200);
  const Reply refused = lab.get("/quote-resilient?scenario=ok");
  CHECK(refused.status == 429);
  CHECK(refused.json["error"] == "rate_limited");
  CHECK(refused.json["limit"] == 3);
  CHECK(refused.json["window_s"] == 60);
  // The first request was answered less than a few seconds ago: its time leaves the window in ≤ 60 s.
  const int retry_after = refused.json["retry_after_s"].get<int>();
  CHECK(retry_after >= 55);
  CHECK(retry_after <= 60);
  CHECK(header(refused, "Retry-After") == std::to_string(retry_after));
  CHECK(refused.json["message"].get<std::string>().find("3 every 60 s") != std::string::npos);
  // The course hub's alias and the legacy route count for the same client.
  CHECK(lab.get("/04/quote-legacy?scenario=ok").status == 429);
  const Reply es = lab.get("/quote-legacy?scenario=ok", {{"Accept-Language", "es"}});
  CHECK(es.status == 429);
  CHECK(es.json["message"].get<std::string>().find("vuelve a intentarlo") != std::string::npos);
  // Counted by route, and nothing ran: no quote flow, no carrier call.
  const std::string text = lab.get("/metrics-prometheus").body;
  CHECK(has_line(text, R"(quote_lab_rate_limited_total{route="/quote-resilient"} 1)"));
  CHECK(has_line(text, R"(quote_lab_rate_limited_total{route="/quote-legacy"} 2)"));
  CHECK(lab.get("/carrier").json["stats"]["calls_total"] == 3);
}

TEST_CASE("/health, scrapes, state and the teacher's routes are never limited") {
  InProcessLab lab(limited(1, 60));
  CHECK(lab.get("/quote-resilient?scenario=ok").status == 200);
  CHECK(lab.get("/quote-resilient?scenario=ok").status == 429);
  for (int i = 0; i < 20; ++i) {
    CHECK(lab.get("/health").status == 200);
    CHECK(lab.get("/04/health").status == 200);
  }
  for (const char* path : {"/metrics-prometheus", "/metrics", "/dependency/state", "/incidents", "/carrier", "/",
                           "/diagnostics/summary", "/class", "/experiments/storm"})
    for (int i = 0; i < 3; ++i) CHECK_MESSAGE(lab.get(path).status == 200, path);
  CHECK(lab.request("POST", "/reset-lab").status == 200);
  CHECK(lab.request("PUT", "/carrier/mode?mode=ok").status == 200);
}

TEST_CASE("off by default: the course's curl lines are never refused") {
  InProcessLab lab;
  // The breaker opens after two failed requests; the rest are short circuits (microseconds).
  for (int i = 0; i < 40; ++i) CHECK(lab.get("/quote-resilient?scenario=provider_down").status == 200);
  CHECK(lab.get("/metrics-prometheus").body.find("quote_lab_rate_limited_total{") == std::string::npos);
}

TEST_CASE("each lab and each client has its own count, a proxy's header only when configured") {
  SUBCASE("student labs count apart from the teacher's") {
    InProcessLab lab(limited(1));
    CHECK(lab.get("/quote-resilient?scenario=ok").status == 200);
    CHECK(lab.get("/quote-resilient?scenario=ok").status == 429);
    CHECK(lab.get("/quote-resilient?scenario=ok&lab=ana").status == 200);
    CHECK(lab.get("/quote-resilient?scenario=ok&lab=ana").status == 429);
  }
  SUBCASE("X-Forwarded-For is ignored by default: a client cannot pose as another") {
    InProcessLab lab(limited(1));
    CHECK(lab.get("/quote-resilient?scenario=ok", {{"X-Forwarded-For", "10.0.0.1"}}).status == 200);
    CHECK(lab.get("/quote-resilient?scenario=ok", {{"X-Forwarded-For", "10.0.0.2"}}).status == 429);
  }
  SUBCASE("--trusted-proxy-header: the address the proxy appended names the client") {
    InProcessLab lab(limited(1, RateLimitSettings::kDefaultWindowS, "X-Forwarded-For"));
    CHECK(lab.get("/quote-resilient?scenario=ok", {{"X-Forwarded-For", "10.0.0.1"}}).status == 200);
    CHECK(lab.get("/quote-resilient?scenario=ok", {{"X-Forwarded-For", "10.0.0.2"}}).status == 200);
    // A client that writes its own entry first is still the address the proxy saw.
    CHECK(lab.get("/quote-resilient?scenario=ok", {{"X-Forwarded-For", "6.6.6.6, 10.0.0.1"}}).status == 429);
  }
}

}  // namespace test_rate_limiting_routes
