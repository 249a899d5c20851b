#include "lab/api/design_problems.hpp"

#include <regex>

#include "lab/resilience/pipeline.hpp"

namespace quote_lab {
namespace {

// `a`, `b`, `c` from "a, b, c".
std::string coded_list(const std::string& names) {
  std::string out;
  std::size_t start = 0;
  while (start <= names.size()) {
    const auto comma = names.find(", ", start);
    const std::string name = names.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    out += (out.empty() ? "`" : ", `") + name + "`";
    if (comma == std::string::npos) break;
    start = comma + 2;
  }
  return out;
}

// Why a strategy must come before `outer`, in Spanish (pipeline.cpp's reasons).
std::string before_reason_es(const std::string& strategy, const std::string& outer) {
  if (outer == "timeout") return "`timeout` es la llamada misma, así que va al final";
  if (outer == "hedging")
    return "la cobertura envía su copia por la llamada misma, así que una estrategia entre las dos se ejecutaría una "
           "vez para dos llamadas (un disyuntor semiabierto dejaría pasar ambas)";
  if (outer == "circuit_breaker")
    return "el disyuntor registra cada llamada que deja pasar, y `" + strategy +
           "` dentro de él podría terminar una sin respuesta del proveedor (la llamada de prueba del estado "
           "semiabierto nunca se registraría)";
  return "";
}

// Why a strategy must come after the one it works for, in Spanish: the strategy's own words.
std::string after_reason_es(const std::string& strategy) {
  const auto s = parse_strategy(strategy);
  const auto need = s ? outer_need(*s) : std::nullopt;
  return need ? std::string(need->because.es) : "";
}

struct Shape {
  std::regex pattern;
  // The Spanish sentence and the setting at fault, from the match.
  std::string (*es)(const std::smatch& m);
  int setting_group;  // 0: none
};

std::string with_reason(std::string sentence, const std::string& reason) {
  return reason.empty() ? sentence : sentence + ": " + reason;
}

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> table = [] {
    std::vector<Shape> t;
    const auto add = [&t](const char* re, std::string (*es)(const std::smatch&), int setting) {
      t.push_back(Shape{std::regex(re), es, setting});
    };
    add(R"(^unknown setting '([^']*)'(?:; did you mean '([^']*)'\?|, which belongs to '([^']*)')? \((\S+) takes(?:: (.*)| none)\)$)",
        [](const std::smatch& m) {
          std::string s = "ajuste desconocido `" + m[1].str() + "`";
          if (m[2].matched) s += "; ¿quisiste decir `" + m[2].str() + "`?";
          if (m[3].matched) s += ", que pertenece a `" + m[3].str() + "`";
          s += m[5].matched ? " (`" + m[4].str() + "` admite: " + coded_list(m[5].str()) + ")"
                            : " (`" + m[4].str() + "` no admite ninguno)";
          return s;
        },
        1);
    add(R"(^([\w.]+) must be (an integer )?between (\S+) and (\S+) \(got (.*)\)$)",
        [](const std::smatch& m) {
          return "`" + m[1].str() + "` debe " + (m[2].matched ? "ser un entero " : "estar ") + "entre " + m[3].str() +
                 " y " + m[4].str() + " (recibido: " + m[5].str() + ")";
        },
        1);
    add(R"(^([\w.]+) must be one of: (.*) \(got (.*?)\)(?:; did you mean '([^']*)'\?)?$)",
        [](const std::smatch& m) {
          std::string s = "`" + m[1].str() + "` debe ser uno de: " + coded_list(m[2].str()) + " (recibido: " +
                          m[3].str() + ")";
          if (m[4].matched) s += "; ¿quisiste decir `" + m[4].str() + "`?";
          return s;
        },
        1);
    add(R"(^([\w.]+) must be true or false \(got (.*)\)$)",
        [](const std::smatch& m) { return "`" + m[1].str() + "` debe ser `true` o `false` (recibido: " + m[2].str() + ")"; },
        1);
    add(R"(^([\w.]+) must be a number \(got (.*)\)$)",
        [](const std::smatch& m) { return "`" + m[1].str() + "` debe ser un número (recibido: " + m[2].str() + ")"; }, 1);
    add(R"(^retry_on must be a list of: (.*) \(got (.*)\)$)",
        [](const std::smatch& m) {
          return "`retry_on` debe ser una lista de: " + coded_list(m[1].str()) + " (recibido: " + m[2].str() + ")";
        },
        0);
    add(R"(^'(\w+)' is listed twice$)", [](const std::smatch& m) { return "`" + m[1].str() + "` aparece dos veces"; }, 0);
    add(R"(^'(\w+)' must come before '(\w+)': .*$)",
        [](const std::smatch& m) {
          return with_reason("`" + m[1].str() + "` debe ir antes de `" + m[2].str() + "`",
                             before_reason_es(m[1].str(), m[2].str()));
        },
        0);
    add(R"(^'(\w+)' must come after '(\w+)': .*$)",
        [](const std::smatch& m) {
          return with_reason("`" + m[1].str() + "` debe ir después de `" + m[2].str() + "`", after_reason_es(m[1].str()));
        },
        0);
    add(R"(^unknown strategy '(.*)'(?:; did you mean '([^']*)'\?)? \(one of: (.*)\)$)",
        [](const std::smatch& m) {
          std::string s = "estrategia desconocida '" + m[1].str() + "'";
          if (m[2].matched) s += "; ¿quisiste decir `" + m[2].str() + "`?";
          return s + " (una de: " + coded_list(m[3].str()) + ")";
        },
        0);
    add(R"(^"strategy" is missing \(one of: (.*)\)$)",
        [](const std::smatch& m) { return "falta `\"strategy\"` (una de: " + coded_list(m[1].str()) + ")"; }, 0);
    add(R"(^must be an object \{"strategy": NAME, its settings\} \(one of: (.*)\)$)",
        [](const std::smatch& m) {
          return "cada estrategia es un objeto `{\"strategy\": NOMBRE, sus ajustes}` (una de: " + coded_list(m[1].str()) +
                 ")";
        },
        0);
    add(R"(^'timeout' is missing: .*$)",
        [](const std::smatch&) {
          return std::string("falta `timeout`: toda `pipeline` termina con `{\"strategy\": \"timeout\", \"timeout_ms\": "
                             "10-10000}`");
        },
        0);
    add(R"(^must be a list of .*$)",
        [](const std::smatch&) {
          return std::string("`pipeline` debe ser una lista de `{\"strategy\": NOMBRE, sus ajustes}`, de la más externa "
                             "a la más interna");
        },
        0);
    add(R"(^deadline_ms is required, between 1 and (\d+)$)",
        [](const std::smatch& m) { return "`deadline_ms` es obligatorio, entre 1 y " + m[1].str(); }, 0);
    add(R"(^([\w.]+) must not exceed (\w+) \(got (\S+) and (\S+)\)$)",
        [](const std::smatch& m) {
          return "`" + m[1].str() + "` no puede superar `" + m[2].str() + "` (recibidos: " + m[3].str() + " y " +
                 m[4].str() + ")";
        },
        1);
    add(R"(^([\w.]+) must not be below (\w+) \(got (\S+) and (\S+)\)$)",
        [](const std::smatch& m) {
          return "`" + m[1].str() + "` no puede ser menor que `" + m[2].str() + "` (recibidos: " + m[3].str() + " y " +
                 m[4].str() + ")";
        },
        1);
    add(R"(^([\w.]+) must be a multiple of (\w+) \(got (\S+) and (\S+)\)$)",
        [](const std::smatch& m) {
          return "`" + m[1].str() + "` debe ser múltiplo de `" + m[2].str() + "` (recibidos: " + m[3].str() + " y " +
                 m[4].str() + ")";
        },
        1);
    add(R"(^([\w.]+) must be between (\w+) and (\w+), (\S+) and (\S+) \(got (\S+)\)$)",
        [](const std::smatch& m) {
          return "`" + m[1].str() + "` debe estar entre `" + m[2].str() + "` y `" + m[3].str() + "`, " + m[4].str() +
                 " y " + m[5].str() + " (recibido: " + m[6].str() + ")";
        },
        1);
    add(R"(^([\w.]+) must be an object \{(.*)\}$)",
        [](const std::smatch& m) { return "`" + m[1].str() + "` debe ser un objeto con: " + coded_list(m[2].str()); }, 1);
    return t;
  }();
  return table;
}

constexpr std::size_t kMaxShapedLine = 2000;

}  // namespace

