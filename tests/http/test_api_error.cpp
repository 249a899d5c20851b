// The one table of student-facing error messages (lab/http/api_error.hpp), English and Spanish.
#include <doctest/doctest.h>

#include <regex>
#include <set>
#include <vector>

#include "lab/http/api_error.hpp"

namespace test_api_error {

using namespace quote_lab;

namespace {

// Every id, from the enum's own count: a message added to the enum is checked here at once.
std::vector<MessageId> all_ids() {
  std::vector<MessageId> ids;
  for (int i = 0; i < static_cast<int>(MessageId::count_); ++i) ids.push_back(static_cast<MessageId>(i));
  return ids;
}

std::set<std::string> placeholders(const std::string& text) {
  std::set<std::string> out;
  const std::regex brace(R"(\{([a-z_]+)\})");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), brace); it != std::sregex_iterator(); ++it)
    out.insert((*it)[1]);
  return out;
}

}  // namespace

TEST_CASE("every message exists in English and Spanish, with the same placeholders") {
  for (const MessageId id : all_ids()) {
    CAPTURE(static_cast<int>(id));
    const std::string en = message_text(id, Language::en, {});
    const std::string es = message_text(id, Language::es, {});
    CHECK_FALSE(en.empty());
    CHECK_FALSE(es.empty());
    CHECK(en != es);
    CHECK(placeholders(en) == placeholders(es));
    // Neutral Spanish: no voseo imperatives such as "usá", "bajá", "separá".
    for (const char* voseo : {"usá", "bajá", "separá", "probá", "elegí", "indicá", "esperá", "quitá", "enviá", "agregá"})
      CHECK(es.find(voseo) == std::string::npos);
  }
}

TEST_CASE("placeholders are filled once, a value that looks like one is shown as typed") {
  const MessageArgs args{{"name", "items"}, {"min", "1"}, {"max", "50"}, {"got", "{max}"}};
  CHECK(message_text(MessageId::integer_out_of_range, Language::en, args) ==
        "items must be an integer between 1 and 50 (got '{max}')");
  CHECK(message_text(MessageId::integer_out_of_range, Language::es, args) ==
        "`items` debe ser un número entero entre 1 y 50 (se recibió '{max}')");
}

TEST_CASE("an ApiError from the table answers in the language asked, English by default") {
  const ApiError e = api_error(400, "unknown_scenario", MessageId::unknown_scenario_did_you_mean,
                               {{"got", "provder_down"}, {"suggestion", "provider_down"}}, {"ok", "provider_down"});
  CHECK(e.status == 400);
  CHECK(e.error == "unknown_scenario");  // the code is the contract: never translated
  CHECK(e.message == "scenario 'provder_down' does not exist; did you mean 'provider_down'?");
  CHECK(e.message_in(Language::en) == e.message);
  CHECK(e.message_in(Language::es) == "el escenario 'provder_down' no existe; ¿quisiste decir 'provider_down'?");
  CHECK(e.allowed == std::vector<std::string>{"ok", "provider_down"});
  // An error written without the table has only its English.
  const ApiError plain{400, "invalid_body", "the body must be a JSON object", {}};
  CHECK(plain.message_in(Language::es) == "the body must be a JSON object");
}

}  // namespace test_api_error
