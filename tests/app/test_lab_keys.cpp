// A student's lab belongs to the student (lab/app/lab_keys.hpp): a name is claimed once, by
// POST /claim?name=NAME, whose answer alone carries its key; the longest claimed name owns a
// lab; a quote or a change to a claimed owner's lab needs that key (or the teacher's token),
// reading never does; a refusal is a 403 that says what to add and changes nothing; the
// teacher issues a new key; keys survive a restart, and a name whose labs are all forgotten
// is free again. In-process, over HTTP, on the fake clock.
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

// A student's step 0: POST /claim?name=NAME is a 201 that hands out a well-formed key.
std::string claim(InProcessLab& lab, const std::string& name, const httplib::Headers& headers = {}) {
  const Reply r = lab.request("POST", "/claim?name=" + name, headers);
  REQUIRE(r.status == 201);
  const std::string key = key_in(r);
  REQUIRE(well_formed_lab_key(key));
  return key;
}

struct Call {
  const char* method;
  const char* path;  // on lab ana; "&" follows
};
// Every change a student makes to their own lab, quotes included (they move its breaker).
const Call kChanges[] = {
    {"GET", "/quote-legacy?scenario=ok&lab=ana"},
    {"GET", "/quote-resilient?scenario=ok&lab=ana"},
    {"GET", "/quote/adr0005?scenario=ok&lab=ana"},
    {"GET", "/reset-lab?lab=ana"},
    {"POST", "/reset-lab?lab=ana"},
    {"PUT", "/carrier/mode?mode=slow&lab=ana"},
    {"POST", "/carrier/mode?mode=slow&lab=ana"},
    {"POST", "/experiments/storm?mode=resilient&scenario=ok&clients=1&requests=1&lab=ana"},
    {"DELETE", "/experiments/storm?lab=ana"},
};

// What a user reads of a lab: breaker, carrier mode, incidents, and whether a storm ran.
struct Seen {
  std::string circuit;
  std::string mode;
  std::size_t incidents = 0;
  bool storm_ran = false;
  bool operator==(const Seen&) const = default;
};
Seen seen(InProcessLab& lab, const std::string& name) {
  const Reply storm = lab.get("/experiments/storm?lab=" + name);
  return {lab.get("/dependency/state?lab=" + name).json["circuit_status"].get<std::string>(),
          lab.get("/carrier?lab=" + name).json["mode"].get<std::string>(),
          lab.get("/incidents?lab=" + name).json["incidents"].size(),
          storm.json["running"] == true || !storm.json["last_result"].is_null()};
}

// Whether GET /class lists the lab `name`.
bool listed(InProcessLab& lab, const std::string& name) {
  const Reply view = lab.get("/class");
  for (const auto& row : view.json["labs"])
    if (row["name"] == name) return true;
  return false;
}

// Waits for the storm of lab `name` to end (a second storm meanwhile would be a 409).
void storm_ended(InProcessLab& lab, const std::string& name) {
  REQUIRE(quote_lab::testing::eventually(
      [&] { return lab.get("/experiments/storm?lab=" + name).json["running"] == false; }, std::chrono::seconds(10)));
}

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

