// The class challenge over HTTP: a student posts a pipeline to her lab with its key and gets
// its scorecard beside legacy and resilient; a bad pipeline is refused naming the place, the
// strategy and the setting at fault, in the asker's language; GET /class ranks the designs,
// which a reset leaves and a restart keeps.

#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "support/in_process_lab.hpp"
#include "support/poll.hpp"
#include "support/spanish_text.hpp"

namespace test_scorecard_route {

using namespace quote_lab;
using namespace quote_lab::testing;

// SRE adaptive throttling instead of a breaker (the shipped `throttled`, with k = 2): a design
// that beats both baselines.
const std::string kThrottled = R"({"pipeline": [
  {"strategy": "fallback"},
  {"strategy": "retry", "max_attempts": 2},
  {"strategy": "adaptive_throttle", "k": 2},
  {"strategy": "timeout", "timeout_ms": 220}]})";
// Legacy's pipeline posted as a design (the list alone): four immediate attempts, no fallback.
const std::string kHammer = R"([{"strategy": "retry", "max_attempts": 4, "backoff_base_ms": 0, "backoff_max_ms": 0,
  "jitter": "none"}, {"strategy": "timeout", "timeout_ms": 360}])";

httplib::Headers with_key(const std::string& key) { return {{"X-Lab-Key", key}}; }

std::string claim(InProcessLab& lab, const std::string& name) {
  const Reply r = lab.request("POST", "/claim?name=" + name);
  REQUIRE(r.status == 201);
  return r.json["lab_key"].get<std::string>();
}

TEST_CASE("a student posts a design with her key and gets its scorecard beside legacy and resilient") {
  InProcessLab lab;
  const std::string key = claim(lab, "ana");
  // Without the key nothing is scored or kept.
  const Reply refused = lab.request("POST", "/experiments/scorecard?lab=ana", {}, kThrottled);
  CHECK(refused.status == 403);
  const Reply none = lab.get("/experiments/scorecard?lab=ana");
  CHECK(none.status == 200);
  CHECK(none.json["design"].is_null());
  CHECK(none.json["message"].get<std::string>().find("POST one to /experiments/scorecard") != std::string::npos);

  const Reply posted = lab.request("POST", "/experiments/scorecard?lab=ana", with_key(key), kThrottled);
  REQUIRE(posted.status == 200);
  const auto& card = posted.json["scorecard"];
  CHECK(card["policy"] == "ana");
  CHECK(card["against"]["legacy"] == 0.0);
  CHECK(card["against"]["resilient"] == 41.8);
  CHECK(card["score"] == 60.5);
  REQUIRE(card["runs"].size() == 5);
  CHECK(card["runs"][0]["run"] == "provider_down");
  CHECK(card["runs"][0]["legacy"]["calls_per_quote"] == 4.0);
  CHECK(posted.json["place"] == 1);
  CHECK(posted.json["designs"] == 1);
  CHECK(posted.json["message"].get<std::string>().find("place 1 of 1 in GET /class") != std::string::npos);
  // The design kept is the pipeline read back, every setting written.
  const Reply kept = lab.get("/experiments/scorecard?lab=ana");
  REQUIRE(kept.status == 200);
  CHECK(kept.json["design"]["pipeline"][2]["strategy"] == "adaptive_throttle");
  CHECK(kept.json["design"]["pipeline"][2]["k"] == 2.0);
  CHECK(kept.json["design"]["pipeline"][2]["window_ms"] == 10000);
  CHECK(kept.json["design"]["scorecard"]["score"] == card["score"]);
  CHECK(kept.json["design"]["id"] == posted.json["design"]["id"]);

  // The same design scores the same: the battery's seeds are fixed.
  const Reply again = lab.request("POST", "/experiments/scorecard?lab=ana", with_key(key), kThrottled);
  CHECK(again.json["scorecard"] == card);
  // A reset is the lab's state; the design is the student's submission: it stays.
  CHECK(lab.request("POST", "/reset-lab?lab=ana", with_key(key)).status == 200);
  CHECK(lab.get("/experiments/scorecard?lab=ana").json["design"]["id"] == again.json["design"]["id"]);
}

TEST_CASE("GET /class ranks the class's designs: best score first with the baselines beside them") {
  InProcessLab lab;
  CHECK(lab.get("/class").json["designs"].empty());
  CHECK(lab.get("/class").json["design_baselines"].is_null());
  const std::string ana = claim(lab, "ana"), bruno = claim(lab, "bruno");
  REQUIRE(lab.request("POST", "/experiments/scorecard?lab=bruno-v1", with_key(bruno), kHammer).status == 200);
  const Reply second = lab.request("POST", "/experiments/scorecard?lab=ana", with_key(ana), kThrottled);
  CHECK(second.json["place"] == 1);
  CHECK(second.json["designs"] == 2);
  const Reply cls = lab.get("/class");
  const auto& designs = cls.json["designs"];
  REQUIRE(designs.size() == 2);
  CHECK(designs[0]["lab"] == "ana");
  CHECK(designs[0]["place"] == 1);
  CHECK(designs[1]["lab"] == "bruno-v1");
  CHECK(designs[1]["name"] == "bruno");
  CHECK(designs[1]["place"] == 2);
  CHECK(designs[1]["strategies"] == nlohmann::ordered_json{"retry", "timeout"});
  // Legacy's pipeline: legacy's score.
  CHECK(designs[1]["score"] == 0.0);
  CHECK(cls.json["design_baselines"]["legacy"] == 0.0);
  CHECK(cls.json["design_baselines"]["resilient"] == 41.8);
  // The teacher's lab may post a worked answer; it is not ranked.
  const Reply teacher = lab.request("POST", "/experiments/scorecard", {}, kThrottled);
  CHECK(teacher.status == 200);
  CHECK(teacher.json["place"].is_null());
  CHECK(lab.get("/class").json["designs"].size() == 2);
}

