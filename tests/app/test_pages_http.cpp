// Integration (issue 12): the course's pages for browsers, the JSON and text that curl,
// scripts and Prometheus get at the same URLs, and the help a student gets for a mistake —
// on a real `quote-lab serve` with its embedded carrier.
#include <doctest/doctest.h>

#include "support/lab_process.hpp"

using namespace quote_lab::testing;

namespace {

const httplib::Headers kBrowser{{"Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"},
                                {"Accept-Language", "es-AR,es;q=0.9,en;q=0.8"}};
const httplib::Headers kScript{{"Accept", "application/json"}};
// What Prometheus 2.x sends when it scrapes.
const httplib::Headers kPrometheus{
    {"Accept", "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
               "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"}};
const httplib::Headers kSpanish{{"Accept-Language", "es-AR,es;q=0.9,en;q=0.8"}};

// The simulated carrier's own base URL, as the lab reports it.
std::string carrier_url(const LabProcess& lab) { return lab.get("/carrier").json["url"].get<std::string>(); }

}  // namespace

TEST_CASE("a browser gets a page at /incidents, /diagnostics/summary, /metrics and /dependency/state, curl and scripts get the JSON") {
  LabProcess lab;
  lab.get("/quote-legacy?scenario=ok");
  struct Row {
    const char* path;
    const char* json_key;  // a field the JSON answer has
  };
  for (const Row& r : {Row{"/incidents", "incidents"}, Row{"/diagnostics/summary", "modes"}, Row{"/metrics", "metrics"},
                       Row{"/dependency/state", "circuit_status"}, Row{"/04/incidents?limit=3", "incidents"},
                       Row{"/04/dependency/state", "circuit_status"}}) {
    CAPTURE(r.path);
    const Reply page = lab.get(r.path, kBrowser);
    CHECK(page.status == 200);
    CHECK(page.content_type.find("text/html") == 0);
    CHECK(page.body.find("/ui/pages.js") != std::string::npos);
    for (const Reply& data : {lab.get(r.path), lab.get(r.path, kScript)}) {  // curl's */*, a script's JSON
      CHECK(data.status == 200);
      CHECK(data.content_type.find("application/json") == 0);
      CHECK(data.json.contains(r.json_key));
    }
  }
  // The page's script and style are served like the dashboard's.
  CHECK(lab.get("/ui/pages.js").content_type.find("text/javascript") == 0);
  CHECK(lab.get("/ui/pages.css").content_type.find("text/css") == 0);
  // A bad query still gets the page in a browser (it shows the 400), and the 400 everywhere else.
  CHECK(lab.get("/incidents?limit=0", kBrowser).status == 200);
  CHECK(lab.get("/incidents?limit=0").status == 400);
  // The routes that are not pages stay JSON for a browser.
  CHECK(lab.get("/health", kBrowser).content_type.find("application/json") == 0);
  CHECK(lab.get("/carrier", kBrowser).content_type.find("application/json") == 0);
}

TEST_CASE("Prometheus keeps getting its text at /metrics and /metrics-prometheus, browsers or not") {
  LabProcess lab;
  const Reply scrape = lab.get("/metrics", kPrometheus);
  CHECK(scrape.status == 200);
  CHECK(scrape.content_type == "text/plain; version=0.0.4; charset=utf-8");
  CHECK(scrape.body.find("# TYPE quote_lab_quote_requests_total counter") != std::string::npos);
  CHECK(lab.get("/metrics", {{"Accept", "text/plain"}}).content_type.find("text/plain") == 0);
  CHECK(lab.get("/metrics-prometheus", kBrowser).content_type.find("text/plain") == 0);
}

TEST_CASE("every example path of GET / works when pasted, the quote examples included") {
  LabProcess lab;
  int tried = 0;
  const Reply index = lab.get("/");
  for (const auto& r : index.json["routes"]) {
    const std::string path = r["path"].get<std::string>();
    if (r["method"] != "GET" || path.find('?') == std::string::npos) continue;
    CAPTURE(path);
    ++tried;
    const Reply reply = lab.get(path);
    CHECK(reply.status == 200);
    CHECK(reply.json.is_object());
  }
  CHECK(tried >= 3);  // /quote-legacy, /quote-resilient, /incidents
}

