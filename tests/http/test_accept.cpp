#include <doctest/doctest.h>

#include "lab/http/accept.hpp"

namespace test_accept {

using namespace quote_lab;

TEST_CASE("/metrics negotiation: who gets Prometheus text and who gets JSON") {
  struct Row {
    const char* who;
    const char* accept;
    bool text;
  };
  for (const Row& r : {
           Row{"Prometheus 2.42 scraper",
               "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
               "text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
               true},
           Row{"a plain text client", "text/plain", true},
           Row{"curl", "*/*", false},
           Row{"no Accept header", "", false},
           Row{"a JSON client", "application/json", false},
           Row{"JSON preferred", "application/json, text/plain;q=0.5", false},
           Row{"browser", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", false},
       }) {
    CAPTURE(r.who);
    CHECK(prefers_prometheus_text(r.accept) == r.text);
  }
}

TEST_CASE("/ negotiation: browsers get the dashboard, curl gets JSON") {
  CHECK(prefers_html("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"));
  CHECK_FALSE(prefers_html("*/*"));
  CHECK_FALSE(prefers_html(""));
  CHECK_FALSE(prefers_html("application/json, text/html;q=0.1"));
}

TEST_CASE("q-values: the most specific range wins, q=0 refuses") {
  CHECK(accept_quality("text/*;q=0.3, text/plain;q=0.7", "text/plain") == doctest::Approx(0.7));
  CHECK(accept_quality("text/*;q=0.3", "text/plain") == doctest::Approx(0.3));
  CHECK(accept_quality("application/json;q=0", "application/json") == 0);
  CHECK(accept_quality("image/png", "application/json") == 0);
}

TEST_CASE("Accept-Language: Spanish when the reader prefers it, English otherwise (curl sends none)") {
  struct Row {
    const char* header;
    Language expected;
  };
  for (const Row& r : {
           Row{"", Language::en},                                  // curl
           Row{"es-AR,es;q=0.9,en;q=0.8", Language::es},          // a browser in Spanish
           Row{"es", Language::es},
           Row{"ES-mx", Language::es},                             // tags are case-insensitive
           Row{"en-US,en;q=0.9,es;q=0.8", Language::en},
           Row{"en;q=0.5, es;q=0.8", Language::es},                // q decides, not order
           Row{"de-DE,de;q=0.9,es;q=0.7,en;q=0.6", Language::es},  // the first of ours by q
           Row{"fr, de", Language::en},                            // neither: English
           Row{"*", Language::en},
           Row{"es;q=0", Language::en},                            // q=0 refuses
           Row{"estonian, es", Language::es},                      // "estonian" is not "es"
           Row{"es, en", Language::es},                            // a tie: the first listed
       }) {
    CAPTURE(r.header);
    CHECK(preferred_language(r.header, Language::en) == r.expected);
  }
}

TEST_CASE("Accept-Language: a header that names neither language gets the lab's --language, one that names one gets it") {
  for (const Language when_unnamed : {Language::en, Language::es}) {
    CAPTURE(static_cast<int>(when_unnamed));
    CHECK(preferred_language("", when_unnamed) == when_unnamed);       // curl
    CHECK(preferred_language("fr", when_unnamed) == when_unnamed);     // neither of ours
    CHECK(preferred_language("fr, de;q=0.5", when_unnamed) == when_unnamed);
    CHECK(preferred_language("es;q=0", when_unnamed) == when_unnamed);  // refused, so named none
    CHECK(preferred_language("es-AR", when_unnamed) == Language::es);
    CHECK(preferred_language("en;q=0.5, es", when_unnamed) == Language::es);
    CHECK(preferred_language("en", when_unnamed) == Language::en);
    CHECK(preferred_language("en-GB, fr", when_unnamed) == Language::en);
  }
}

}  // namespace test_accept