TEST_CASE("reads, quotes and pages of a name nobody claimed hand out no key and claim nothing, and POST /claim?name=ana does, once") {
  InProcessLab lab;
  for (const char* read : {"/dependency/state?lab=ana-paso0", "/incidents?lab=ana-paso0", "/?lab=ana-paso0",
                           "/carrier?lab=ana-paso0", "/quote-resilient?scenario=ok&lab=ana-paso0"}) {
    CAPTURE(read);
    const Reply r = lab.get(read);
    CHECK(r.status == 200);
    CHECK(r.json.is_object());
    CHECK_FALSE(r.json.contains("lab_key"));
  }
  const Reply page = lab.get("/?lab=ana-paso0", {{"Accept", "text/html"}});
  CHECK(page.status == 200);
  CHECK(page.content_type.find("text/html") == 0);
  CHECK(lab.request("HEAD", "/dependency/state?lab=ana-paso0").status == 200);
  CHECK(lab.get("/claim?name=ana").status == 405);  // claiming is a POST: a link or a prefetch claims nothing
  // Nothing was claimed: ana's labs are still anyone's.
  CHECK(lab.request("POST", "/reset-lab?lab=ana-paso0").status == 200);

  const Reply claimed = lab.request("POST", "/claim?name=ana");
  CHECK(claimed.status == 201);
  const std::string key = key_in(claimed);
  CHECK(well_formed_lab_key(key));
  CHECK(claimed.json["owner"] == "ana");
  CHECK(claimed.json["message"] ==
        "the name 'ana' is yours: keep lab_key as CLAVE; every lab called ana or ana-... needs it (X-Lab-Key) for "
        "quotes, resets, carrier modes and storms. It is shown only now");
  const Reply bruno = lab.request("POST", "/claim?name=bruno", kSpanish);
  CHECK(bruno.status == 201);
  CHECK(well_formed_lab_key(key_in(bruno)));
  CHECK(key_in(bruno) != key);
  CHECK(bruno.json["message"] ==
        "el nombre 'bruno' es tuyo: guarda lab_key en CLAVE; todo laboratorio llamado bruno o bruno-... la necesita "
        "(X-Lab-Key) para cotizaciones, restablecimientos, modos del proveedor y tormentas. Solo se muestra ahora");
  // From now on her labs are hers ...
  CHECK(lab.request("POST", "/reset-lab?lab=ana-paso0").status == 403);
  // ... and no other answer shows her key: not her own quotes and reads, nor the class view.
  for (const std::string& path : {std::string("/quote-resilient?scenario=ok&lab=ana-paso0"),
                                  std::string("/dependency/state?lab=ana-paso0"), std::string("/class"),
                                  std::string("/?lab=ana-paso0")}) {
    CAPTURE(path);
    const Reply r = lab.get(path, with_key(key));
    CHECK(r.status == 200);
    CHECK(r.body.find(key) == std::string::npos);
  }

  // A second claim of a claimed name: a 409 that says what to do, in the reader's language,
  // and no key. Names fold to lower case: "Ana" is ana.
  const Reply again = lab.request("POST", "/claim?name=ana");
  CHECK(again.status == 409);
  CHECK(again.json["error"] == "name_taken");
  CHECK_FALSE(again.json.contains("lab_key"));
  CHECK(again.body.find(key) == std::string::npos);
  CHECK(again.json["message"] ==
        "the name 'ana' is already claimed: its labs are its owner's. If it is yours and you lost the key, ask the "
        "teacher for a new one; if not, choose another name (e.g. YO=ana2)");
  const Reply again_es = lab.request("POST", "/claim?name=Ana", kSpanish);
  CHECK(again_es.status == 409);
  CHECK(again_es.json["error"] == "name_taken");
  CHECK(again_es.json["message"] ==
        "el nombre 'ana' ya tiene dueño: sus laboratorios son de quien lo reclamó. Si es el tuyo y perdiste la clave, "
        "pide una nueva al profesor; si no, elige otro nombre (por ejemplo YO=ana2)");
  CHECK(lab.request("POST", "/reset-lab?lab=ana-paso0", with_key(key)).status == 200);  // her key is as it was

  // A claim names one good name, and no lab.
  for (const char* path : {"/claim", "/claim?name="}) {
    CAPTURE(path);
    const Reply r = lab.request("POST", path);
    CHECK(r.status == 400);
    CHECK(r.json["error"] == "invalid_parameter");
    CHECK(r.json["message"] == "say which name you claim: POST /claim?name=YOUR_NAME (letters a-z, digits and '-', e.g. ana)");
    CHECK(lab.request("POST", path, kSpanish).json["message"] ==
          "di qué nombre reclamas: POST /claim?name=TU_NOMBRE (letras a-z, dígitos y '-', por ejemplo ana)");
  }
  for (const std::string& bad : {std::string("a_b"), std::string("carla%20x"), std::string(33, 'c')}) {
    CAPTURE(bad);
    const Reply r = lab.request("POST", "/claim?name=" + bad);
    CHECK(r.status == 400);
    CHECK(r.json["error"] == "invalid_lab_name");
    CHECK_FALSE(r.json.contains("lab_key"));
  }
  const Reply begona = lab.request("POST", "/claim?name=Bego%C3%B1a", kSpanish);  // as a Spanish keyboard types it
  CHECK(begona.status == 400);
  CHECK(begona.json["message"] ==
        "un nombre de laboratorio usa solo letras a-z, dígitos y '-', y «ñ» no es una de ellas: escribe «begona» en su lugar");
  const Reply unknown = lab.request("POST", "/claim?nombre=carla");
  CHECK(unknown.status == 400);
  CHECK(unknown.json["error"] == "unknown_parameter");
  const Reply with_lab = lab.request("POST", "/claim?name=carla&lab=carla");
  CHECK(with_lab.status == 400);  // a class-wide route: ?lab= names no lab there
  CHECK(with_lab.json["error"] == "invalid_parameter");
  CHECK(with_lab.json["message"].get<std::string>().find("leave out ?lab=") != std::string::npos);
  CHECK_FALSE(with_lab.json.contains("lab_key"));
  // None of the refused claims claimed anything: carla is free.
  claim(lab, "carla");
}