TEST_CASE("scenario names are case-insensitive, and a typo gets a did-you-mean") {
  LabProcess lab;
  const Reply upper = lab.get("/quote-resilient?scenario=OK");
  CHECK(upper.status == 200);
  CHECK(upper.json["scenario"] == "ok");  // reported canonically
  CHECK(lab.get("/quote-legacy?scenario=Stable").json["scenario"] == "ok");

  const Reply typo = lab.get("/quote-legacy?scenario=provder_down");
  CHECK(typo.status == 400);
  CHECK(typo.json["error"] == "unknown_scenario");
  CHECK(typo.json["message"] == "scenario 'provder_down' does not exist; did you mean 'provider_down'?");
  // Every accepted name, the course's five scenarios first (issue 14's fault scenarios follow).
  REQUIRE(typo.json["allowed"].size() >= 10);
  CHECK(std::vector<std::string>(typo.json["allowed"].begin(), typo.json["allowed"].begin() + 5) ==
        std::vector<std::string>{"ok", "slow_provider", "flaky_provider", "provider_down", "burst_then_recover"});
  const Reply far = lab.get("/quote-legacy?scenario=nope");
  CHECK(far.json["message"] == "scenario 'nope' does not exist; use one of the allowed names");

  const Reply param = lab.get("/quote-legacy?scenaro=down");
  CHECK(param.json["error"] == "unknown_parameter");
  CHECK(param.json["message"].get<std::string>().find("did you mean 'scenario'?") != std::string::npos);

  // A mistyped route is named too.
  const Reply route = lab.get("/incident");
  CHECK(route.status == 404);
  CHECK(route.json["error"] == "not_found");
  CHECK(route.json["message"] == "no route GET /incident; did you mean /incidents?; GET / lists the routes");
  CHECK(lab.get("/04/diagnostic/summary").json["message"].get<std::string>().find("did you mean /04/diagnostics/summary?") !=
        std::string::npos);
  CHECK(lab.get("/nothing-like-it").json["message"] == "no route GET /nothing-like-it; GET / lists the routes");

  // The carrier mode takes any case too, and a storm's scenario gets the same help.
  const Reply mode = lab.request("PUT", "/carrier/mode?mode=Provider_Down");
  CHECK(mode.status == 200);
  CHECK(mode.json["mode"] == "provider_down");
  CHECK(lab.request("PUT", "/carrier/mode?mode=slo").json["message"] ==
        "scenario 'slo' does not exist; did you mean 'slow'?");
  CHECK(lab.request("POST", "/experiments/storm?scenario=flakey").json["message"] ==
        "scenario 'flakey' does not exist; did you mean 'flaky'?");
  // Nothing a refused request asked for ran.
  CHECK(lab.get("/incidents").json["incidents"].size() == 2);
}

TEST_CASE("quote errors come in the reader's language (Accept-Language), English for curl, codes never change") {
  LabProcess lab;
  struct Row {
    const char* path;
    const char* error;
    const char* english;
    const char* spanish;
  };
  for (const Row& r : {
           Row{"/quote-legacy?items=99", "invalid_parameter", "items must be an integer between 1 and 50 (got '99')",
               "items debe ser un número entero entre 1 y 50 (se recibió '99')"},
           Row{"/quote-resilient?customer_id=abc", "invalid_parameter",
               "customer_id must be an integer between 1 and 5000 (got 'abc')",
               "customer_id debe ser un número entero entre 1 y 5000 (se recibió 'abc')"},
           Row{"/quote-legacy?scenario=provder_down", "unknown_scenario",
               "scenario 'provder_down' does not exist; did you mean 'provider_down'?",
               "el escenario 'provder_down' no existe; ¿quisiste decir 'provider_down'?"},
           Row{"/quote-legacy?jitter=lots", "invalid_parameter", "jitter must be one of the allowed strategies",
               "jitter debe ser una de las estrategias permitidas"},
           Row{"/quote-legacy?items=1&items=2", "invalid_parameter", "items is given more than once",
               "items aparece más de una vez"},
           Row{"/incidents?limit=0", "invalid_parameter", "limit must be an integer between 1 and 200 (got '0')",
               "limit debe ser un número entero entre 1 y 200 (se recibió '0')"},
       }) {
    CAPTURE(r.path);
    const Reply en = lab.get(r.path);
    const Reply es = lab.get(r.path, kSpanish);
    CHECK(en.status == 400);
    CHECK(es.status == 400);
    CHECK(en.json["error"] == r.error);
    CHECK(es.json["error"] == r.error);
    CHECK(en.json["message"] == r.english);
    CHECK(es.json["message"] == r.spanish);
    CHECK(lab.get(r.path, {{"Accept-Language", "en-US,en;q=0.9"}}).json["message"] == r.english);
  }
}

