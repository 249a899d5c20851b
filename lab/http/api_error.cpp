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
    MessageText{MessageId::unknown_parameter_did_you_mean, "unknown query parameter '{name}'; did you mean '{suggestion}'?",
                "parámetro de consulta desconocido: '{name}'; ¿quisiste decir '{suggestion}'?"},
    MessageText{MessageId::repeated_parameter, "{name} is given more than once", "{name} aparece más de una vez"},
    MessageText{MessageId::integer_out_of_range, "{name} must be an integer between {min} and {max} (got '{got}')",
                "{name} debe ser un número entero entre {min} y {max} (se recibió '{got}')"},
    MessageText{MessageId::unknown_jitter, "jitter must be one of the allowed strategies",
                "jitter debe ser una de las estrategias permitidas"},
    MessageText{MessageId::quote_too_long,
                "with these overrides one quote could take {worst_ms} ms (timeout_ms x max_attempts + waits); the bound "
                "is {bound_ms} ms: lower timeout_ms or max_attempts",
                "con estos valores una cotización podría tardar {worst_ms} ms (timeout_ms x max_attempts + esperas); el "
                "límite es {bound_ms} ms: baja timeout_ms o max_attempts"},
    MessageText{MessageId::unknown_scenario, "scenario '{got}' does not exist; use one of the allowed names",
                "el escenario '{got}' no existe; usa uno de los nombres permitidos"},
    MessageText{MessageId::unknown_scenario_did_you_mean, "scenario '{got}' does not exist; did you mean '{suggestion}'?",
                "el escenario '{got}' no existe; ¿quisiste decir '{suggestion}'?"},
    MessageText{MessageId::rate_limited,
                "too many quote requests from this client: the limit is {limit} every {window_s} s; try again in "
                "{retry_after_s} s",
                "demasiadas solicitudes de cotización desde este cliente: el límite es {limit} cada {window_s} s; "
                "vuelve a intentarlo en {retry_after_s} s"},
    MessageText{MessageId::lab_given_twice, "lab is given more than once; name one lab",
                "lab aparece más de una vez; indica un solo laboratorio"},
    MessageText{MessageId::lab_name_length, "a lab name has 1 to {max} characters (got {got})",
                "un nombre de laboratorio tiene de 1 a {max} caracteres (se recibieron {got})"},
    MessageText{MessageId::lab_name_characters,
                "a lab name uses only letters a-z, digits and '-' (e.g. ?lab=ana or ?lab=team-3)",
                "un nombre de laboratorio usa solo letras a-z, dígitos y '-' (por ejemplo ?lab=ana o ?lab=equipo-3)"},
    MessageText{MessageId::too_many_labs,
                "the lab already holds {max} student labs (--max-labs); use one of them, or wait until an idle one "
                "expires (--lab-idle-minutes {minutes})",
                "el lab ya tiene {max} laboratorios de estudiantes (--max-labs); usa uno de ellos o espera a que "
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
                "ya hay {max} tormentas de estudiantes en curso (comparten un proveedor y los workers del lab); "
                "lanza la tuya cuando termine una (GET /class muestra la clase)"},
    MessageText{MessageId::storm_running, "a storm is already running; GET /experiments/storm shows its progress",
                "ya hay una tormenta en curso; GET /experiments/storm muestra su avance"},
    MessageText{MessageId::missing_carrier_mode,
                "name the carrier mode: ?mode=NAME, or a JSON body with a \"mode\" field",
                "indica el modo del proveedor: ?mode=NOMBRE, o un cuerpo JSON con el campo \"mode\""},
    MessageText{MessageId::admin_token_required,
                "this route changes the lab for everyone: send the teacher token as 'Authorization: Bearer TOKEN' "
                "(set with --admin-token or LAB_ADMIN_TOKEN)",
                "esta ruta cambia el lab para todos: envía el token del docente como 'Authorization: Bearer TOKEN' "
                "(se define con --admin-token o LAB_ADMIN_TOKEN)"},
    MessageText{MessageId::cross_site_request,
                "this route changes the lab for everyone: it is refused from another site's page; use the lab's own "
                "page or curl",
                "esta ruta cambia el lab para todos: se rechaza desde la página de otro sitio; usa la página del "
                "propio lab o curl"},
    MessageText{MessageId::lab_key_required,
                "the lab '{lab}' belongs to '{owner}': changing it (reset, carrier mode, storms) needs {owner}'s key. "
                "Send it as the header 'X-Lab-Key: KEY' or the parameter lab_key=KEY; it came as lab_key in the first "
                "answer for a lab of {owner}",
                "el laboratorio '{lab}' es de '{owner}': para cambiarlo (restablecerlo, cambiar el modo del proveedor, "
                "tormentas) hace falta la clave de {owner}. Envíala en la cabecera 'X-Lab-Key: CLAVE' o en el "
                "parámetro lab_key=CLAVE; llegó como lab_key en la primera respuesta de un laboratorio de {owner}"},
    MessageText{MessageId::wrong_lab_key,
                "the key sent does not open the lab '{lab}', which belongs to '{owner}': send {owner}'s key (the "
                "lab_key of the first answer for a lab of {owner}) as the header 'X-Lab-Key: KEY' or the parameter "
                "lab_key=KEY",
                "la clave enviada no abre el laboratorio '{lab}', que es de '{owner}': envía la clave de {owner} (el "
                "lab_key de la primera respuesta de un laboratorio de {owner}) en la cabecera 'X-Lab-Key: CLAVE' o en "
                "el parámetro lab_key=CLAVE"},
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
                "{name} debe ser uno de los valores permitidos (se recibió '{got}')"},
    MessageText{MessageId::number_out_of_range, "{name} must be a number between {min} and {max} (got '{got}')",
                "{name} debe ser un número entre {min} y {max} (se recibió '{got}')"},
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