TEST_CASE("a bad design is refused naming the place and the strategy or setting at fault in the asker's language") {
  InProcessLab lab;
  struct Row {
    std::string body;
    const char* at;
    const char* strategy;  // "" null
    const char* setting;   // "" null
    const char* en;
    const char* es;
  };
  const std::string timeout = R"({"strategy": "timeout", "timeout_ms": 200})";
  for (const Row& r : {
           Row{R"({"pipeline": [{"strategy": "retyr"}, )" + timeout + "]}", "pipeline[0]", "", "",
               "unknown strategy 'retyr'; did you mean 'retry'?", "estrategia desconocida 'retyr'; ¿quisiste decir `retry`?"},
           Row{R"({"pipeline": [{"strategy": "retry", "max_attempts": 0}, )" + timeout + "]}", "pipeline[0]", "retry",
               "max_attempts", "max_attempts must be between 1 and 10 (got 0)",
               "`max_attempts` debe estar entre 1 y 10 (recibido: 0)"},
           Row{R"({"pipeline": [{"strategy": "retry", "timeout_ms": 200}, )" + timeout + "]}", "pipeline[0]", "retry",
               "timeout_ms", "unknown setting 'timeout_ms', which belongs to 'timeout'",
               "ajuste desconocido `timeout_ms`, que pertenece a `timeout`"},
           Row{R"({"pipeline": [)" + timeout + R"(, {"strategy": "retry"}]})", "pipeline[1]", "retry", "",
               "'retry' must come before 'timeout'", "`retry` debe ir antes de `timeout`: `timeout` es la llamada misma"},
           Row{R"({"pipeline": [{"strategy": "circuit_breaker"}, {"strategy": "fallback"}, )" + timeout + "]}",
               "pipeline[1]", "fallback", "", "'fallback' must come before 'circuit_breaker'",
               "`fallback` debe ir antes de `circuit_breaker`: el disyuntor registra cada llamada"},
           Row{R"({"pipeline": [{"strategy": "retry_quota"}, {"strategy": "retry"}, )" + timeout + "]}", "pipeline[0]",
               "retry_quota", "", "'retry_quota' must come after 'retry'",
               "`retry_quota` debe ir después de `retry`: la cuota de reintentos paga"},
           Row{R"({"pipeline": [{"strategy": "retry"}]})", "pipeline", "", "", "'timeout' is missing", "falta `timeout`"},
           Row{R"({"pipeline": [{"strategy": "hedging", "delay": {"mode": "fixd"}}, )" + timeout + "]}", "pipeline[0]",
               "hedging", "delay.mode", "delay.mode must be one of", "`delay.mode` debe ser uno de"},
       }) {
    CAPTURE(r.body);
    for (const char* language : {"en", "es"}) {
      const Reply reply = lab.request("POST", "/experiments/scorecard", {{"Accept-Language", language}}, r.body);
      REQUIRE(reply.status == 400);
      CHECK(reply.json["error"] == "invalid_design");
      const auto& p = reply.json["problems"][0];
      CHECK(p["at"] == r.at);
      CHECK(p["strategy"] == (*r.strategy ? nlohmann::ordered_json(r.strategy) : nlohmann::ordered_json(nullptr)));
      CHECK(p["setting"] == (*r.setting ? nlohmann::ordered_json(r.setting) : nlohmann::ordered_json(nullptr)));
      const std::string says = p["message"].get<std::string>();
      const std::string message = reply.json["message"].get<std::string>();
      const Language lang = std::string(language) == "es" ? Language::es : Language::en;
      CHECK(says.find(lang == Language::es ? r.es : r.en) != std::string::npos);
      CHECK(message.find(says) != std::string::npos);  // the first problem, in the message too
      CHECK(foreign_words(says, lang).empty());
      CHECK(foreign_words(message, lang).empty());
    }
  }
  // Not a design at all: what the body must be.
  for (const std::string body : {std::string("not json"), std::string(R"({"pipeline": [], "name": "x"})"),
                                 std::string(R"({"timeout_ms": 200})"), std::string("")}) {
    CAPTURE(body);
    const Reply reply = lab.request("POST", "/experiments/scorecard", {{"Accept-Language", "es"}}, body);
    CHECK(reply.status == 400);
    CHECK(reply.json["error"] == "invalid_design");
    CHECK(reply.json["message"].get<std::string>().find("el cuerpo es un diseño") == 0);
  }
  // Nothing refused was kept.
  CHECK(lab.get("/experiments/scorecard").json["design"].is_null());
}

