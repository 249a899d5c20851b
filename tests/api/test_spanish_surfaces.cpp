// One Spanish: every route of the lab answers in the language Accept-Language asks for, with
// the course glossary's one term per concept (tests/support/spanish_text.hpp). The walk takes
// its routes from the lab's own index (`GET /`, built from the route table), so a route added
// later is walked too: each method it lists, on the teacher's lab and on a student's, its
// example parameters one by one made invalid, an unknown parameter, a method it does not
// answer; then the error paths no route lists (404s, lab names, overrides, the teacher token,
// another site, an unknown host, the rate limit, a student's lab key), every scenario under
// every course policy (each outcome's explanation), and the simulated carrier's own errors.
// Every sentence of every JSON answer is judged; codes, names and paths are not sentences.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lab/http/api_error.hpp"
#include "support/in_process_lab.hpp"
#include "support/paths.hpp"
#include "support/running_carrier.hpp"
#include "support/spanish_text.hpp"

namespace test_spanish_surfaces {

using namespace quote_lab;
using namespace std::chrono_literals;
using quote_lab::testing::foreign_words;
using quote_lab::testing::InProcessLab;
using quote_lab::testing::InProcessOptions;
using quote_lab::testing::Reply;
using quote_lab::testing::RunningCarrier;
using quote_lab::testing::Sentence;

namespace {

// Values that are code, not sentences, whatever words they hold: the error code, paths and
// URLs, the index's curl commands, the carrier routes a 404 lists, the raw bodies a scenario's
// carrier sends (a third party's bytes), the state file's path and the OS's reason.
const std::set<std::string> kCodeKeys{"error",      "allowed",    "path",       "url",
                                      "carrier_url", "try",       "body",       "state_file",
                                      "state_file_set_aside", "state_file_error", "method"};

const char* tag(Language language) { return language == Language::es ? "es" : "en"; }

// Sends requests in one language, judges every sentence of every JSON answer, and keeps the
// student's lab key once an answer gives one (the student's claim, the walk's first request:
// the key is sent on every later request, so the walk reaches what a key guards; the
// refusals are asked for on purpose).
struct Walk {
  Walk(InProcessLab& l, Language in) : lab(l), language(in) {}

  InProcessLab& lab;
  Language language;
  std::string lab_key;
  std::vector<std::string> problems;
  int sentences = 0;

  Reply send(const std::string& method, const std::string& path, httplib::Headers extra = {}, bool with_key = true) {
    extra.emplace("Accept-Language", tag(language));
    if (with_key && !lab_key.empty()) extra.emplace("X-Lab-Key", lab_key);
    const Reply r = lab.request(method, path, extra);
    judge(method + " " + path + " → " + std::to_string(r.status), r);
    if (r.json.is_object() && r.json.contains("lab_key") && r.json["lab_key"].is_string() && lab_key.empty())
      lab_key = r.json["lab_key"].get<std::string>();
    return r;
  }

  void judge(const std::string& what, const Reply& r) {
    if (r.json.is_discarded()) return;  // a page, a script, Prometheus text: not this test's
    std::vector<Sentence> found;
    testing::sentences_of(r.json, language, kCodeKeys, found);
    for (const Sentence& s : found) {
      ++sentences;
      const auto words = foreign_words(s.text, language);
      if (words.empty()) continue;
      std::string list;
      for (const auto& w : words) list += (list.empty() ? "" : ", ") + w;
      problems.push_back(what + " " + s.where + ": \"" + s.text + "\" [" + list + "]");
    }
  }

