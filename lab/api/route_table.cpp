#include "lab/api/route_table.hpp"

#include <algorithm>
#include <map>

#include "lab/api/route_handlers.hpp"
#include "lab/experiments/storm_experiment.hpp"
#include "lab/resilience/domain.hpp"

namespace quote_lab {

const std::vector<Route>& lab_route_table() {
  using namespace handlers;
  // Built once: every request consults the table (405s, teacher-only routes, labels).
  static const std::vector<Route> table = [] {
    const std::string limits = std::to_string(kIncidentsLimit.min) + "-" + std::to_string(kIncidentsLimit.max);
    const std::string storm_limits = "clients 1-" + std::to_string(kExperimentMaxClients) + ", duration_s 1-" +
                                     std::to_string(static_cast<int>(kExperimentMaxDurationS));
    // A path pasted from `GET /` must work as it is: every parameter with a value that works
    // (the defaults, on the carrier's mode), never "?scenario=&customer_id=", which is a 400.
    const std::string quote_example = "?scenario=" + std::string(kDefaultScenario) + "&" +
                                      std::string(kCustomerId.name) + "=" + std::to_string(kCustomerId.fallback) + "&" +
                                      std::string(kItems.name) + "=" + std::to_string(kItems.fallback);
    const std::string storm_limits_es = "`clients` 1-" + std::to_string(kExperimentMaxClients) + ", `duration_s` 1-" +
                                        std::to_string(static_cast<int>(kExperimentMaxDurationS));
    const std::string page = "; a browser (Accept: text/html) gets it as a page";
    const std::string page_es = "; un navegador (Accept: text/html) la recibe como página";
    // Listed in the order of the course material; routes added later come after.
    return std::vector<Route>{
        {.methods = {"GET"}, .path = "/health",
         .description = {"liveness", "comprobación de vida: el laboratorio responde"}, .handler = health},
        {.methods = {"GET"}, .path = "/quote-legacy", .example_query = quote_example, .mutating = true,
         .description = {"one quote with the legacy policy: long timeout, immediate retries, no breaker, no fallback",
          "una cotización con la política `legacy`: tiempo límite largo, reintentos inmediatos, sin disyuntor, sin "
          "respaldo"},
         .handler = quote_legacy, .rate_limited = true},
        {.methods = {"GET"}, .path = "/quote-resilient", .example_query = quote_example, .mutating = true,
         .description = {"one quote with the resilient policy: short timeout, backoff with jitter, circuit breaker, fallback",
          "una cotización con la política `resilient`: tiempo límite corto, espera entre reintentos con variación "
          "aleatoria, disyuntor, respaldo"},
         .handler = quote_resilient, .rate_limited = true},
        {.methods = {"GET"}, .path = "/dependency/state", .worker_slot = false,
         .description = {"the carrier's circuit breaker and the fallback quote" + page,
          "el disyuntor del proveedor y la cotización de respaldo" + page_es},
         .handler = dependency_state},
        {.methods = {"GET"}, .path = "/incidents",
         .example_query = "?limit=" + std::to_string(kIncidentsLimit.fallback), .worker_slot = false,
         .description = {"the last quote flows, newest first (limit " + limits + ")" + page,
          "las últimas solicitudes de cotización, de la más reciente a la más antigua (`limit` " + limits + ")" +
              page_es},
         .handler = incidents},
        {.methods = {"GET"}, .path = "/diagnostics/summary", .worker_slot = false,
         .description = {"per mode and scenario counters and latency percentiles" + page,
          "contadores y percentiles de latencia por modo y por escenario" + page_es},
         .handler = diagnostics_summary},
        {.methods = {"GET"}, .path = "/metrics", .worker_slot = false,
         .description = {"telemetry as JSON (`family=NAME,...`: only those families), or Prometheus text when Accept "
                         "asks for it" + page,
          "la telemetría en JSON (`family=NOMBRE,...`: solo esas familias), o en texto de Prometheus cuando Accept lo "
          "pide" + page_es},
         .handler = metrics},
        {.methods = {"GET"}, .path = "/metrics-prometheus", .worker_slot = false,
         .description = {"Prometheus text exposition format 0.0.4", "texto de Prometheus, formato de exposición 0.0.4"},
         .handler = metrics_prometheus},
        {.methods = {"GET", "POST"}, .path = "/reset-lab", .mutating = true, .worker_slot = false,
         .description = {"telemetry, breaker, fallback cache and carrier mode back to their seeds; cancels a running storm",
          "restablece el laboratorio: la telemetría, el disyuntor, la caché de respaldo y el modo del proveedor "
          "vuelven a sus valores iniciales; cancela una tormenta en curso"},
         .handler = reset_lab, .teacher_only = true},
        {.methods = {"GET"}, .path = "/carrier", .worker_slot = false,
         .description = {"the carrier's mode and the calls it received", "el modo del proveedor y las llamadas que recibió"},
         .handler = carrier},
        {.methods = {"PUT", "POST"}, .path = "/carrier/mode",
         .example_query = "?mode=provider_down", .mutating = true, .worker_slot = false,
         .description = {"the scenario for every request that names none (an outage for all clients)",
          "el escenario de toda solicitud que no indica ninguno (una caída para todos los clientes)"},
         .handler = carrier_mode, .teacher_only = true},
        {.methods = {"GET"}, .path = "/", .worker_slot = false,
         .description = {"this index as JSON; a browser (Accept: text/html) gets the dashboard",
          "este índice en JSON; un navegador (Accept: text/html) recibe el panel"},
         .handler = index},
        {.methods = {"GET"}, .path = "/ui", .worker_slot = false,
         .description = {"redirects to /ui/", "redirige a /ui/"}, .handler = ui_redirect},
        {.methods = {"GET"}, .path = "/ui/{file}", .worker_slot = false,
         .description = {"the dashboard's files: index.html, app.js, vendor/chart.min.js, ...",
          "los archivos del panel: index.html, app.js, vendor/chart.min.js, ..."},
         .handler = ui_file},
        // Only quotes and /health hold a worker slot (--workers): /health waits behind a legacy
        // storm (the exhaustion lesson); the page's reads, scrapes, controls and event streams
        // answer meanwhile, each connection on a thread of its own (--max-connections).
        {.methods = {"GET"}, .path = "/events", .worker_slot = false,
         .description = {"live updates for dashboards (Server-Sent Events): quote, breaker, reset, carrier_mode",
          "actualizaciones en vivo para los paneles (Server-Sent Events): `quote`, `breaker`, `reset`, `carrier_mode`"},
         .handler = events},
        {.methods = {"GET"}, .path = "/experiments/storm", .worker_slot = false,
         .description = {"the storm the lab runs against itself: its progress or last result",
          "la tormenta que el laboratorio lanza contra sí mismo: su avance o su último resultado"},
         .handler = storm_status},
        {.methods = {"POST"}, .path = "/experiments/storm",
         .example_query = "?mode=legacy&scenario=provider_down&clients=10&duration_s=10", .mutating = true,
         .worker_slot = false,
         .description = {"starts a storm against this lab (one at a time; " + storm_limits +
                             " or requests; rate=R for open-loop arrivals per second; sweep=10,20,40 for one "
                             "open-loop storm per rate, goodput against offered load)",
          "lanza una tormenta contra este laboratorio (una a la vez; " + storm_limits_es +
              " o `requests`; `rate=R` para llegadas por segundo en carga abierta; `sweep=10,20,40` para una "
              "tormenta de carga abierta por valor, las respuestas útiles frente a la carga ofrecida)"},
         .handler = storm_start, .teacher_only = true},
        {.methods = {"DELETE"}, .path = "/experiments/storm", .mutating = true, .worker_slot = false,
         .description = {"cancels the running storm", "cancela la tormenta en curso"},
         .handler = storm_cancel, .teacher_only = true},
        {.methods = {"GET"}, .path = "/experiments/simulate",
         .example_query = "?policy=legacy&scenario=provider_down&clients=10&requests=100&seed=1", .worker_slot = false,
         .description = {"a storm in simulated time, answered at once with the storm's report: the lab's own "
                         "strategies on the carrier's scenario rules, the same report for the same seed (policy, "
                         "scenario, clients or rate, requests or duration_s, seed, and a quote's overrides)",
          "una tormenta en tiempo simulado, respondida al momento con el informe de la tormenta: las estrategias "
          "del laboratorio sobre las reglas de los escenarios del proveedor, el mismo informe para la misma "
          "semilla (`policy`, `scenario`, `clients` o `rate`, `requests` o `duration_s`, `seed` y los ajustes de "
          "una cotización)"},
         .handler = simulate, .simulates = true},
        {.methods = {"GET"}, .path = "/experiments/map",
         .example_query = "?policy=legacy&depth=0.6&length_s=4&load=0.45", .worker_slot = false,
         .description = {"one point of the metastability map in simulated time: the carrier loses depth (0-1) of its "
                         "capacity for length_s seconds under an open load (a share of its capacity); whether live "
                         "goodput came back after the trigger, and after how many seconds (policy and a quote's "
                         "overrides)",
          "un punto del mapa de la metaestabilidad en tiempo simulado: el proveedor pierde `depth` (0-1) de su "
          "capacidad durante `length_s` segundos bajo una carga abierta (una fracción de su capacidad); si las "
          "respuestas útiles en vivo volvieron después del disparador, y cuántos segundos después (`policy` y los "
          "ajustes de una cotización)"},
         .handler = map_point, .simulates = true},
        {.methods = {"POST"}, .path = "/experiments/scorecard", .mutating = true, .worker_slot = false,
         .description = {"the class challenge: posts this lab's design (a body {\"pipeline\": [...]}, as a policy "
                         "of the policies file) and answers its scorecard over a fixed battery in simulated time, "
                         "beside legacy and resilient; GET /class ranks the designs",
          "el reto de la clase: envía el diseño de este laboratorio (un cuerpo {\"pipeline\": [...]}, como una "
          "política del archivo de políticas) y responde su nota sobre una batería fija en tiempo simulado, junto "
          "a `legacy` y `resilient`; GET /class clasifica los diseños"},
         .handler = scorecard_post, .simulates = true},
        {.methods = {"GET"}, .path = "/experiments/scorecard", .worker_slot = false,
         .description = {"this lab's design and its scorecard", "el diseño de este laboratorio y su nota"},
         .handler = scorecard_get},
        {.methods = {"GET"}, .path = "/class", .worker_slot = false,
         .description = {"every student lab (?lab=NAME): breaker, requests, carrier calls per request, p99; a page for browsers",
          "todos los laboratorios de estudiantes (?lab=NOMBRE): disyuntor, solicitudes, llamadas al proveedor por "
          "solicitud, p99; una página para navegadores"},
         .handler = class_view},
        {.methods = {"POST"}, .path = "/class/reset", .mutating = true, .worker_slot = false,
         .description = {"resets every student lab (not the teacher's) as /reset-lab does; teacher only",
          "restablece todos los laboratorios de estudiantes (no el del docente) como /reset-lab; solo el docente"},
         .handler = class_reset, .teacher_only = true, .class_wide = true},
        {.methods = {"PUT", "POST"}, .path = "/class/carrier-mode",
         .example_query = "?mode=provider_down", .mutating = true, .worker_slot = false,
         .description = {"sets every student lab's carrier mode (not the teacher's); teacher only",
          "fija el modo del proveedor de todos los laboratorios de estudiantes (no el del docente); solo el docente"},
         .handler = class_carrier_mode, .teacher_only = true, .class_wide = true},
        {.methods = {"POST"}, .path = "/claim", .example_query = "?name=ana", .mutating = true,
         .worker_slot = false,
         .description = {"a student claims a name (step 0): the answer carries its lab_key, once; every lab "
                         "called NAME or NAME-... then needs it for quotes and changes. With the teacher's "
                         "token, a new key for a name already claimed",
          "un estudiante reclama un nombre (paso 0): la respuesta trae su lab_key, una sola vez; desde "
          "entonces todo laboratorio llamado NOMBRE o NOMBRE-... la necesita para cotizaciones y cambios. "
          "Con el token del docente, una clave nueva para un nombre ya reclamado"},
         .handler = claim, .class_wide = true, .student_action = true},
        // No example query: a path with {policy} cannot be pasted; the description names one.
        {.methods = {"GET"}, .path = "/quote/{policy}", .mutating = true,
         .description = {"one quote with any policy of the policies file (GET / lists them under `policies`), e.g. "
          "/quote/adr0005" + quote_example + "; same parameters and answer as /quote-resilient",
          "una cotización con cualquier política del archivo de políticas (GET / las lista en `policies`), por "
          "ejemplo /quote/adr0005" + quote_example + "; los mismos parámetros y la misma respuesta que "
          "/quote-resilient"},
         .handler = quote_named, .rate_limited = true},
    };
  }();
  return table;
}

std::string route_template(const Route& route) {
  const auto brace = route.path.find("/{");
  return brace == std::string::npos ? route.path : route.path.substr(0, brace);
}

const std::vector<std::string>& route_templates() {
  static const std::vector<std::string> labels = [] {
    std::vector<std::string> out;
    for (const Route& r : lab_route_table())
      if (const auto t = route_template(r); std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    return out;
  }();
  return labels;
}

std::optional<std::string> strip_hub_prefix(std::string_view path) {
  if (path == kHubPrefix) return "/";
  if (path.size() > kHubPrefix.size() && path.substr(0, kHubPrefix.size()) == kHubPrefix &&
      path[kHubPrefix.size()] == '/')
    return std::string(path.substr(kHubPrefix.size()));
  return std::nullopt;
}

std::string route_label(const std::string& path) {
  std::string p = strip_hub_prefix(path).value_or(path);
  if (p.size() > 1 && p.back() == '/' && p != "/ui/") p.pop_back();
  if (p.rfind("/ui/", 0) == 0) p = "/ui";
  const auto& routes = route_templates();
  return std::find(routes.begin(), routes.end(), p) != routes.end() ? p : "other";
}

namespace {

// What the checks before every handler need per label, derived from the table once.
struct LabelFacts {
  AllowedMethods allowed;
  std::vector<std::string> teacher_only_methods;
  bool class_wide = false;
  bool student_action = false;
};

const std::map<std::string, LabelFacts>& label_facts() {
  static const std::map<std::string, LabelFacts> facts = [] {
    std::map<std::string, LabelFacts> out;
    for (const Route& r : lab_route_table()) {
      LabelFacts& f = out[route_template(r)];
      for (const auto& m : r.methods) {
        if (std::find(f.allowed.methods.begin(), f.allowed.methods.end(), m) == f.allowed.methods.end())
          f.allowed.methods.push_back(m);
        // A HEAD runs the GET handler without its body: never where the GET changes the lab.
        if (m == "GET" && !r.mutating) f.allowed.head = true;
        if (r.teacher_only) f.teacher_only_methods.push_back(m);
      }
      f.class_wide = f.class_wide || r.class_wide;
      f.student_action = f.student_action || r.student_action;
    }
    return out;
  }();
  return facts;
}

}  // namespace

const AllowedMethods& allowed_methods(const std::string& label) {
  static const AllowedMethods none;
  const auto& facts = label_facts();
  const auto it = facts.find(label);
  return it == facts.end() ? none : it->second.allowed;
}

bool teacher_only(const std::string& method, const std::string& path) {
  const auto& facts = label_facts();
  const auto it = facts.find(route_label(path));
  if (it == facts.end()) return false;
  const auto& methods = it->second.teacher_only_methods;
  return std::find(methods.begin(), methods.end(), method == "HEAD" ? "GET" : method) != methods.end();
}

bool class_wide(const std::string& path) {
  const auto& facts = label_facts();
  const auto it = facts.find(route_label(path));
  return it != facts.end() && it->second.class_wide;
}

bool student_action(const std::string& path) {
  const auto& facts = label_facts();
  const auto it = facts.find(route_label(path));
  return it != facts.end() && it->second.student_action;
}

std::vector<std::string> teacher_only_routes() {
  std::vector<std::string> out;
  for (const Route& r : lab_route_table()) {
    if (!r.teacher_only) continue;
    std::string methods;
    for (const auto& m : r.methods) methods += (methods.empty() ? "" : "|") + m;
    out.push_back(methods + " " + r.path);
  }
  return out;
}

}  // namespace quote_lab