TEST_CASE("the carrier's port explains itself to a student who reached it by mistake") {
  LabProcess lab;
  httplib::Client carrier(carrier_url(lab));
  for (const char* path : {"/quote-legacy?scenario=down", "/", "/dependency/state"}) {
    CAPTURE(path);
    const auto res = carrier.Get(path);
    REQUIRE(res);
    CHECK(res->status == 404);
    const auto j = nlohmann::json::parse(res->body);
    CHECK(j["error"] == "not_found");
    const std::string message = j["message"];
    CHECK(message.find("this is the simulated carrier") == 0);
    CHECK(message.find("not the quote lab") != std::string::npos);
    CHECK(message.find("on the lab's port, another one") != std::string::npos);
    CHECK(std::find(j["allowed"].begin(), j["allowed"].end(), "GET /quote?customer_id=&items=&scenario=") != j["allowed"].end());
  }
  // Its real routes still answer.
  CHECK(carrier.Get("/health")->status == 200);
}

TEST_CASE("quote-lab storm refuses a target that is not a quote lab, and storms one that is") {
  LabProcess lab;
  const auto [carrier_code, carrier_out] = LabProcess::run({"storm", "--target", carrier_url(lab), "--requests", "5"});
  CHECK(carrier_code == 1);
  CHECK(carrier_out.find("is the simulated carrier, not a quote lab") != std::string::npos);
  CHECK(lab.get("/carrier").json["stats"]["calls_total"] == 0);  // nothing was stormed

  // A port where nothing listens (the lab's own, once it stopped).
  LabProcess gone;
  const std::string gone_url = "http://127.0.0.1:" + std::to_string(gone.port());
  CHECK(gone.stop() == 0);
  const auto [gone_code, gone_out] = LabProcess::run({"storm", "--target", gone_url, "--requests", "5"});
  CHECK(gone_code == 1);
  CHECK(gone_out.find("does not answer") != std::string::npos);

  const std::string lab_url = "http://127.0.0.1:" + std::to_string(lab.port());
  const auto [ok_code, ok_out] =
      LabProcess::run({"storm", "--target", lab_url, "--mode", "resilient", "--scenario", "ok", "--clients", "1",
                       "--requests", "3", "--settle-s", "0"});
  CAPTURE(ok_out);
  CHECK(ok_code == 0);
  CHECK(lab.get("/incidents").json["incidents"].size() == 3);
}

TEST_CASE("legacy answers say plainly that legacy has no breaker and no fallback, dependency stays in both modes") {
  LabProcess lab;
  const Reply legacy = lab.get("/quote-legacy?scenario=ok");
  CHECK(legacy.json["policy_note"].get<std::string>().find("legacy has no circuit breaker and no fallback") == 0);
  CHECK(legacy.json["dependency"]["circuit_status"] == "closed");
  const Reply resilient = lab.get("/quote-resilient?scenario=ok");
  CHECK(resilient.json["policy_note"] ==
        "resilient asks the carrier's circuit breaker (`dependency`) before every attempt and serves the last good "
        "quote when every attempt fails");
  CHECK(resilient.json.contains("dependency"));
}