  std::string report() const {
    std::ostringstream out;
    for (const auto& p : problems) out << p << "\n";
    return out.str();
  }
};

// "a=1&b=2" → {{"a", "1"}, {"b", "2"}}.
std::vector<std::pair<std::string, std::string>> query_pairs(const std::string& query) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(query);
  for (std::string piece; std::getline(in, piece, '&');) {
    const auto eq = piece.find('=');
    if (eq != std::string::npos) out.emplace_back(piece.substr(0, eq), piece.substr(eq + 1));
  }
  return out;
}

std::string with_param(const std::string& path, const std::string& param) {
  return path + (path.find('?') == std::string::npos ? "?" : "&") + param;
}

// Every route the index lists, each method, the ways a student gets it right and wrong.
void walk_routes(Walk& walk, const std::string& student) {
  // Step 0: the student claims the lab's name (its key, kept by the walk, opens it).
  REQUIRE(walk.send("POST", "/claim?name=" + student).status == 201);
  REQUIRE_FALSE(walk.lab_key.empty());
  const Reply index = walk.send("GET", "/");
  REQUIRE(index.status == 200);
  REQUIRE(index.json["routes"].size() >= 20);
  for (const auto& route : index.json["routes"]) {
    std::string path = route["path"].get<std::string>();
    // A live event stream never ends: its refusal (too many clients) is a table message,
    // judged with the others below.
    if (path.rfind("/events", 0) == 0) continue;
    if (const auto brace = path.find("{policy}"); brace != std::string::npos) path.replace(brace, 8, "adr0005");
    if (const auto brace = path.find("{file}"); brace != std::string::npos) path.replace(brace, 6, "no-such-file.txt");
    const auto q = path.find('?');
    const std::string bare = path.substr(0, q);
    const std::string query = q == std::string::npos ? "" : path.substr(q + 1);
    std::vector<std::string> methods;
    std::istringstream in(route["method"].get<std::string>());
    for (std::string m; std::getline(in, m, '|');) methods.push_back(m);
    for (const auto& method : methods) {
      CAPTURE(method);
      CAPTURE(path);
      walk.send(method, path);                               // the teacher's lab
      walk.send(method, with_param(path, "lab=" + student));  // a student's
      walk.send(method, with_param(path, "bogus=1"));
      for (const auto& [name, value] : query_pairs(query)) {
        std::string wrong = bare + "?";
        for (const auto& [n, v] : query_pairs(query)) wrong += n + "=" + (n == name ? "zzz" : v) + "&";
        wrong.pop_back();
        walk.send(method, wrong);
      }
    }
    for (const char* other : {"DELETE", "PUT", "POST", "GET"}) {
      if (std::find(methods.begin(), methods.end(), other) != methods.end()) continue;
      walk.send(other, path);  // 405, naming the methods it answers
      break;
    }
  }
  // Storms the walk started end here (the teacher's and the student's).
  walk.send("DELETE", "/experiments/storm");
  walk.send("DELETE", "/experiments/storm?lab=" + student);
}

// What no route lists: mistyped routes and labs, per-request overrides out of range.
void walk_errors(Walk& walk, const std::string& student) {
  for (const char* path :
       {"/no-such-route", "/incident", "/04/no-such-route", "/quote/no-such-policy", "/quote/adr0050", "/health?lab=Bad!",
        "/health?lab=a-name-far-longer-than-thirty-two-characters", "/health?lab=a&lab=b", "/incidents?=3",
        "/quote-legacy?items==3", "/quote-legacy?items=1&items=2", "/quote-legacy?scenario=provder_down",
        "/quote-legacy?scenario=nothing-like-it", "/quote-legacy?itms=3", "/quote-resilient?timeout_ms=5000&max_attempts=10",
        "/quote-resilient?jitter=nope", "/quote-resilient?retry_budget_ratio=2", "/quote-resilient?idempotency_key=nope",
        "/quote-resilient?circuit_breaker=maybe", "/quote-resilient?customer_id=0", "/ui/..%2Fsecret",
        "/class/reset?lab=ana"})
    walk.send(std::string(path).rfind("/class", 0) == 0 ? "POST" : "GET", path);
  walk.send("PUT", "/carrier/mode");  // no mode named
  walk.send("PUT", "/carrier/mode?mode=nope");
  // A second storm on a lab that runs one; then it is cancelled.
  const std::string storm = "/experiments/storm?mode=resilient&scenario=ok&clients=1&duration_s=30&lab=" + student;
  walk.send("POST", storm);
  walk.send("POST", storm);
  walk.send("GET", "/experiments/storm?lab=" + student);
  walk.send("DELETE", "/experiments/storm?lab=" + student);
  // A student's lab changed or quoted without its key, with a wrong one, or with a token that
  // is not the teacher's; the name claimed again, and a claim without a name.
  CHECK(walk.send("POST", "/reset-lab?lab=" + student, {}, false).status == 403);
  CHECK(walk.send("POST", "/reset-lab?lab=" + student, {{"X-Lab-Key", "not-the-key"}}, false).status == 403);
  CHECK(walk.send("GET", "/quote-resilient?scenario=ok&lab=" + student, {}, false).status == 403);
  CHECK(walk.send("POST", "/reset-lab?lab=" + student, {{"Authorization", "Bearer not-the-token"}}, false).status == 403);
  CHECK(walk.send("POST", "/claim?name=" + student).status == 409);
  CHECK(walk.send("POST", "/claim").status == 400);
}

// Every scenario the lab ships under the course's policies and adr0005, each on a fresh
// lab and again with the breaker the first left behind; then the half-open probe call,
// answered and failed: every kind of explanation and policy_note.
void walk_quotes(Walk& walk, const std::string& student, const nlohmann::ordered_json& scenarios) {
  const std::string lab = "&lab=" + student;
  for (const auto& sc : scenarios) {
    const std::string name = sc["name"].get<std::string>();
    CAPTURE(name);
    walk.send("POST", "/reset-lab?lab=" + student);
    for (const char* route : {"/quote-legacy", "/quote-resilient", "/quote-resilient", "/quote/adr0005"})
      walk.send("GET", std::string(route) + "?scenario=" + name + lab);
    // A policy without fallback behind the breaker the others left: maybe a 503 that never
    // called the carrier.
    walk.send("GET", "/quote-legacy?scenario=" + name + "&circuit_breaker=true" + lab);
  }
  walk.send("POST", "/reset-lab?lab=" + student);
  walk.send("GET", "/quote-resilient?scenario=provider_down" + lab);
  walk.lab.clock().advance(31s);
  walk.send("GET", "/quote-resilient?scenario=provider_down" + lab);  // the probe fails
  walk.lab.clock().advance(31s);
  walk.send("GET", "/quote-resilient?scenario=ok" + lab);  // the probe answers
  walk.send("GET", "/dependency/state?lab=" + student);
  walk.send("GET", "/incidents?lab=" + student);
  walk.send("GET", "/diagnostics/summary?lab=" + student);
  walk.send("GET", "/carrier?lab=" + student);
}

// `least`: how many sentences the walk must have read, so that a walk that read nothing
// (JSON it could not parse, answers without messages) cannot pass.
void check_walk(const Walk& walk, int least) {
  INFO(walk.report());
  CHECK(walk.problems.empty());
  CHECK(walk.sentences >= least);
}

}  // namespace