TEST_CASE("whatever a body holds the refusal stays an answer: a long name shortened and at most 20 problems listed") {
  InProcessLab lab;
  // A 30,000-letter strategy name once took the lab's stack (its regular expressions recurse).
  const std::string long_name = "[{\"strategy\": \"" + std::string(30000, 'a') + "\"}, {\"strategy\": \"timeout\"}]";
  const Reply named = lab.request("POST", "/experiments/scorecard", {{"Accept-Language", "es"}}, long_name);
  REQUIRE(named.status == 400);
  CHECK(named.json["problems"][0]["message"].get<std::string>().size() < 400);
  CHECK(lab.get("/health").status == 200);
  // A thousand wrong entries: the first 20, and how many there were.
  std::string many = "[";
  for (int i = 0; i < 1000; ++i) many += "1,";
  many += R"({"strategy": "timeout"}])";
  const Reply listed = lab.request("POST", "/experiments/scorecard", {}, many);
  REQUIRE(listed.status == 400);
  CHECK(listed.json["problems"].size() == 20);
  CHECK(listed.json["problems_total"] == 1000);
  CHECK(listed.json["message"].get<std::string>().find("(1000 problem(s)") != std::string::npos);
  // A nested setting is named with its object, in Spanish too.
  const Reply nested = lab.request("POST", "/experiments/scorecard", {{"Accept-Language", "es"}},
                                   R"([{"strategy": "hedging", "delay": {"foo": 1}}, {"strategy": "timeout"}])");
  REQUIRE(nested.status == 400);
  CHECK(nested.json["problems"][0]["setting"] == "delay.foo");
  CHECK(nested.json["problems"][0]["message"].get<std::string>().find("`delay`: ajuste desconocido `foo`") == 0);
  const Reply tied = lab.request("POST", "/experiments/scorecard", {{"Accept-Language", "es"}},
                                 R"([{"strategy": "hedging", "delay": {"window_samples": 10, "min_samples": 50}},
                                     {"strategy": "timeout"}])");
  REQUIRE(tied.status == 400);
  CHECK(tied.json["problems"][0]["setting"] == "delay.min_samples");
  CHECK(foreign_words(tied.json["problems"][0]["message"].get<std::string>(), Language::es).empty());
}

TEST_CASE("a score is written as the reader writes numbers and the teacher's answer counts the class's designs") {
  InProcessLab lab;
  const std::string key = claim(lab, "ana");
  REQUIRE(lab.request("POST", "/experiments/scorecard?lab=ana", with_key(key), kThrottled).status == 200);
  const Reply teacher = lab.request("POST", "/experiments/scorecard", {{"Accept-Language", "es"}}, kHammer);
  REQUIRE(teacher.status == 200);
  CHECK(teacher.json["designs"] == 1);  // ana's: the teacher's own is not ranked
  CHECK(teacher.json["message"].get<std::string>().find("el diseño obtuvo 0,0 puntos (`legacy` 0,0, `resilient` 41,8)") ==
        0);
}

TEST_CASE("a design survives a restart in the class's state file") {
  TempDir dir;
  InProcessOptions o;
  o.state_file = dir / "state.json";
  std::string id;
  double score = 0;
  {
    InProcessLab lab(o);
    const std::string key = claim(lab, "ana");
    const Reply posted = lab.request("POST", "/experiments/scorecard?lab=ana-v2", with_key(key), kThrottled);
    REQUIRE(posted.status == 200);
    id = posted.json["design"]["id"].get<std::string>();
    score = posted.json["scorecard"]["score"].get<double>();
    lab.labs().flush_state();
  }
  InProcessLab restarted(o);
  Reply cls = restarted.get("/class");
  REQUIRE(cls.json["designs"].size() == 1);
  // The baselines are judged again for the designs the file held, on the simulation thread: a
  // later look has them (legacy's and resilient's batteries: 0.1 s, several under a sanitizer).
  REQUIRE(eventually([&] { return !(cls = restarted.get("/class")).json["design_baselines"].is_null(); },
                     std::chrono::seconds(30), std::chrono::milliseconds(50)));
  CHECK(cls.json["design_baselines"]["legacy"] == 0.0);
  CHECK(cls.json["designs"][0]["lab"] == "ana-v2");
  CHECK(cls.json["designs"][0]["name"] == "ana");
  CHECK(cls.json["designs"][0]["score"] == score);
  const Reply kept = restarted.get("/experiments/scorecard?lab=ana-v2");
  CHECK(kept.json["design"]["id"] == id);
  CHECK(kept.json["design"]["pipeline"][1].begin().key() == "strategy");  // read back in its order
  CHECK(kept.json["design"]["scorecard"]["against"]["resilient"] == 41.8);
}

}  // namespace test_scorecard_route