TEST_CASE("errors outside the quote routes come in the reader's language too, codes and fields never change") {
  LabProcess lab;
  struct Row {
    const char* method;
    const char* path;
    int status;
    const char* error;
    const char* english;
    const char* spanish;
  };
  for (const Row& r : {
           Row{"GET", "/incident", 404, "not_found", "no route GET /incident; did you mean /incidents?; GET / lists the routes",
               "no existe la ruta GET /incident; ¿quisiste decir /incidents? GET / lista las rutas"},
           Row{"GET", "/nothing-like-it", 404, "not_found", "no route GET /nothing-like-it; GET / lists the routes",
               "no existe la ruta GET /nothing-like-it; GET / lista las rutas"},
           Row{"DELETE", "/health", 405, "method_not_allowed", "DELETE is not allowed on /health; use GET",
               "DELETE no está permitido en /health; usa GET"},
           Row{"POST", "/experiments/storm?mode=sideways&lab=i18n", 400, "invalid_parameter",
               "there is no policy 'sideways'; use one of the allowed names (GET / lists them)",
               "no existe la política 'sideways'; usa uno de los nombres permitidos (GET / los lista)"},
           Row{"POST", "/experiments/storm?mode=adr005&lab=i18n", 400, "invalid_parameter",
               "there is no policy 'adr005'; did you mean 'adr0005'?", "no existe la política 'adr005'; ¿quisiste decir 'adr0005'?"},
           Row{"POST", "/experiments/storm?clients=0&lab=i18n", 400, "invalid_parameter",
               "clients must be an integer between 1 and 100 (got '0')",
               "clients debe ser un número entero entre 1 y 100 (se recibió '0')"},
           Row{"POST", "/experiments/storm?clientes=5&lab=i18n", 400, "unknown_parameter",
               "unknown query parameter 'clientes'", "parámetro de consulta desconocido: 'clientes'"},
           Row{"GET", "/carrier?lab=a_b", 400, "invalid_lab_name",
               "a lab name uses only letters a-z, digits and '-' (e.g. ?lab=ana or ?lab=team-3)",
               "un nombre de laboratorio usa solo letras a-z, dígitos y '-' (por ejemplo ?lab=ana o ?lab=equipo-3)"},
           Row{"GET", "/carrier?lab=", 400, "invalid_lab_name", "a lab name has 1 to 32 characters (got 0)",
               "un nombre de laboratorio tiene de 1 a 32 caracteres (se recibieron 0)"},
           Row{"GET", "/carrier?lab=ana&lab=bruno", 400, "invalid_parameter", "lab is given more than once; name one lab",
               "lab aparece más de una vez; indica un solo laboratorio"},
           Row{"PUT", "/carrier/mode?lab=i18n", 400, "unknown_scenario",
               "name the carrier mode: ?mode=NAME, or a JSON body with a \"mode\" field",
               "indica el modo del proveedor: ?mode=NOMBRE, o un cuerpo JSON con el campo \"mode\""},
           Row{"PUT", "/carrier/mode?mode=slo&lab=i18n", 400, "unknown_scenario",
               "scenario 'slo' does not exist; did you mean 'slow'?", "el escenario 'slo' no existe; ¿quisiste decir 'slow'?"},
           Row{"POST", "/class/reset?lab=i18n", 400, "invalid_parameter",
               "/class/reset acts on every student lab at once: leave out ?lab= (for one lab, add ?lab=NAME to "
               "/reset-lab or /carrier/mode)",
               "/class/reset actúa sobre todos los laboratorios de estudiantes a la vez: quita ?lab= (para uno solo, "
               "agrega ?lab=NOMBRE a /reset-lab o /carrier/mode)"},
       }) {
    CAPTURE(r.method);
    CAPTURE(r.path);
    const Reply en = lab.request(r.method, r.path);
    const Reply es = lab.request(r.method, r.path, kSpanish);
    CHECK(en.status == r.status);
    CHECK(es.status == r.status);
    CHECK(en.json["error"] == r.error);
    CHECK(es.json["error"] == r.error);
    CHECK(en.json["message"] == r.english);
    CHECK(es.json["message"] == r.spanish);
    CHECK(en.json.contains("allowed") == es.json.contains("allowed"));
    if (en.json.contains("allowed")) CHECK(en.json["allowed"] == es.json["allowed"]);
  }
  // A storm already running, and a body that is not a JSON object.
  REQUIRE(lab.request("POST", "/experiments/storm?mode=resilient&scenario=ok&clients=1&duration_s=30&lab=i18n").status ==
          202);
  const Reply busy = lab.request("POST", "/experiments/storm?lab=i18n", kSpanish);
  CHECK(busy.status == 409);
  CHECK(busy.json["error"] == "storm_running");
  CHECK(busy.json["message"] == "ya hay una tormenta en curso; GET /experiments/storm muestra su avance");
  CHECK(lab.request("DELETE", "/experiments/storm?lab=i18n").status == 200);
}
