#include "lab/http/api_error.hpp"

#include <array>

namespace quote_lab {
namespace {

struct MessageText {
  MessageId id;
  std::string_view en;
  std::string_view es;  // neutral Spanish (no voseo), as every student-facing text
};

// Listed in MessageId's order; the tests check every id has both texts.
constexpr std::array kMessages{
    MessageText{MessageId::malformed_query, "'{piece}' is not a name=value pair (use & between parameters)",
                "'{piece}' no es un par nombre=valor (separa los parámetros con &)"},
    MessageText{MessageId::unknown_parameter, "unknown query parameter '{name}'",
                "parámetro de consulta desconocido: '{name}'"},
    MessageText{MessageId::unknown_body_field, "unknown field '{name}' in the JSON body",
                "campo desconocido en el cuerpo JSON: '{name}'"},
    MessageText{MessageId::unknown_parameter_did_you_mean, "unknown query parameter '{name}'; did you mean '{suggestion}'?",
                "parámetro de consulta desconocido: '{name}'; ¿quisiste decir '{suggestion}'?"},
    MessageText{MessageId::repeated_parameter, "{name} is given more than once", "`{name}` aparece más de una vez"},
    MessageText{MessageId::integer_out_of_range, "{name} must be an integer between {min} and {max} (got '{got}')",
                "`{name}` debe ser un número entero entre {min} y {max} (se recibió '{got}')"},
    MessageText{MessageId::unknown_jitter, "jitter must be one of the allowed strategies (got '{got}')",
                "`jitter` (la variación aleatoria) debe ser una de las estrategias permitidas (se recibió '{got}')"},
    MessageText{MessageId::quote_too_long,
                "with these overrides one quote could take {worst_ms} ms (timeout_ms x max_attempts + the waits between "
                "attempts); the bound is {bound_ms} ms: lower timeout_ms or max_attempts, or shorten the waits "
                "(backoff_base_ms, backoff_max_ms, jitter)",
                "con estos valores una cotización podría tardar {worst_ms} ms (`timeout_ms` x `max_attempts` + las "
                "esperas entre intentos); el límite es {bound_ms} ms: baja `timeout_ms` o `max_attempts`, o acorta las "
                "esperas (`backoff_base_ms`, `backoff_max_ms`, `jitter`)"},
    MessageText{MessageId::unknown_scenario, "scenario '{got}' does not exist; use one of the allowed names",
                "el escenario '{got}' no existe; usa uno de los nombres permitidos"},
    MessageText{MessageId::unknown_scenario_did_you_mean, "scenario '{got}' does not exist; did you mean '{suggestion}'?",
                "el escenario '{got}' no existe; ¿quisiste decir '{suggestion}'?"},
    MessageText{MessageId::rate_limited,
                "too many quote requests from this client: the limit is {limit} every {window_s} s; try again in "
                "{retry_after_s} s",
                "demasiadas solicitudes de cotización desde este cliente: el límite de solicitudes es {limit} cada "
                "{window_s} s; vuelve a intentarlo en {retry_after_s} s"},
    MessageText{MessageId::lab_given_twice, "lab is given more than once; name one lab",
                "el parámetro `lab` aparece más de una vez; indica un solo laboratorio"},
    MessageText{MessageId::lab_name_length, "a lab name has 1 to {max} characters (got {got})",
                "un nombre de laboratorio tiene de 1 a {max} caracteres (se recibieron {got})"},
    MessageText{MessageId::lab_name_characters,
                "a lab name uses only letters a-z, digits and '-', and '{char}' is not one of them: write "
                "'{suggestion}' instead",
                "un nombre de laboratorio usa solo letras a-z, dígitos y '-', y «{char}» no es una de ellas: escribe "
                "«{suggestion}» en su lugar"},
    MessageText{MessageId::too_many_labs,
                "the lab already holds {max} student labs (--max-labs); use one of them, or wait until an idle one "
                "expires (--lab-idle-minutes {minutes})",
                "ya hay {max} laboratorios de estudiantes (--max-labs); usa uno de ellos o espera a que "
                "expire uno inactivo (--lab-idle-minutes {minutes})"},
    MessageText{MessageId::route_not_found, "no route {method} {path}; GET / lists the routes",
                "no existe la ruta {method} {path}; GET / lista las rutas"},
    MessageText{MessageId::route_not_found_did_you_mean,
                "no route {method} {path}; did you mean {suggestion}?; GET / lists the routes",
                "no existe la ruta {method} {path}; ¿quisiste decir {suggestion}? GET / lista las rutas"},
    MessageText{MessageId::method_not_allowed, "{method} is not allowed on {route}; use {allow}",
                "{method} no está permitido en {route}; usa {allow}"},
    MessageText{MessageId::body_not_object, "the body must be a JSON object", "el cuerpo debe ser un objeto JSON"},
    MessageText{MessageId::class_storms_busy,
                "{max} student storms are running already (they share one carrier and the lab's workers); start "
                "yours when one ends (GET /class shows the class)",
                "ya hay {max} tormentas de estudiantes en curso (comparten un proveedor y los hilos de trabajo del "
                "laboratorio); "
                "lanza la tuya cuando termine una (GET /class muestra la clase)"},
    MessageText{MessageId::storm_running, "a storm is already running; GET /experiments/storm shows its progress",
                "ya hay una tormenta en curso; GET /experiments/storm muestra su avance"},
    MessageText{MessageId::simulations_busy,
                "{max} simulations are waiting already (the lab runs them one at a time on one core, so quotes keep "
                "the other); ask again in {retry_after_s} s (Retry-After)",
                "ya hay {max} simulaciones esperando (el laboratorio las ejecuta de una en una en un núcleo, para que "
                "las cotizaciones conserven el otro); vuelve a pedirla en {retry_after_s} s (`Retry-After`)"},
    MessageText{MessageId::simulations_yours_busy,
                "you have {max} simulations in line already (each student has a share of the line, so one cannot "
                "keep the others waiting); ask again once one is answered",
                "ya tienes {max} simulaciones en la fila (cada estudiante tiene su parte de la fila, para que nadie "
                "deje esperando a los demás); vuelve a pedirla cuando se responda una"},
    MessageText{MessageId::simulation_too_large,
                "a simulation runs at most {max} arrivals (`rate` × `duration_s` is {got}): lower one of them, or ask "
                "for `requests`",
                "una simulación ejecuta como mucho {max} llegadas (`rate` × `duration_s` da {got}): baja uno de los dos "
                "o pide `requests`"},
    MessageText{MessageId::simulation_requests_and_duration,
                "`requests` and `duration_s` exclude each other: `requests=N` simulates N quotes (with `rate`, N "
                "arrivals), `duration_s=S` simulates S seconds",
                "`requests` y `duration_s` se excluyen: `requests=N` simula N cotizaciones (con `rate`, N llegadas) y "
                "`duration_s=S` simula S segundos"},
    MessageText{MessageId::simulation_bound_reached,
                "the simulation reached {max} quotes before `duration_s` ended (a closed loop asks as fast as the lab "
                "answers): ask for `requests`, or a shorter `duration_s` or fewer `clients`",
                "la simulación llegó a {max} cotizaciones antes de que terminara `duration_s` (en carga cerrada se pide "
                "tan rápido como responde el laboratorio): pide `requests`, o un `duration_s` más corto o menos "
                "`clients`"},
    MessageText{MessageId::design_body,
                "the body is a design: a JSON object {\"pipeline\": [...]}, its strategies outermost first, each "
                "with its settings (docs/policies.md), or the list alone",
                "el cuerpo es un diseño: un objeto JSON {\"pipeline\": [...]}, con sus estrategias de la más externa a "
                "la más interna, cada una con sus ajustes (docs/policies.md), o la lista sola"},
    MessageText{MessageId::design_refused,
                "the design was refused ({count} problem(s); `problems` lists each with its place): {first}",
                "el diseño fue rechazado ({count} problema(s); `problems` los enumera con su lugar): {first}"},
    MessageText{MessageId::design_failed, "the design could not be scored: {why}",
                "no se pudo calcular la nota del diseño: {why}"},
    MessageText{MessageId::simulation_failed, "the simulation could not run: {why}",
                "no se pudo ejecutar la simulación: {why}"},
    MessageText{MessageId::design_scored,
                "your design scored {score} (`legacy` {legacy}, `resilient` {resilient}): place {place} of {count} "
                "in GET /class",
                "tu diseño obtuvo {score} puntos (`legacy` {legacy}, `resilient` {resilient}): puesto {place} de "
                "{count} en GET /class"},
    MessageText{MessageId::design_scored_unranked,
                "the design scored {score} (`legacy` {legacy}, `resilient` {resilient}); the teacher's labs are not "
                "ranked in GET /class",
                "el diseño obtuvo {score} puntos (`legacy` {legacy}, `resilient` {resilient}); los laboratorios del "
                "docente no entran en la clasificación de GET /class"},
    MessageText{MessageId::no_design,
                "this lab has no design yet: POST one to /experiments/scorecard (a body {\"pipeline\": [...]})",
                "este laboratorio aún no tiene diseño: envía uno con POST a /experiments/scorecard (un cuerpo "
                "{\"pipeline\": [...]})"},
    MessageText{MessageId::storm_rate_and_clients,
                "`rate` and `clients` exclude each other: `rate=R` sends R arrivals a second without waiting for "
                "answers (open loop); `clients=N` keeps N clients, each waiting for its answer (closed loop)",
                "`rate` y `clients` se excluyen: `rate=R` envía R llegadas por segundo sin esperar las respuestas "
                "(carga abierta); `clients=N` mantiene N clientes, cada uno esperando su respuesta (carga cerrada)"},
    MessageText{MessageId::sweep_and_load,
                "`sweep` replaces `rate`, `clients` and `requests`: `sweep=10,20,40` runs one open-loop storm per "
                "arrival rate, each for duration_s seconds, and draws goodput against offered load",
                "`sweep` reemplaza a `rate`, `clients` y `requests`: `sweep=10,20,40` lanza una tormenta de carga "
                "abierta por cada valor de llegadas por segundo, de duration_s segundos cada una, y dibuja las "
                "respuestas útiles frente a la carga ofrecida"},
    MessageText{MessageId::sweep_rate_count,
                "a sweep has {min} to {max} values of arrivals per second, separated by commas (got {got})",
                "un barrido tiene de {min} a {max} valores de llegadas por segundo, separados por comas (se recibieron "
                "{got})"},
    MessageText{MessageId::sweep_too_long,
                "a sweep of {steps} values × {duration} s would send for more than {max} s: lower duration_s or "
                "give fewer values",
                "un barrido de {steps} valores × {duration} s enviaría durante más de {max} s: baja duration_s o da "
                "menos valores"},
    MessageText{MessageId::missing_carrier_mode,
                "name the carrier mode: ?mode=NAME, or a JSON body with a \"mode\" field",
                "indica el modo del proveedor: ?mode=NOMBRE, o un cuerpo JSON con el campo \"mode\""},
    MessageText{MessageId::admin_token_wrong,
                "the teacher's token sent (Authorization: Bearer ...) is not this lab's: check LAB_ADMIN_TOKEN, the "
                "--admin-token the lab was started with",
                "el token de docente enviado (Authorization: Bearer ...) no es el de este laboratorio: revisa "
                "LAB_ADMIN_TOKEN, el --admin-token con que arrancó el laboratorio"},
    MessageText{MessageId::admin_token_required,
                "this route changes the lab for everyone: send the teacher token as 'Authorization: Bearer TOKEN' "
                "(set with --admin-token or LAB_ADMIN_TOKEN)",
                "esta ruta cambia el laboratorio para todos: envía el token del docente como "
                "'Authorization: Bearer TOKEN' "
                "(se define con --admin-token o LAB_ADMIN_TOKEN)"},
    MessageText{MessageId::cross_site_request,
                "this route changes the lab for everyone: it is refused from another site's page; use the lab's own "
                "page or curl",
                "esta ruta cambia el laboratorio para todos: se rechaza desde la página de otro sitio; usa la página "
                "del propio laboratorio o curl"},
    MessageText{MessageId::lab_key_required,
                "the lab '{lab}' belongs to '{owner}': a quote, a reset, a carrier mode or a storm in it needs {owner}'s "
                "key. Add the header 'X-Lab-Key: KEY' (or the parameter lab_key=KEY); the key came as lab_key in the "
                "answer of {owner}'s step 0 (POST /claim?name={owner}). Lost it? The teacher can issue a new one",
                "el laboratorio '{lab}' es de '{owner}': una cotización, un restablecimiento, un cambio de modo del "
                "proveedor o una tormenta en él necesitan la clave de {owner}. Añade la cabecera 'X-Lab-Key: CLAVE' "
                "(o el parámetro lab_key=CLAVE); la clave llegó como lab_key en la respuesta del paso 0 de {owner} "
                "(POST /claim?name={owner}). ¿La perdiste? El profesor puede darte una nueva"},
    MessageText{MessageId::wrong_lab_key,
                "the key sent does not open the lab '{lab}', which belongs to '{owner}': send {owner}'s key (the "
                "lab_key of {owner}'s step 0) as the header 'X-Lab-Key: KEY' or the parameter lab_key=KEY. Lost it? "
                "The teacher can issue a new one",
                "la clave enviada no abre el laboratorio '{lab}', que es de '{owner}': envía la clave de {owner} (el "
                "lab_key de su paso 0) en la cabecera 'X-Lab-Key: CLAVE' o en el parámetro lab_key=CLAVE. ¿La "
                "perdiste? El profesor puede darte una nueva"},
    MessageText{MessageId::wrong_teacher_token,
                "the teacher's token sent (Authorization: Bearer ...) is not this lab's: check LAB_ADMIN_TOKEN, or "
                "send the lab's own key (X-Lab-Key) instead",
                "el token de docente enviado (Authorization: Bearer ...) no es el de este laboratorio: revisa "
                "LAB_ADMIN_TOKEN, o envía en su lugar la clave del laboratorio (X-Lab-Key)"},
    MessageText{MessageId::name_taken,
                "the name '{owner}' is already claimed: its labs are its owner's. If it is yours and you lost the key, "
                "ask the teacher for a new one; if not, choose another name (e.g. YO={owner}2)",
                "el nombre '{owner}' ya tiene dueño: sus laboratorios son de quien lo reclamó. Si es el tuyo y "
                "perdiste la clave, pide una nueva al profesor; si no, elige otro nombre (por ejemplo YO={owner}2)"},
    MessageText{MessageId::name_claimed,
                "the name '{owner}' is yours: keep lab_key as CLAVE; every lab called {owner} or {owner}-... needs it "
                "(X-Lab-Key) for quotes, resets, carrier modes and storms. It is shown only now",
                "el nombre '{owner}' es tuyo: guarda lab_key en CLAVE; todo laboratorio llamado {owner} o "
                "{owner}-... la necesita (X-Lab-Key) para cotizaciones, restablecimientos, modos del proveedor y "
                "tormentas. Solo se muestra ahora"},
    MessageText{MessageId::claim_needs_name,
                "say which name you claim: POST /claim?name=YOUR_NAME (letters a-z, digits and '-', e.g. ana)",
                "di qué nombre reclamas: POST /claim?name=TU_NOMBRE (letras a-z, dígitos y '-', por ejemplo ana)"},
    MessageText{MessageId::name_reissued,
                "a new key for '{owner}': the old one opens nothing from now on. Give lab_key to its owner",
                "una clave nueva para '{owner}': la anterior ya no abre nada. Dale lab_key a su dueño"},
    MessageText{MessageId::class_route_takes_no_lab,
                "{route} acts on every student lab at once: leave out ?lab= (for one lab, add ?lab=NAME to /reset-lab "
                "or /carrier/mode)",
                "{route} actúa sobre todos los laboratorios de estudiantes a la vez: quita ?lab= (para uno solo, "
                "agrega ?lab=NOMBRE a /reset-lab o /carrier/mode)"},
    MessageText{MessageId::unknown_policy, "there is no policy '{got}'; use one of the allowed names (GET / lists them)",
                "no existe la política '{got}'; usa uno de los nombres permitidos (GET / los lista)"},
    MessageText{MessageId::unknown_policy_did_you_mean, "there is no policy '{got}'; did you mean '{suggestion}'?",
                "no existe la política '{got}'; ¿quisiste decir '{suggestion}'?"},
    MessageText{MessageId::unknown_choice, "{name} must be one of the allowed values (got '{got}')",
                "`{name}` debe ser uno de los valores permitidos (se recibió '{got}')"},
    MessageText{MessageId::number_out_of_range, "{name} must be a number between {min} and {max} (got '{got}')",
                "`{name}` debe ser un número entre {min} y {max} (se recibió '{got}')"},
    MessageText{MessageId::lab_reset_done,
                "telemetry, metrics, breaker, fallback cache and carrier mode are back to their seeds",
                "laboratorio restablecido: la telemetría, las métricas, el disyuntor, la caché de respaldo y el modo "
                "del proveedor volvieron a sus valores iniciales"},
    MessageText{MessageId::class_reset_done,
                "every student lab's telemetry, breaker, fallback cache and carrier mode are back to their seeds; the "
                "teacher's lab is unchanged",
                "laboratorios de estudiantes restablecidos: la telemetría, el disyuntor, la caché de respaldo y el modo "
                "del proveedor de cada uno volvieron a sus valores iniciales; el laboratorio del docente no cambió"},
    MessageText{MessageId::shutting_down, "the lab is shutting down; try again once it is back",
                "el laboratorio se está deteniendo; vuelve a intentarlo cuando esté en marcha de nuevo"},
    MessageText{MessageId::http_error, "the request could not be served (HTTP {status})",
                "no se pudo atender la solicitud (HTTP {status})"},
    MessageText{MessageId::internal_error, "the lab hit an unexpected error; see its log",
                "el laboratorio tuvo un error inesperado; consulta su registro"},
    MessageText{MessageId::dashboard_file_not_found, "the dashboard has no file '{file}'",
                "el panel no tiene el archivo '{file}'"},
    MessageText{MessageId::dashboard_path_invalid,
                "'{file}' is not a dashboard path: only letters, digits, '.', '-', '_' and '/', inside the dashboard "
                "folder",
                "'{file}' no es una ruta del panel: solo letras, dígitos, '.', '-', '_' y '/', dentro de la carpeta "
                "del panel"},
    MessageText{MessageId::too_many_event_clients,
                "too many open dashboards for live updates; the page falls back to polling",
                "hay demasiados paneles abiertos con actualizaciones en vivo; la página pasa a consultar cada pocos "
                "segundos"},
    MessageText{MessageId::body_too_large, "the request body is larger than 64 KiB",
                "el cuerpo de la solicitud supera los 64 KiB"},
    MessageText{MessageId::incomplete_body, "the request body ended early or its chunked framing is broken",
                "el cuerpo de la solicitud terminó antes de tiempo o su codificación por fragmentos (chunked) está "
                "rota"},
    MessageText{MessageId::invalid_content_length,
                "Content-Length must be a non-negative decimal number of bytes (got '{got}')",
                "Content-Length debe ser un número decimal de bytes, cero o más (se recibió '{got}')"},
    MessageText{MessageId::conflicting_content_length, "the request has two different Content-Length values",
                "la solicitud trae dos valores distintos de Content-Length"},
    MessageText{MessageId::unsupported_transfer_encoding, "the only Transfer-Encoding the lab reads is 'chunked'",
                "el único Transfer-Encoding que el laboratorio lee es 'chunked'"},
    MessageText{MessageId::conflicting_framing, "a request may not carry both Content-Length and Transfer-Encoding",
                "una solicitud no puede traer a la vez Content-Length y Transfer-Encoding"},
    MessageText{MessageId::transfer_encoding_needs_http11, "Transfer-Encoding needs HTTP/1.1",
                "Transfer-Encoding requiere HTTP/1.1"},
    MessageText{MessageId::missing_host, "an HTTP/1.1 request must carry a Host header",
                "una solicitud HTTP/1.1 debe traer la cabecera Host"},
    MessageText{MessageId::invalid_host, "the request has more than one Host header",
                "la solicitud trae más de una cabecera Host"},
    MessageText{MessageId::host_not_allowed,
                "the lab answers only to IP addresses, localhost and the names given with --allowed-hosts "
                "(ALLOWED_HOSTS); got Host '{host}'",
                "el laboratorio solo responde a direcciones IP, a localhost y a los nombres dados con --allowed-hosts "
                "(ALLOWED_HOSTS); se recibió Host '{host}'"},
    MessageText{MessageId::carrier_route_not_found,
                "this is the simulated carrier (the lab's dependency), not the quote lab: it has no route {method} "
                "{path} (its routes are in 'allowed'). The lab's own routes (/quote-legacy, /quote-resilient, "
                "/dependency/state, the dashboard) answer on the lab's port, another one: 8080 unless `quote-lab serve "
                "--port` says otherwise.",
                "este es el proveedor simulado (la dependencia del laboratorio), no el laboratorio de cotizaciones: no "
                "tiene la ruta {method} {path} (sus rutas están en 'allowed'). Las rutas del laboratorio "
                "(/quote-legacy, /quote-resilient, /dependency/state, el panel) responden en el puerto del laboratorio, "
                "que es otro: 8080, salvo que `quote-lab serve --port` diga otro."},
    MessageText{MessageId::carrier_deadline_on_arrival,
                "the caller's deadline (X-Request-Deadline-Unix-Ms) had passed on arrival",
                "el plazo total de quien llama (X-Request-Deadline-Unix-Ms) ya había vencido al llegar la solicitud"},
    MessageText{MessageId::carrier_deadline_during_work,
                "the caller's deadline (X-Request-Deadline-Unix-Ms) passed during the work",
                "el plazo total de quien llama (X-Request-Deadline-Unix-Ms) venció durante el trabajo"},
    MessageText{MessageId::carrier_hung, "the carrier held the connection and never answered",
                "el proveedor retuvo la conexión y nunca respondió"},
    MessageText{MessageId::carrier_stopping, "the carrier is shutting down", "el proveedor se está deteniendo"},
    MessageText{MessageId::carrier_scenario_status, "the scenario answers HTTP {status}",
                "el escenario responde HTTP {status}"},
    MessageText{MessageId::invalid_priority,
                "priority (the X-Priority header, or ?priority=) must be `critical` or `sheddable` (got '{got}')",
                "la prioridad (cabecera X-Priority, o ?priority=) debe ser `critical` o `sheddable` (se recibió "
                "'{got}')"},
    MessageText{MessageId::carrier_shed_queue_full,
                "load shedding: the carrier's queue is full ({queued} of {max} calls waiting), so this call is shed "
                "at once",
                "descarte de carga: la cola del proveedor está llena ({queued} de {max} llamadas esperan), así que "
                "esta llamada se descarta al instante"},
    MessageText{MessageId::carrier_shed_codel,
                "load shedding: this call waited {waited_ms} ms in the carrier's queue, the most CoDel allows it "
                "({allowed_ms} ms), so it is shed",
                "descarte de carga: esta llamada esperó {waited_ms} ms en la cola del proveedor, lo más que CoDel le "
                "permite ({allowed_ms} ms), así que se descarta"},
    MessageText{MessageId::carrier_shed_priority,
                "load shedding: this `sheddable` call is shed first, its place kept for `critical` calls",
                "descarte de carga: esta llamada `sheddable` se descarta primero y su lugar queda para las llamadas "
                "`critical`"},
    MessageText{MessageId::carrier_shed_workers_busy,
                "load shedding: {held} calls already hold the carrier's worker threads, the most its queues may "
                "hold (--carrier-workers), so this call is shed at once",
                "descarte de carga: {held} llamadas ya ocupan los hilos de trabajo del proveedor, lo más que sus "
                "colas pueden ocupar (--carrier-workers), así que esta llamada se descarta al instante"},
};
static_assert(kMessages.size() == static_cast<std::size_t>(MessageId::count_), "one text per MessageId");

}  // namespace

std::string message_text(MessageId id, Language language, const MessageArgs& args) {
  std::string_view pattern;
  for (const auto& m : kMessages)
    if (m.id == id) pattern = language == Language::es ? m.es : m.en;
  std::string out;
  // One pass, so a value that itself contains "{...}" (a student's typo) is never expanded.
  while (!pattern.empty()) {
    const auto open = pattern.find('{');
    const auto close = open == std::string_view::npos ? open : pattern.find('}', open);
    if (close == std::string_view::npos) {
      out += pattern;
      break;
    }
    out += pattern.substr(0, open);
    const std::string_view name = pattern.substr(open + 1, close - open - 1);
    const std::string* value = nullptr;
    for (const auto& [n, v] : args)
      if (n == name) value = &v;
    out += value ? std::string_view(*value) : pattern.substr(open, close - open + 1);
    pattern.remove_prefix(close + 1);
  }
  return out;
}

ApiError api_error(int status, std::string error, MessageId id, const MessageArgs& args,
                   std::vector<std::string> allowed) {
  return ApiError{status, std::move(error), message_text(id, Language::en, args), std::move(allowed),
                  message_text(id, Language::es, args)};
}

}  // namespace quote_lab
