// HostResolver (lab/carrier/host_resolver.hpp): the host of a URL, the numeric hosts that need
// no lookup, and the last address kept when later lookups fail. Short real waits (the
// resolver's own thread, refreshing every 10 ms here).
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "lab/carrier/host_resolver.hpp"

namespace test_host_resolver {

using namespace quote_lab;
using namespace std::chrono_literals;

TEST_CASE("the host of a URL: a name or an IPv4 address, none for an IPv6 literal") {
  CHECK(url_host("http://carrier:8081") == "carrier");
  CHECK(url_host("http://carrier:8081/quote?x=1") == "carrier");
  CHECK(url_host("https://carrier.example") == "carrier.example");
  CHECK(url_host("http://127.0.0.1:9") == "127.0.0.1");
  CHECK(url_host("http://[::1]:8081") == "");
  CHECK(numeric_host("127.0.0.1"));
  CHECK(numeric_host("::1"));
  CHECK_FALSE(numeric_host("carrier"));
}

TEST_CASE("a numeric host is its own address: no lookup at all") {
  std::atomic<int> lookups = 0;
  HostResolver r("127.0.0.1", [&](const std::string&) {
    ++lookups;
    return std::optional<std::string>("10.0.0.1");
  });
  CHECK(r.address() == "127.0.0.1");
  CHECK(lookups == 0);
}

TEST_CASE("a name is looked up before the constructor returns, again later, and a failed lookup keeps the last address") {
  auto answers = std::make_shared<std::atomic<int>>(0);
  HostResolver r(
      "carrier",
      [answers](const std::string& host) -> std::optional<std::string> {
        const int n = (*answers)++;
        if (host != "carrier") return std::nullopt;
        if (n == 0) return "10.0.0.1";
        if (n == 1) return "10.0.0.2";  // the carrier moved
        return std::nullopt;            // then the DNS fails
      },
      10ms, 10ms);
  CHECK(r.address() == "10.0.0.1");
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (*answers < 4 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(5ms);
  CHECK(*answers >= 4);
  CHECK(r.address() == "10.0.0.2");
}

TEST_CASE("the system resolver finds localhost as 127.0.0.1, and nothing for a name under .invalid") {
  // IPv4 first: the lab's carrier binds 127.0.0.1, and Debian's hosts file also lists ::1.
  CHECK(system_lookup("localhost") == "127.0.0.1");
  CHECK_FALSE(system_lookup("carrier.invalid").has_value());
}

}  // namespace test_host_resolver