TEST_CASE("after ana claims, a quote, reset, carrier mode or storm on her lab without her key is a 403 that says what to add") {
  InProcessLab lab;
  const std::string ana = claim(lab, "ana");
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
    const Reply wrong_param = lab.request(call.method, std::string(call.path) + "&lab_key=abcdefghijklmnopqr27");
    CHECK(wrong_param.status == 403);
    CHECK(wrong_param.json["error"] == "wrong_lab_key");
    const Reply header = lab.request(call.method, call.path, with_key(ana));
    CHECK(header.status >= 200);
    CHECK(header.status < 300);
    CHECK(key_in(header).empty());
    lab.request("DELETE", "/experiments/storm?lab=ana", with_key(ana));
    storm_ended(lab, "ana");
    // The parameter is as good as the header (a pasted key's spaces and newline are dropped).
    const Reply param = lab.request(call.method, std::string(call.path) + "&lab_key=" + ana);
    CHECK(param.status >= 200);
    CHECK(param.status < 300);
    lab.request("DELETE", "/experiments/storm?lab=ana", with_key(ana));
    storm_ended(lab, "ana");
  }
  CHECK(lab.get("/quote-legacy?scenario=ok&lab=ana&lab_key=%20" + ana + "%0A").status == 200);

  // The message names the lab and its owner and says what to add, in the reader's language
  // (English for curl).
  const std::string required_en =
      "the lab 'ana-paso3' belongs to 'ana': a quote, a reset, a carrier mode or a storm in it needs ana's key. Add "
      "the header 'X-Lab-Key: KEY' (or the parameter lab_key=KEY); the key came as lab_key in the answer of ana's step "
      "0 (POST /claim?name=ana). Lost it? The teacher can issue a new one";
  const std::string required_es =
      "el laboratorio 'ana-paso3' es de 'ana': una cotización, un restablecimiento, un cambio de modo del proveedor o "
      "una tormenta en él necesitan la clave de ana. Añade la cabecera 'X-Lab-Key: CLAVE' (o el parámetro "
      "lab_key=CLAVE); la clave llegó como lab_key en la respuesta del paso 0 de ana (POST /claim?name=ana). ¿La "
      "perdiste? El profesor puede darte una nueva";
  CHECK(lab.get("/quote-resilient?scenario=provider_down&lab=ana-paso3").json["message"] == required_en);
  CHECK(lab.request("POST", "/reset-lab?lab=ana-paso3", kEnglish).json["message"] == required_en);
  CHECK(lab.request("POST", "/reset-lab?lab=ana-paso3", kSpanish).json["message"] == required_es);
  const std::string wrong_en =
      "the key sent does not open the lab 'ana-paso3', which belongs to 'ana': send ana's key (the lab_key of ana's "
      "step 0) as the header 'X-Lab-Key: KEY' or the parameter lab_key=KEY. Lost it? The teacher can issue a new one";
  const std::string wrong_es =
      "la clave enviada no abre el laboratorio 'ana-paso3', que es de 'ana': envía la clave de ana (el lab_key de su "
      "paso 0) en la cabecera 'X-Lab-Key: CLAVE' o en el parámetro lab_key=CLAVE. ¿La perdiste? El profesor puede "
      "darte una nueva";
  CHECK(lab.request("PUT", "/carrier/mode?mode=ok&lab=ana-paso3", with_key("nope", kEnglish)).json["message"] == wrong_en);
  CHECK(lab.request("PUT", "/carrier/mode?mode=ok&lab=ana-paso3", with_key("nope", kSpanish)).json["message"] == wrong_es);
  // A token where no teacher's token is set is no key either: it says so.
  const Reply token = lab.request("POST", "/reset-lab?lab=ana-paso3", {{"Authorization", "Bearer guess"}});
  CHECK(token.status == 403);
  CHECK(token.json["error"] == "wrong_teacher_token");
}