TEST_CASE("every route answers in the language asked for, with the glossary's one term per concept") {
  for (const Language language : {Language::es, Language::en}) {
    const std::string lang = tag(language);
    CAPTURE(lang);
    InProcessLab lab;
    Walk walk{lab, language};
    const std::string student = std::string("walk") + tag(language);
    walk_routes(walk, student);
    walk_errors(walk, student);
    walk_quotes(walk, student, walk.send("GET", "/").json["scenarios"]);
    check_walk(walk, 300);
  }
}

TEST_CASE("the refusals of a classroom lab answer in the language asked for: token, another site, host, rate limit") {
  for (const Language language : {Language::es, Language::en}) {
    const std::string lang = tag(language);
    CAPTURE(lang);
    InProcessOptions o;
    o.classroom.admin_token = "secret";
    o.classroom.max_labs = 1;
    o.rate_limit.limit = 1;
    InProcessLab lab(o);
    Walk walk{lab, language};
    CHECK(walk.send("POST", "/reset-lab").status == 401);
    CHECK(walk.send("POST", "/class/reset").status == 401);
    CHECK(walk.send("POST", "/reset-lab", {{"Authorization", "Bearer secret"}}).status == 200);
    CHECK(walk.send("POST", "/class/reset", {{"Authorization", "Bearer secret"}}).status == 200);
    CHECK(walk.send("POST", "/reset-lab", {{"Origin", "http://evil.example"}}).status == 403);
    CHECK(walk.send("GET", "/health", {{"Host", "evil.example"}}).status == 403);
    CHECK(walk.send("GET", "/quote-resilient?scenario=ok").status == 200);
    CHECK(walk.send("GET", "/quote-resilient?scenario=ok").status == 429);
    CHECK(walk.send("GET", "/health?lab=first").status == 200);
    CHECK(walk.send("GET", "/health?lab=second").status >= 400);  // --max-labs 1
    check_walk(walk, 8);
  }
}

