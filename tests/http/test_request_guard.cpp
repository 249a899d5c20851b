// request_guard (lab/http/request_guard.hpp): framing a handler can trust, and the
// security headers of every answer.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lab/http/request_guard.hpp"

namespace test_request_guard {

using quote_lab::check_framing;
using quote_lab::RequestFacts;

namespace {
RequestFacts http11(std::initializer_list<std::pair<const std::string, std::string>> headers) {
  RequestFacts f{"HTTP/1.1", headers};
  f.headers.emplace("host", "127.0.0.1:8080");
  return f;
}
}  // namespace

TEST_CASE("framing: a request two parties could read differently is refused, each with its own reason") {
  struct Row {
    const char* what;
    RequestFacts request;
    const char* error;  // nullptr: accepted
  };
  const Row rows[] = {
      {"no body", http11({}), nullptr},
      {"a plain length", http11({{"content-length", "12"}}), nullptr},
      {"the same length twice", http11({{"content-length", "5"}, {"content-length", "5"}}), nullptr},
      {"chunked", http11({{"transfer-encoding", "chunked"}}), nullptr},
      {"chunked in capitals", http11({{"transfer-encoding", " Chunked "}}), nullptr},
      {"HTTP/1.0 without Host", RequestFacts{"HTTP/1.0", {}}, nullptr},
      {"a length that is not a number", http11({{"content-length", "abc"}}), "invalid_content_length"},
      {"a negative length", http11({{"content-length", "-1"}}), "invalid_content_length"},
      {"a signed length", http11({{"content-length", "+5"}}), "invalid_content_length"},
      {"an empty length", http11({{"content-length", ""}}), "invalid_content_length"},
      {"a length too large for any body", http11({{"content-length", "99999999999999999999"}}), "invalid_content_length"},
      {"two different lengths", http11({{"content-length", "5"}, {"content-length", "6"}}), "conflicting_content_length"},
      {"two lengths in one header", http11({{"content-length", "5, 6"}}), "conflicting_content_length"},
      {"gzip transfer coding", http11({{"transfer-encoding", "gzip"}}), "unsupported_transfer_encoding"},
      {"chunked after gzip", http11({{"transfer-encoding", "gzip, chunked"}}), "unsupported_transfer_encoding"},
      {"two Transfer-Encoding headers", http11({{"transfer-encoding", "chunked"}, {"transfer-encoding", "chunked"}}),
       "unsupported_transfer_encoding"},
      {"chunked and a length", http11({{"transfer-encoding", "chunked"}, {"content-length", "5"}}), "conflicting_framing"},
      {"chunked on HTTP/1.0", RequestFacts{"HTTP/1.0", {{"transfer-encoding", "chunked"}}}, "unsupported_transfer_encoding"},
      {"HTTP/1.1 without Host", RequestFacts{"HTTP/1.1", {}}, "missing_host"},
      {"two Host headers", http11({{"host", "evil.example"}}), "invalid_host"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.what);
    const auto error = check_framing(row.request);
    if (row.error == nullptr) {
      CHECK_FALSE(error);
    } else {
      REQUIRE(error);
      CHECK(error->status == 400);
      CHECK(error->error == row.error);
      CHECK_FALSE(error->message.empty());
    }
  }
}

TEST_CASE("security headers: nosniff, and only the lab itself may frame or script the page") {
  std::string csp, nosniff;
  for (const auto& [name, value] : quote_lab::security_headers()) {
    if (name == "Content-Security-Policy") csp = value;
    if (name == "X-Content-Type-Options") nosniff = value;
  }
  CHECK(nosniff == "nosniff");
  CHECK(csp.find("frame-ancestors 'self'") != std::string::npos);
  CHECK(csp.find("script-src 'self'") != std::string::npos);
  CHECK(csp.find("unsafe-inline") == std::string::npos);
}

TEST_CASE("access: Host names the lab answers to, whatever the route") {
  using quote_lab::host_allowed;
  const std::vector<std::string> allowed{"lab", "Classroom.Example"};
  CHECK(host_allowed("127.0.0.1:8080", {}));
  CHECK(host_allowed("10.0.0.7", {}));
  CHECK(host_allowed("[::1]:8080", {}));
  CHECK(host_allowed("localhost:8080", {}));
  CHECK(host_allowed("LOCALHOST.", {}));
  CHECK(host_allowed("lab:8080", allowed));
  CHECK(host_allowed("classroom.example", allowed));
  CHECK_FALSE(host_allowed("", allowed));
  CHECK_FALSE(host_allowed("evil.example", allowed));
  CHECK_FALSE(host_allowed("lab.evil.example", allowed));
  CHECK_FALSE(host_allowed("127.0.0.1.evil.example", {}));
  CHECK_FALSE(host_allowed("[not-an-ip]:80", {}));
}

TEST_CASE("access: token, Origin and Sec-Fetch-Site on routes that change the lab") {
  using quote_lab::AccessFacts;
  const quote_lab::AccessPolicy open{};
  const quote_lab::AccessPolicy guarded{"s3cret", {}};
  const auto facts = [](bool changes, std::string origin, std::string site, std::string auth) {
    return AccessFacts{changes, "127.0.0.1:8080", std::move(origin), std::move(site), std::move(auth)};
  };
  struct Row {
    const char* what;
    AccessFacts request;
    const quote_lab::AccessPolicy& policy;
    int status;  // 0: allowed
  };
  const Row rows[] = {
      {"curl, no token set", facts(true, "", "", ""), open, 0},
      {"a read never needs anything", facts(false, "http://evil.example", "cross-site", ""), guarded, 0},
      {"the lab's own page", facts(true, "http://127.0.0.1:8080", "same-origin", ""), open, 0},
      {"another site's form", facts(true, "http://evil.example", "cross-site", ""), open, 403},
      {"another site's <img>", facts(true, "", "cross-site", ""), open, 403},
      {"another port of the same host", facts(true, "http://127.0.0.1:9999", "same-site", ""), open, 403},
      {"a sandboxed page (Origin: null)", facts(true, "null", "", ""), open, 403},
      {"no token when one is set", facts(true, "", "", ""), guarded, 401},
      {"a wrong token", facts(true, "", "", "Bearer s3cre"), guarded, 401},
      {"a longer token", facts(true, "", "", "Bearer s3cret2"), guarded, 401},
      {"the token without Bearer", facts(true, "", "", "s3cret"), guarded, 401},
      {"the right token", facts(true, "", "", "Bearer s3cret"), guarded, 0},
      {"the right token from another site", facts(true, "http://evil.example", "cross-site", "Bearer s3cret"), guarded, 403},
  };
  for (const auto& row : rows) {
    CAPTURE(row.what);
    const auto refusal = quote_lab::check_access(row.request, row.policy);
    CHECK((refusal ? refusal->status : 0) == row.status);
    // A token sent but wrong says so; none at all asks for one.
    if (row.status == 401)
      CHECK(refusal->error == (row.request.authorization.empty() ? "admin_token_required" : "wrong_teacher_token"));
  }
  auto bad_host = facts(false, "", "", "");
  bad_host.host = "rebound.evil.example";
  const auto refusal = quote_lab::check_access(bad_host, open);
  REQUIRE(refusal);
  CHECK(refusal->status == 403);
  CHECK(refusal->error == "host_not_allowed");
}

TEST_CASE("access: the token comparison looks at every byte, and only equal strings match") {
  using quote_lab::constant_time_equal;
  CHECK(constant_time_equal("Bearer abc", "Bearer abc"));
  CHECK(constant_time_equal("", ""));
  CHECK_FALSE(constant_time_equal("Bearer abc", "Bearer abd"));
  CHECK_FALSE(constant_time_equal("Bearer ab", "Bearer abc"));
  CHECK_FALSE(constant_time_equal(std::string("a\0b", 3), std::string("a\0c", 3)));
}

TEST_CASE("access: every answer can tell the page whether the token is needed and whether it has it") {
  using quote_lab::admin_token_status;
  CHECK(admin_token_status("", {}).empty());
  CHECK(admin_token_status("Bearer x", {}).empty());
  CHECK(admin_token_status("", {"s3cret", {}}) == "required");
  CHECK(admin_token_status("Bearer nope", {"s3cret", {}}) == "required");
  CHECK(admin_token_status("Bearer s3cret", {"s3cret", {}}) == "accepted");
}

}  // namespace test_request_guard