TEST_CASE("a stranger's refused quote, reset, carrier mode or storm changes nothing in ana's lab, and creates no lab") {
  InProcessLab lab;
  const std::string ana = claim(lab, "ana");
  REQUIRE(lab.request("PUT", "/carrier/mode?mode=slow&lab=ana-paso1", with_key(ana)).status == 200);
  REQUIRE(lab.get("/quote-resilient?scenario=ok&lab=ana-paso1", with_key(ana)).status == 200);
  const Seen before = seen(lab, "ana-paso1");
  REQUIRE(before == Seen{"closed", "slow_provider", 1, false});

  // Five provider_down quotes would open her breaker; each is refused before it runs.
  for (int i = 0; i < 5; ++i) {
    const Reply quote = lab.get("/quote-resilient?scenario=provider_down&lab=ana-paso1");
    CHECK(quote.status == 403);
    CHECK(quote.json["error"] == "lab_key_required");
  }
  CHECK(lab.get("/quote-legacy?scenario=provider_down&lab=ana-paso1").status == 403);
  CHECK(lab.get("/quote/adr0005?scenario=provider_down&lab=ana-paso1", with_key("abcdefghijklmnopqr27")).status == 403);
  CHECK(lab.request("POST", "/reset-lab?lab=ana-paso1").status == 403);
  CHECK(lab.get("/reset-lab?lab=ana-paso1", with_key("abcdefghijklmnopqr27")).status == 403);
  CHECK(lab.request("PUT", "/carrier/mode?mode=ok&lab=ana-paso1").status == 403);
  CHECK(lab.request("POST", "/experiments/storm?mode=legacy&scenario=ok&clients=1&requests=1&lab=ana-paso1").status == 403);

  // What a user reads: the breaker still closed, the mode still hers, her one quote the only
  // request, no storm.
  CHECK(seen(lab, "ana-paso1") == before);
  bool found = false;
  const Reply view = lab.get("/class");
  for (const auto& row : view.json["labs"])
    if (row["name"] == "ana-paso1") {
      found = true;
      CHECK(row["requests"] == 1);
    }
  CHECK(found);

  // With her key the same quote runs: the refusals above were all that kept it out.
  const Reply hers = lab.get("/quote-resilient?scenario=provider_down&lab=ana-paso1", with_key(ana));
  CHECK(hers.status == 200);
  CHECK(hers.json["dependency"]["circuit_status"] == "open");

  // A refused change to a lab of ana's that does not exist yet does not create it.
  CHECK(lab.request("POST", "/reset-lab?lab=ana-x").status == 403);
  CHECK(lab.get("/quote-legacy?scenario=ok&lab=ana-y").status == 403);
  CHECK_FALSE(listed(lab, "ana-x"));
  CHECK_FALSE(listed(lab, "ana-y"));
  CHECK(lab.request("POST", "/reset-lab?lab=ana-x", with_key(ana)).status == 200);
  CHECK(listed(lab, "ana-x"));
}

