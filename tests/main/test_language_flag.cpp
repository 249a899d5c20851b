// serve --language as a process: curl (no Accept-Language) gets the language the teacher
// started the lab with; a request that names a language still gets it; a bad value stops
// start-up naming the allowed ones. Which header picks which language: http/test_accept.cpp.
#include <doctest/doctest.h>

#include "support/lab_process.hpp"

namespace test_language_flag {

using namespace quote_lab::testing;

namespace {
bool has(const nlohmann::ordered_json& j, const char* key, const std::string& word) {
  return j.contains(key) && j[key].is_string() && j[key].get<std::string>().find(word) != std::string::npos;
}
}  // namespace

TEST_CASE("serve --language es: curl gets Spanish messages, Accept-Language: en still gets English") {
  // --rate-limit 2: the teacher's lab's third quote from this client is refused, in Spanish too.
  LabProcess lab({"--language", "es", "--rate-limit", "2"});
  CHECK(lab.log().find("messages in Spanish") != std::string::npos);

  const Reply curl = lab.get("/quote-legacy?scenario=nope");
  CHECK(curl.status == 400);
  CHECK(curl.json["error"] == "unknown_scenario");
  CAPTURE(curl.body);
  CHECK(has(curl.json, "message", "no existe"));
  CHECK_FALSE(has(curl.json, "message", "does not exist"));

  const Reply english = lab.get("/quote-legacy?scenario=nope", {{"Accept-Language", "en"}});
  CHECK(english.status == 400);
  CAPTURE(english.body);
  CHECK(has(english.json, "message", "does not exist"));

  const Reply note = lab.get("/quote-resilient?scenario=ok&lab=ana");
  CHECK(note.status == 200);
  CAPTURE(note.body);
  CHECK(has(note.json, "policy_note", "disyuntor"));

  const Reply limited = lab.get("/quote-legacy?scenario=ok");
  CHECK(limited.status == 429);
  CAPTURE(limited.body);
  CHECK(has(limited.json, "message", "demasiadas solicitudes"));
}

TEST_CASE("serve --language fr stops the lab with a usage error naming en and es") {
  const auto [code, out] = LabProcess::run({"serve", "--port", "0", "--carrier-port", "0", "--language", "fr"});
  CAPTURE(out);
  CHECK(code == 2);  // a usage error, like every other bad serve flag
  CHECK(out.find("--language") != std::string::npos);
  CHECK(out.find("fr") != std::string::npos);
  CHECK(out.find("{en,es}") != std::string::npos);  // the allowed values, as CLI11 lists them
  CHECK(out.find("listening") == std::string::npos);
}

}  // namespace test_language_flag