DesignProblem read_design_problem(const std::string& line, const std::string& policy) {
  DesignProblem p;
  // The parser shortens what a student typed, so its lines are short; std::regex recurses once
  // per character it matches, so nothing longer reaches it.
  std::string rest = line.size() > kMaxShapedLine ? line.substr(0, kMaxShapedLine) + "..." : line;
  if (rest.rfind(policy, 0) == 0) rest = rest.substr(policy.size());
  if (!rest.empty() && rest[0] == '.') rest = rest.substr(1);
  // Where: "pipeline[1] (retry): ", "pipeline[1]: ", "pipeline[1] ", "pipeline: ", "pipeline ".
  static const std::regex where(R"(^(pipeline(?:\[\d+\])?)(?: \((\w+)\))?(?:: | )(.*)$)");
  std::smatch m;
  if (std::regex_match(rest, m, where)) {
    p.at = m[1].str();
    if (m[2].matched) p.strategy = m[2].str();
    rest = m[3].str();
  } else if (rest.rfind(": ", 0) == 0) {
    rest = rest.substr(2);
  }
  // A nested setting's object ("delay: unknown setting 'foo'"): its name leads the setting's.
  std::string nested;
  static const std::regex nested_prefix(R"(^(\w+): (.*)$)");
  if (std::smatch n; std::regex_match(rest, n, nested_prefix)) {
    nested = n[1].str();
    rest = n[2].str();
  }
  p.message_en = nested.empty() ? rest : nested + ": " + rest;
  for (const Shape& shape : shapes()) {
    std::smatch found;
    if (!std::regex_match(rest, found, shape.pattern)) continue;
    p.message_es = shape.es(found);
    if (shape.setting_group > 0) {
      p.setting = found[static_cast<std::size_t>(shape.setting_group)].str();
      if (!nested.empty()) {
        p.setting = nested + "." + *p.setting;
        p.message_es = "`" + nested + "`: " + p.message_es;
      }
    }
    return p;
  }
  p.message_es = "problema del diseño (el analizador lo describe así): '" + rest + "'";
  return p;
}

nlohmann::ordered_json to_json(const DesignProblem& p, Language language) {
  auto optional = [](const std::optional<std::string>& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
  };
  return {{"at", p.at},
          {"strategy", optional(p.strategy)},
          {"setting", optional(p.setting)},
          {"message", language == Language::es ? p.message_es : p.message_en}};
}

}  // namespace quote_lab