TEST_CASE("reads need no key, and lab_key is a parameter every route knows") {
  InProcessLab lab;
  const std::string ana = claim(lab, "ana");
  for (const char* read : {"/dependency/state?lab=ana", "/incidents?lab=ana&limit=5", "/diagnostics/summary?lab=ana",
                           "/metrics?lab=ana", "/metrics-prometheus?lab=ana", "/carrier?lab=ana",
                           "/experiments/storm?lab=ana", "/health?lab=ana", "/?lab=ana"}) {
    CAPTURE(read);
    const Reply r = lab.get(read);
    CHECK(r.status == 200);
    CHECK(key_in(r).empty());
  }
  // A key sent where none is needed is no unknown parameter.
  for (const std::string& path : {"/incidents?lab=ana&limit=5&lab_key=" + ana, "/carrier?lab=ana&lab_key=" + ana,
                                 "/quote-resilient?scenario=ok&lab=ana&lab_key=" + ana,
                                 "/quote/adr0005?scenario=ok&lab=ana&lab_key=" + ana}) {
    CAPTURE(path);
    CHECK(lab.get(path).status == 200);
  }
  // ... nor a storm parameter.
  CHECK(lab.request("POST", "/experiments/storm?mode=resilient&scenario=ok&clients=1&requests=1&lab=ana&lab_key=" + ana)
            .status == 202);
  lab.request("DELETE", "/experiments/storm?lab=ana", with_key(ana));
}

TEST_CASE("a storm ana starts on her claimed lab sends its quotes with her key: they are served, not refused") {
  InProcessLab lab;
  const std::string ana = claim(lab, "ana");
  REQUIRE(lab.request("POST", "/experiments/storm?mode=resilient&scenario=ok&clients=1&requests=3&lab=ana-paso4",
                      with_key(ana))
              .status == 202);
  storm_ended(lab, "ana-paso4");
  const Reply storm = lab.get("/experiments/storm?lab=ana-paso4");
  CHECK(storm.json["last_result"]["status_counts"] == json{{"completed", 3}});
  CHECK(lab.get("/incidents?lab=ana-paso4").json["incidents"].size() == 3);
  CHECK(storm.body.find(ana) == std::string::npos);  // the storm's report never shows the key
}

TEST_CASE("ana-maria and ana are two owners: each claims her name, and neither key opens the other's labs") {
  InProcessLab lab;
  const std::string ana = claim(lab, "ana");
  // Until ana-maria claims her name, ana-maria-paso1 is one of ana's labs.
  CHECK(lab.request("POST", "/reset-lab?lab=ana-maria-paso1", with_key(ana)).status == 200);
  const std::string maria = claim(lab, "ana-maria");
  CHECK(maria != ana);
  CHECK(lab.request("POST", "/claim?name=ana-maria").status == 409);

  const Reply ana_on_maria = lab.get("/quote-resilient?scenario=ok&lab=ana-maria-paso1", with_key(ana));
  CHECK(ana_on_maria.status == 403);
  CHECK(ana_on_maria.json["error"] == "wrong_lab_key");
  CHECK(ana_on_maria.json["message"].get<std::string>().find("which belongs to 'ana-maria'") != std::string::npos);
  const Reply maria_on_ana = lab.get("/quote-resilient?scenario=ok&lab=ana-paso1", with_key(maria));
  CHECK(maria_on_ana.status == 403);
  CHECK(maria_on_ana.json["error"] == "wrong_lab_key");
  CHECK(maria_on_ana.json["message"].get<std::string>().find("which belongs to 'ana'") != std::string::npos);
  const Reply nobody = lab.request("POST", "/reset-lab?lab=ana-maria");
  CHECK(nobody.status == 403);
  CHECK(nobody.json["message"].get<std::string>().find("the lab 'ana-maria' belongs to 'ana-maria'") == 0);

  CHECK(lab.get("/quote-resilient?scenario=ok&lab=ana-maria-paso1", with_key(maria)).status == 200);
  CHECK(lab.get("/quote-resilient?scenario=ok&lab=ana-maria", with_key(maria)).status == 200);
  CHECK(lab.get("/quote-resilient?scenario=ok&lab=ana-paso1", with_key(ana)).status == 200);
  CHECK(lab.get("/quote-resilient?scenario=ok&lab=ana", with_key(ana)).status == 200);
  // "anabel" starts with "ana" but not with "ana-": nobody's, anyone's.
  CHECK(lab.request("POST", "/reset-lab?lab=anabel-paso1").status == 200);
}

