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
};

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