TEST_CASE("the simulated carrier's own errors answer in the language asked for") {
  RunningCarrier carrier(std::filesystem::path(quote_lab::testing::source_dir()) / "scenarios");
  for (const Language language : {Language::es, Language::en}) {
    const std::string lang = tag(language);
    CAPTURE(lang);
    std::vector<std::string> problems;
    int sentences = 0;
    // Not /quote?scenario=bad_request: its 400 is the scenario file's body, a third party's
    // bytes as it sends them.
    for (const char* path : {"/no-such-route", "/quote-legacy", "/quote?items=99", "/quote?scenario=nope"}) {
      const Reply r = quote_lab::testing::http_request(carrier.port, "GET", path, {{"Accept-Language", tag(language)}});
      CHECK(r.status >= 400);
      std::vector<Sentence> found;
      testing::sentences_of(r.json, language, {"error", "allowed", "body"}, found);
      for (const Sentence& s : found) {
        ++sentences;
        if (!foreign_words(s.text, language).empty()) problems.push_back(std::string(path) + " " + s.where + ": " + s.text);
      }
    }
    std::string report;
    for (const auto& p : problems) report += p + "\n";
    INFO(report);
    CHECK(problems.empty());
    CHECK(sentences >= 3);
  }
}

TEST_CASE("every message of the table is clean prose in its own language") {
  for (int i = 0; i < static_cast<int>(MessageId::count_); ++i) {
    const auto id = static_cast<MessageId>(i);
    CAPTURE(i);
    const std::string es = message_text(id, Language::es, {});
    const std::string en = message_text(id, Language::en, {});
    CAPTURE(es);
    CAPTURE(en);
    CHECK(foreign_words(es, Language::es).empty());
    CHECK(foreign_words(en, Language::en).empty());
  }
}

TEST_CASE("the judge itself: English and rejected terms in Spanish, Spanish in English, code left alone") {
  using W = std::vector<std::string>;
  CHECK(foreign_words("el disyuntor rechaza la solicitud sin llamar al proveedor", Language::es).empty());
  CHECK(foreign_words("tiempo límite (timeout) de `legacy`: 360 ms; usa ?lab=NOMBRE o --max-labs", Language::es).empty());
  CHECK(foreign_words("reinicia el proceso: el disyuntor sigue abierto", Language::es).empty());
  CHECK(foreign_words("the carrier failed once", Language::es) == W{"the", "carrier", "failed"});
  CHECK(foreign_words("El circuito estaba semiabierto: la sonda respondió", Language::es) == W{"circuito", "sonda"});
  CHECK(foreign_words("reinicia tu laboratorio con /reset-lab", Language::es) == W{"reinicia"});
  CHECK(foreign_words("una política resiliente, no legacy", Language::es) == W{"resiliente", "legacy"});
  CHECK(foreign_words("Live quote on the first attempt.", Language::en).empty());
  CHECK(foreign_words("the quote for 'señor' arrived", Language::en).empty());  // a value typed, quoted
  CHECK(foreign_words("Cotización en vivo al primer intento.", Language::en) == W{"Cotización", "en", "al", "intento"});
}

}  // namespace test_spanish_surfaces