TEST_CASE("the teacher's token opens every student's lab and issues a new key, and a wrong token says so") {
  InProcessOptions o;
  o.classroom.admin_token = "s3cret";
  InProcessLab lab(o);
  const httplib::Headers teacher{{"Authorization", "Bearer s3cret"}};
  const httplib::Headers mistyped{{"Authorization", "Bearer s3cre"}};
  const std::string ana = claim(lab, "ana");  // a student's claim needs no token
  REQUIRE(lab.request("PUT", "/carrier/mode?mode=slow&lab=ana-paso2", with_key(ana)).status == 200);

  // A wrong token, and no key: a 403 that names the token, not a missing key; nothing changes.
  for (const Call& call : {Call{"POST", "/reset-lab?lab=ana-paso2"}, Call{"PUT", "/carrier/mode?mode=ok&lab=ana-paso2"},
                           Call{"GET", "/quote-resilient?scenario=provider_down&lab=ana-paso2"}}) {
    CAPTURE(call.path);
    const Reply r = lab.request(call.method, call.path, mistyped);
    CHECK(r.status == 403);
    CHECK(r.json["error"] == "wrong_teacher_token");
  }
  CHECK(lab.request("POST", "/reset-lab?lab=ana-paso2", mistyped).json["message"] ==
        "the teacher's token sent (Authorization: Bearer ...) is not this lab's: check LAB_ADMIN_TOKEN, or send the "
        "lab's own key (X-Lab-Key) instead");
  httplib::Headers mistyped_es = mistyped;
  mistyped_es.emplace("Accept-Language", "es");
  CHECK(lab.request("POST", "/reset-lab?lab=ana-paso2", mistyped_es).json["message"] ==
        "el token de docente enviado (Authorization: Bearer ...) no es el de este laboratorio: revisa LAB_ADMIN_TOKEN, "
        "o envía en su lugar la clave del laboratorio (X-Lab-Key)");
  CHECK(seen(lab, "ana-paso2") == Seen{"closed", "slow_provider", 0, false});
  // Beside her key, a stray token does not stand in the way: the key decides.
  CHECK(lab.get("/quote-resilient?scenario=ok&lab=ana-paso2", with_key(ana, mistyped)).status == 200);

  // The token opens her labs: a quote, a carrier mode, a reset.
  const Reply quote = lab.get("/quote-resilient?scenario=provider_down&lab=ana-paso2", teacher);
  CHECK(quote.status == 200);
  CHECK(quote.json["dependency"]["circuit_status"] == "open");
  CHECK(lab.request("PUT", "/carrier/mode?mode=provider_down&lab=ana-paso3", teacher).status == 200);
  CHECK(lab.request("POST", "/reset-lab?lab=ana-paso2", teacher).status == 200);
  CHECK(seen(lab, "ana-paso2") == Seen{"closed", "ok", 0, false});

  // Ana lost her key: the teacher's claim issues a new one, and the old one opens nothing.
  const Reply reissued = lab.request("POST", "/claim?name=ana", teacher);
  CHECK(reissued.status == 201);
  const std::string fresh = key_in(reissued);
  CHECK(well_formed_lab_key(fresh));
  CHECK(fresh != ana);
  CHECK(reissued.json["owner"] == "ana");
  CHECK(reissued.json["message"] == "a new key for 'ana': the old one opens nothing from now on. Give lab_key to its owner");
  const Reply old = lab.request("POST", "/reset-lab?lab=ana-paso3", with_key(ana));
  CHECK(old.status == 403);
  CHECK(old.json["error"] == "wrong_lab_key");
  CHECK(lab.get("/carrier?lab=ana-paso3").json["mode"] == "provider_down");
  CHECK(lab.request("POST", "/reset-lab?lab=ana-paso3", with_key(fresh)).status == 200);
  CHECK(lab.get("/quote-resilient?scenario=ok&lab=ana-paso2", with_key(fresh)).status == 200);
  CHECK(lab.request("POST", "/claim?name=ana").status == 409);  // a student still cannot take it

  // Class-wide actions need the token and no key; the class view shows no key.
  CHECK(lab.request("POST", "/class/reset", teacher).status == 200);
  CHECK(lab.request("POST", "/class/reset", with_key(fresh)).status == 401);
  const Reply view = lab.get("/class");
  CHECK(view.body.find(ana) == std::string::npos);
  CHECK(view.body.find(fresh) == std::string::npos);
  // The teacher's lab: a student's key is no token.
  CHECK(lab.request("POST", "/reset-lab", with_key(fresh)).status == 401);
  CHECK(lab.request("POST", "/reset-lab", teacher).status == 200);
}

