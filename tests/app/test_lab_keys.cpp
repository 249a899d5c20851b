// A student's lab belongs to the student (lab/app/lab_keys.hpp): the first answer for a lab
// of a new owner carries the owner's key, changing a claimed owner's lab needs it (or the
// teacher's token), reading never does; a refusal is a 403 that says how to send the key and
// changes nothing; keys survive a restart. In-process, over HTTP, on the fake clock.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "lab/app/lab_keys.hpp"
#include "lab/persistence/state_store.hpp"
#include "support/in_process_lab.hpp"
#include "support/poll.hpp"

namespace test_lab_keys {

using namespace quote_lab;
using quote_lab::testing::FakeClock;
using quote_lab::testing::FixedRandom;
using quote_lab::testing::InProcessLab;
using quote_lab::testing::InProcessOptions;
using quote_lab::testing::Reply;
using quote_lab::testing::TempDir;
using json = nlohmann::ordered_json;

namespace {

const httplib::Headers kSpanish{{"Accept-Language", "es"}};
const httplib::Headers kEnglish{{"Accept-Language", "en"}};

httplib::Headers with_key(const std::string& key, httplib::Headers h = {}) {
  h.emplace("X-Lab-Key", key);
  return h;
}

// The key an answer hands out; "" when it hands out none.
std::string key_in(const Reply& r) { return r.json.is_object() ? r.json.value("lab_key", "") : ""; }

// Ana's first quote: it claims owner "ana" and carries her key.
std::string claim_ana(InProcessLab& lab) {
  const Reply first = lab.get("/quote-resilient?scenario=ok&lab=ana");
  REQUIRE(first.status == 200);
  const std::string key = key_in(first);
  REQUIRE(well_formed_lab_key(key));
  return key;
}

struct Call {
  const char* method;
  const char* path;  // on lab ana; "&" follows
};
// Every change a student makes to their own lab.
const Call kChanges[] = {
    {"GET", "/reset-lab?lab=ana"},
    {"POST", "/reset-lab?lab=ana"},
    {"PUT", "/carrier/mode?mode=slow&lab=ana"},
    {"POST", "/carrier/mode?mode=slow&lab=ana"},
    {"POST", "/experiments/storm?mode=resilient&scenario=ok&clients=1&requests=1&lab=ana"},
    {"DELETE", "/experiments/storm?lab=ana"},
};

std::string file_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("a claimed name owns the labs called by it or starting with it and '-', and keys are 20 characters of base32") {
  CHECK(owns("ana", "ana"));
  CHECK(owns("ana", "ana-paso3"));
  CHECK(owns("ana", "ana-tail-2"));
  CHECK_FALSE(owns("ana", "anabel"));
  CHECK_FALSE(owns("ana-maria", "ana-paso3"));
  CHECK_FALSE(owns("", "ana"));
  CHECK(possible_owners("ana-maria-paso1") == std::vector<std::string>{"ana-maria-paso1", "ana-maria", "ana"});
  CHECK(possible_owners("ana") == std::vector<std::string>{"ana"});
  CHECK(possible_owners("-x") == std::vector<std::string>{"-x"});
  CHECK(possible_owners("").empty());
  CHECK(well_formed_lab_key("abcdefghijklmnopqr27"));
  CHECK_FALSE(well_formed_lab_key("abcdefghijklmnopqr2"));     // 19
  CHECK_FALSE(well_formed_lab_key("ABCDEFGHIJKLMNOPQR27"));    // upper case
  CHECK_FALSE(well_formed_lab_key("abcdefghijklmnopqr18"));    // 1 and 8 are not base32
}

TEST_CASE("the longer claimed name owns a lab: ana-maria and ana are two owners, and a new key replaces the old") {
  FakeClock clock;
  FixedRandom random(0.5);
  LabKeys keys(random, clock);
  CHECK_FALSE(keys.owner_of("ana-maria-paso1"));  // nobody claimed: anyone's
  const auto ana = keys.claim("ana");
  REQUIRE(ana);
  CHECK(keys.owner_of("ana-maria-paso1") == "ana");  // until ana-maria claims her name
  const auto maria = keys.claim("ana-maria");
  REQUIRE(maria);
  CHECK(keys.owner_of("ana-maria-paso1") == "ana-maria");
  CHECK(keys.owner_of("ana-paso1") == "ana");
  CHECK(keys.owner_of("ana") == "ana");
  CHECK_FALSE(keys.owner_of("anabel-paso1"));
  CHECK(keys.check("ana-maria", *maria) == LabKeyVerdict::accepted);
  CHECK(keys.check("ana-maria", *ana) == LabKeyVerdict::wrong);
  const std::string fresh = keys.reissue("ana");
  CHECK(keys.check("ana", fresh) == LabKeyVerdict::accepted);
  CHECK(keys.check("ana", *ana) == LabKeyVerdict::wrong);
}

TEST_CASE("one key per owner: claimed once, the same after a restore, free again once forgotten") {
  FakeClock clock;
  FixedRandom random(0.5);
  LabKeys keys(random, clock);
  const auto ana = keys.claim("ana");
  REQUIRE(ana);
  CHECK(well_formed_lab_key(*ana));
  CHECK_FALSE(keys.claim("ana"));  // claimed: no second key, ever
  const auto bruno = keys.claim("bruno");
  REQUIRE(bruno);
  CHECK(*bruno != *ana);
  CHECK(keys.check("ana", *ana) == LabKeyVerdict::accepted);
  CHECK(keys.check("ana", "") == LabKeyVerdict::missing);
  CHECK(keys.check("ana", *bruno) == LabKeyVerdict::wrong);
  CHECK(keys.check("carla", "") == LabKeyVerdict::unclaimed);

  LabKeys restarted(random, clock);
  restarted.restore(keys.all());
  CHECK(restarted.check("ana", *ana) == LabKeyVerdict::accepted);
  CHECK_FALSE(restarted.claim("ana"));
  restarted.forget("ana");
  CHECK(restarted.check("ana", *ana) == LabKeyVerdict::unclaimed);
  const auto next = restarted.claim("ana");  // next class's ana gets a key of her own
  REQUIRE(next);
  CHECK(*next != *ana);
}

TEST_CASE("the state file keeps the keys by owner, and a malformed key makes the file unusable") {
  PersistedState s;
  s.lab_keys = {{"ana", "abcdefghijklmnopqr27"}, {"bruno", "bbcdefghijklmnopqr27"}};
  std::string problem;
  const auto back = state_from_json(to_json(s), problem);
  REQUIRE(back);
  CHECK(back->lab_keys == s.lab_keys);
  CHECK_FALSE(to_json(PersistedState{}).contains("lab_keys"));  // files without students stay as before

  for (const char* bad : {R"({"ana": 7})", R"({"ana": ""})", R"({"Ana": "abc"})", R"({"ana": "a b"})", R"(["ana"])"}) {
    CAPTURE(bad);
    auto j = to_json(s);
    j["lab_keys"] = json::parse(bad);
    CHECK_FALSE(state_from_json(j, problem));
    CHECK(problem.find("lab_keys") != std::string::npos);
  }
}

TEST_CASE("the first answer for a lab of a new owner carries its key, and no answer after it") {
  InProcessLab lab;
  const std::string ana = claim_ana(lab);
  CHECK(key_in(lab.get("/quote-resilient?scenario=ok&lab=ana")).empty());
  CHECK(key_in(lab.get("/dependency/state?lab=ana")).empty());
  // Ana's other labs are hers too: their first answers hand out no key.
  CHECK(key_in(lab.get("/quote-legacy?scenario=ok&lab=ana-paso3")).empty());
  CHECK(key_in(lab.request("POST", "/reset-lab?lab=ana-paso4", with_key(ana))).empty());

  // Any route that creates a lab of a new owner hands out the key: here a reset.
  const Reply bruno = lab.request("POST", "/reset-lab?lab=bruno");
  CHECK(bruno.status == 200);
  CHECK(well_formed_lab_key(key_in(bruno)));
  CHECK(key_in(bruno) != ana);
  CHECK(bruno.json["status"] == "reset");  // the answer is otherwise the one it always was
  // "anabel" is not "ana": another owner, another key.
  CHECK(well_formed_lab_key(key_in(lab.get("/carrier?lab=anabel"))));

  // A page, a HEAD or Prometheus text cannot show a key: they claim nothing, and the first
  // JSON answer after them does.
  CHECK(lab.get("/dependency/state?lab=carla", {{"Accept", "text/html"}}).content_type.find("text/html") == 0);
  CHECK(lab.request("HEAD", "/dependency/state?lab=carla").status == 200);
  CHECK(lab.get("/metrics-prometheus?lab=carla").status == 200);
  CHECK(well_formed_lab_key(key_in(lab.get("/incidents?lab=carla"))));

  // The teacher's lab has no key; the class view never shows one.
  CHECK(key_in(lab.request("POST", "/reset-lab")).empty());
  const Reply view = lab.get("/class");
  REQUIRE(view.status == 200);
  CHECK(view.body.find(ana) == std::string::npos);
  CHECK(view.body.find("lab_key") == std::string::npos);
}

TEST_CASE("another student's reset, carrier mode or storm without the key is a 403 that says how to send it") {
  InProcessLab lab;
  const std::string ana = claim_ana(lab);
  for (const auto& call : kChanges) {
    CAPTURE(call.method);
    CAPTURE(call.path);
    const Reply none = lab.request(call.method, call.path);
    CHECK(none.status == 403);
    CHECK(none.json["error"] == "lab_key_required");
    CHECK(key_in(none).empty());
    const Reply wrong = lab.request(call.method, call.path, with_key("abcdefghijklmnopqr27"));
    CHECK(wrong.status == 403);
    CHECK(wrong.json["error"] == "wrong_lab_key");
    const Reply header = lab.request(call.method, call.path, with_key(ana));
    CHECK(header.status >= 200);
    CHECK(header.status < 300);
    // A second storm while the first is still stopping would be a 409.
    lab.request("DELETE", "/experiments/storm?lab=ana", with_key(ana));
    REQUIRE(quote_lab::testing::eventually(
        [&] { return lab.get("/experiments/storm?lab=ana").json["running"] == false; }, std::chrono::seconds(10)));
    const Reply param = lab.request(call.method, std::string(call.path) + "&lab_key=" + ana);
    CHECK(param.status >= 200);
    CHECK(param.status < 300);
  }
  lab.request("DELETE", "/experiments/storm?lab=ana", with_key(ana));

  // The message names the lab and its owner and says how to send the key, in the reader's
  // language (English for curl).
  const std::string required_en =
      "the lab 'ana-paso3' belongs to 'ana': changing it (reset, carrier mode, storms) needs ana's key. Send it as "
      "the header 'X-Lab-Key: KEY' or the parameter lab_key=KEY; it came as lab_key in the first answer for a lab of "
      "ana";
  const std::string required_es =
      "el laboratorio 'ana-paso3' es de 'ana': para cambiarlo (restablecerlo, cambiar el modo del proveedor, "
      "tormentas) hace falta la clave de ana. Envíala en la cabecera 'X-Lab-Key: CLAVE' o en el parámetro "
      "lab_key=CLAVE; llegó como lab_key en la primera respuesta de un laboratorio de ana";
  CHECK(lab.request("POST", "/reset-lab?lab=ana-paso3").json["message"] == required_en);
  CHECK(lab.request("POST", "/reset-lab?lab=ana-paso3", kEnglish).json["message"] == required_en);
  CHECK(lab.request("POST", "/reset-lab?lab=ana-paso3", kSpanish).json["message"] == required_es);
  const std::string wrong_en =
      "the key sent does not open the lab 'ana-paso3', which belongs to 'ana': send ana's key (the lab_key of the "
      "first answer for a lab of ana) as the header 'X-Lab-Key: KEY' or the parameter lab_key=KEY";
  const std::string wrong_es =
      "la clave enviada no abre el laboratorio 'ana-paso3', que es de 'ana': envía la clave de ana (el lab_key de la "
      "primera respuesta de un laboratorio de ana) en la cabecera 'X-Lab-Key: CLAVE' o en el parámetro lab_key=CLAVE";
  const auto bad = with_key("nope");
  CHECK(lab.request("PUT", "/carrier/mode?mode=ok&lab=ana-paso3", with_key("nope", kEnglish)).json["message"] == wrong_en);
  CHECK(lab.request("PUT", "/carrier/mode?mode=ok&lab=ana-paso3", with_key("nope", kSpanish)).json["message"] == wrong_es);
  CHECK(lab.request("PUT", "/carrier/mode?mode=ok&lab=ana-paso3", bad).status == 403);
}

TEST_CASE("a refused change changes nothing: breaker, carrier mode and storm stay as the owner left them") {
  InProcessLab lab;
  const std::string ana = claim_ana(lab);
  REQUIRE(lab.request("PUT", "/carrier/mode?mode=provider_down&lab=ana", with_key(ana)).status == 200);
  REQUIRE(lab.get("/quote-resilient?lab=ana").json["dependency"]["circuit_status"] == "open");
  const auto incidents_before = lab.get("/incidents?lab=ana").json["incidents"].size();

  CHECK(lab.request("POST", "/reset-lab?lab=ana").status == 403);
  CHECK(lab.get("/reset-lab?lab=ana", with_key("abcdefghijklmnopqr27")).status == 403);
  CHECK(lab.request("PUT", "/carrier/mode?mode=ok&lab=ana").status == 403);
  CHECK(lab.request("POST", "/experiments/storm?mode=legacy&scenario=ok&clients=1&requests=1&lab=ana").status == 403);

  // What a user reads: the breaker still open, the mode still provider_down, no storm, the
  // incidents all there.
  CHECK(lab.get("/dependency/state?lab=ana").json["circuit_status"] == "open");
  CHECK(lab.get("/carrier?lab=ana").json["mode"] == "provider_down");
  const Reply storm = lab.get("/experiments/storm?lab=ana");
  CHECK(storm.json["running"] == false);
  CHECK(storm.json["last_result"].is_null());
  CHECK(lab.get("/incidents?lab=ana").json["incidents"].size() == incidents_before);

  // A refused change to a lab of ana's that does not exist yet does not create it.
  const auto listed = [&lab](const std::string& name) {
    const Reply view = lab.get("/class");
    for (const auto& row : view.json["labs"])
      if (row["name"] == name) return true;
    return false;
  };
  CHECK(lab.request("POST", "/reset-lab?lab=ana-x").status == 403);
  CHECK_FALSE(listed("ana-x"));
  CHECK(lab.request("POST", "/reset-lab?lab=ana-x", with_key(ana)).status == 200);
  CHECK(listed("ana-x"));
}

TEST_CASE("reads and quotes need no key, and lab_key is a parameter every route knows") {
  InProcessLab lab;
  const std::string ana = claim_ana(lab);
  for (const char* read : {"/dependency/state?lab=ana", "/incidents?lab=ana&limit=5", "/diagnostics/summary?lab=ana",
                           "/metrics?lab=ana", "/metrics-prometheus?lab=ana", "/carrier?lab=ana",
                           "/experiments/storm?lab=ana", "/health?lab=ana", "/quote-legacy?lab=ana&scenario=ok",
                           "/quote/adr0005?lab=ana&scenario=ok"}) {
    CAPTURE(read);
    const Reply r = lab.get(read);
    CHECK(r.status == 200);
    CHECK(key_in(r).empty());
  }
  // A key sent where none is needed is no unknown parameter.
  for (const std::string& path : {"/incidents?lab=ana&limit=5&lab_key=" + ana, "/quote-resilient?scenario=ok&lab=ana&lab_key=" + ana,
                                 "/quote/adr0005?scenario=ok&lab=ana&lab_key=" + ana}) {
    CAPTURE(path);
    CHECK(lab.get(path).status == 200);
  }
  // ... nor a storm parameter.
  CHECK(lab.request("POST", "/experiments/storm?mode=resilient&scenario=ok&clients=1&requests=1&lab=ana&lab_key=" + ana)
            .status == 202);
  lab.request("DELETE", "/experiments/storm?lab=ana", with_key(ana));
}

TEST_CASE("the teacher's token opens every student's lab, and the teacher's own lab needs it as before") {
  InProcessOptions o;
  o.classroom.admin_token = "s3cret";
  InProcessLab lab(o);
  const httplib::Headers teacher{{"Authorization", "Bearer s3cret"}};
  const std::string ana = claim_ana(lab);
  REQUIRE(lab.request("PUT", "/carrier/mode?mode=provider_down&lab=ana", with_key(ana)).status == 200);
  CHECK(lab.request("POST", "/reset-lab?lab=ana", {{"Authorization", "Bearer s3cre"}}).status == 403);
  CHECK(lab.get("/carrier?lab=ana").json["mode"] == "provider_down");
  CHECK(lab.request("POST", "/reset-lab?lab=ana", teacher).status == 200);
  CHECK(lab.get("/carrier?lab=ana").json["mode"] == "ok");
  CHECK(lab.request("PUT", "/carrier/mode?mode=slow&lab=ana-paso2", teacher).status == 200);
  // Class-wide actions need the token and no key; the class view shows no key.
  CHECK(lab.request("POST", "/class/reset", teacher).status == 200);
  CHECK(lab.request("POST", "/class/reset", with_key(ana)).status == 401);
  CHECK(lab.get("/class").body.find(ana) == std::string::npos);
  // The teacher's lab: a student's key is no token.
  CHECK(lab.request("POST", "/reset-lab", with_key(ana)).status == 401);
  CHECK(lab.request("POST", "/reset-lab", teacher).status == 200);
}

TEST_CASE("keys are on disk before the answer that hands one out, and survive a restart") {
  TempDir dir;
  InProcessOptions o;
  o.state_file = dir / "state.json";
  std::string ana;
  {
    InProcessLab lab(o);
    ana = claim_ana(lab);
    // Written before the answer: a kill -9 now would not lose it.
    CHECK(file_text(o.state_file).find(ana) != std::string::npos);
    REQUIRE(lab.get("/quote-resilient?scenario=provider_down&lab=ana").json["dependency"]["circuit_status"] == "open");
  }
  InProcessLab again(o);
  CHECK(again.get("/dependency/state?lab=ana").json["circuit_status"] == "open");
  CHECK(again.request("POST", "/reset-lab?lab=ana").status == 403);
  CHECK(again.get("/dependency/state?lab=ana").json["circuit_status"] == "open");
  const Reply reset = again.request("POST", "/reset-lab?lab=ana", with_key(ana));
  CHECK(reset.status == 200);
  CHECK(key_in(reset).empty());  // no new key after a restart
  CHECK(again.get("/dependency/state?lab=ana").json["circuit_status"] == "closed");
}

TEST_CASE("an owner whose labs are all forgotten after --lab-idle-minutes gives the name back") {
  InProcessLab lab;
  const std::string ana = claim_ana(lab);
  REQUIRE(key_in(lab.get("/carrier?lab=bruno")).size() == kLabKeyLength);
  lab.clock().advance(std::chrono::minutes(kDefaultLabIdleMinutes + 1));
  REQUIRE(lab.labs().expire_idle() == 2);
  const std::string next = key_in(lab.get("/quote-resilient?scenario=ok&lab=ana"));
  CHECK(well_formed_lab_key(next));
  CHECK(next != ana);
  CHECK(lab.request("POST", "/reset-lab?lab=ana", with_key(ana)).status == 403);
}

}  // namespace test_lab_keys