TEST_CASE("a key is on disk before the claim's answer, and survives a restart") {
  TempDir dir;
  InProcessOptions o;
  o.state_file = dir / "state.json";
  std::string ana;
  {
    InProcessLab lab(o);
    ana = claim(lab, "ana");
    // Written before the answer: a kill -9 now would not lose it.
    CHECK(file_text(o.state_file).find(ana) != std::string::npos);
    REQUIRE(lab.get("/quote-resilient?scenario=provider_down&lab=ana", with_key(ana)).json["dependency"]["circuit_status"] ==
            "open");
  }
  InProcessLab again(o);
  CHECK(again.get("/dependency/state?lab=ana").json["circuit_status"] == "open");
  const Reply refused = again.request("POST", "/reset-lab?lab=ana");
  CHECK(refused.status == 403);
  CHECK(refused.json["error"] == "lab_key_required");
  CHECK(again.get("/quote-resilient?scenario=ok&lab=ana-paso1").status == 403);
  CHECK(again.request("POST", "/claim?name=ana").status == 409);  // still hers
  CHECK(again.get("/dependency/state?lab=ana").json["circuit_status"] == "open");
  const Reply reset = again.request("POST", "/reset-lab?lab=ana", with_key(ana));
  CHECK(reset.status == 200);
  CHECK(key_in(reset).empty());
  CHECK(again.get("/dependency/state?lab=ana").json["circuit_status"] == "closed");
}

TEST_CASE("a name whose labs are all forgotten after --lab-idle-minutes is given back, and can be claimed again") {
  InProcessLab lab;
  const std::string ana = claim(lab, "ana");
  const std::string bruno = claim(lab, "bruno");
  claim(lab, "carla");  // claimed, no lab yet
  REQUIRE(lab.get("/quote-resilient?scenario=ok&lab=ana-paso1", with_key(ana)).status == 200);
  REQUIRE(lab.get("/quote-resilient?scenario=ok&lab=bruno-paso1", with_key(bruno)).status == 200);
  REQUIRE(lab.get("/quote-resilient?scenario=ok&lab=bruno-paso2", with_key(bruno)).status == 200);
  // Bruno keeps one lab in use: half-way through the idle time he reads bruno-paso2.
  lab.clock().advance(std::chrono::minutes(kDefaultLabIdleMinutes / 2));
  REQUIRE(lab.get("/carrier?lab=bruno-paso2").status == 200);
  lab.clock().advance(std::chrono::minutes(kDefaultLabIdleMinutes / 2 + 1));

  // Next class's ana claims her name as her first request of the day.
  const Reply next = lab.request("POST", "/claim?name=ana");
  CHECK(next.status == 201);
  const std::string fresh = key_in(next);
  CHECK(well_formed_lab_key(fresh));
  CHECK(fresh != ana);
  CHECK_FALSE(listed(lab, "ana-paso1"));
  const Reply old = lab.request("POST", "/reset-lab?lab=ana-paso1", with_key(ana));
  CHECK(old.status == 403);
  CHECK(old.json["error"] == "wrong_lab_key");
  CHECK(lab.request("POST", "/reset-lab?lab=ana-paso1", with_key(fresh)).status == 200);
  // Bruno's name stays his while one of his labs is in use; a claim with no lab yet is kept
  // (step 0 comes before any lab).
  CHECK(lab.request("POST", "/claim?name=bruno").status == 409);
  CHECK(lab.request("POST", "/reset-lab?lab=bruno-paso2", with_key(bruno)).status == 200);
  CHECK(lab.request("POST", "/claim?name=carla").status == 409);
}

}  // namespace test_lab_keys
