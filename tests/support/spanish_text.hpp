#pragma once
// Whether a sentence the lab says is in the language it was asked for, by the course
// glossary (one Spanish term per concept: disyuntor, respaldo, tiempo límite, restablecer...).
// A sentence is judged by its words: in a Spanish one, English marker words ("the", "is",
// "breaker", "request"...) and the glossary's rejected Spanish synonyms ("circuito",
// "cortocircuito", "sonda", "reiniciar" for a reset...); in an English one, Spanish marker
// words and letters. What is code is not prose and is left out before judging: `code spans`
// (policy names, fields), 'quoted values' (what a student typed), paths and URLs, query
// strings, flags, names_with_underscores, UPPER-CASE acronyms and methods (GET, HTTP, JSON),
// numbers, and in Spanish a short English gloss in parentheses after its Spanish term
// ("tiempo límite (timeout)", as the glossary asks at first use).

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lab/http/accept.hpp"

namespace quote_lab::testing {

namespace spanish_text_detail {

// Words that only English prose uses (never a Spanish word too: no "a", "no", "me").
inline const std::set<std::string>& english_markers() {
  static const std::set<std::string> words{
      "the", "is", "are", "was", "were", "be", "been", "not", "use", "with", "must", "this", "that", "these",
      "those", "from", "of", "and", "to", "for", "by", "on", "at", "it", "its", "you", "your", "every", "none",
      "when", "which", "there", "than", "only", "after", "before", "again", "any", "all", "can", "will", "would",
      "should", "one", "an", "if", "into", "over", "without", "because", "while", "did", "does", "got", "gets",
      "mean", "breaker", "circuit", "request", "requests", "failed", "failure", "fails", "answer", "answers",
      "answered", "carrier", "quote", "quotes", "fallback", "timeout", "timeouts", "backoff", "jitter", "worker",
      "workers", "probe", "retry", "retries", "storm", "storms", "reset", "lab", "labs", "teacher", "student",
      "students", "dashboard", "page", "browser", "file", "too", "many", "try", "serves", "served", "asks", "deadline"};
  return words;
}

// The glossary's rejected Spanish (and English) terms: one term per concept in Spanish text.
inline const std::set<std::string>& rejected_in_spanish() {
  static const std::set<std::string> words{
      "circuito", "circuitos", "cortocircuito", "cortocircuitos", "cortacircuitos", "resiliente", "resilientes",
      "sonda", "sondas", "saturado", "saturada", "saturados", "observa", "observarás", "petición", "peticiones",
      // Policy names are code: in Spanish prose always `legacy`, `resilient`, in code font.
      "legacy", "resilient"};
  return words;
}

// Words that only Spanish prose uses.
inline const std::set<std::string>& spanish_markers() {
  static const std::set<std::string> words{
      "el", "la", "los", "las", "del", "al", "que", "una", "uno", "por", "para", "con", "sin", "es", "son",
      "fue", "se", "su", "sus", "y", "de", "en", "solicitud", "solicitudes", "proveedor", "cotización",
      "disyuntor", "respaldo", "laboratorio", "laboratorios", "intento", "intentos", "tormenta", "cuando",
      "cada", "todos", "todas", "ninguna", "ningún", "aún", "más", "así"};
  return words;
}

inline std::string lower_ascii(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// `text` without what is code, so that only prose is left to judge.
inline std::string prose_of(std::string text, Language language) {
  static const std::regex code("`[^`]*`");
  static const std::regex quoted("'[^' ][^']*'");
  static const std::regex restart("reinici\\w* el proceso");
  static const std::regex gloss("\\((?:[A-Za-z]+)(?: [A-Za-z]+)?\\)");
  text = std::regex_replace(text, code, " ");
  text = std::regex_replace(text, quoted, " ");
  if (language == Language::es) {
    text = std::regex_replace(text, restart, " ");  // "reiniciar el proceso" is the glossary's restart
    text = std::regex_replace(text, gloss, " ");
  }
  return text;
}

inline bool is_code_token(const std::string& token) {
  if (token.find_first_of("/=?_{}<>@#$%&*+'`\"\\|.") != std::string::npos) return true;
  if (token.find_first_of("0123456789") != std::string::npos) return true;
  if (token.size() > 1 && token.front() == '-') return true;  // a flag: --max-labs
  if (token.find('-') != std::string::npos) return true;      // a-z, Retry-After, X-Lab-Key
  const bool has_lower = std::any_of(token.begin(), token.end(), [](unsigned char c) { return std::islower(c); });
  const bool ascii = std::all_of(token.begin(), token.end(), [](unsigned char c) { return c < 0x80; });
  return ascii && token.size() > 1 && !has_lower;  // GET, HTTP, JSON, RST, IP
}

inline bool has_spanish_letter(const std::string& word) {
  for (const char* letter : {"á", "é", "í", "ó", "ú", "ñ", "¿", "¡"})
    if (word.find(letter) != std::string::npos) return true;
  return false;
}

}  // namespace spanish_text_detail

/// The words of `text` that do not belong in a sentence in `language` (empty when it is
/// clean): English or rejected terms in Spanish, Spanish in English.
inline std::vector<std::string> foreign_words(const std::string& text, Language language) {
  using namespace spanish_text_detail;
  std::vector<std::string> found;
  const std::string prose = prose_of(text, language);
  // "reiniciar" for a reset: any form of the verb left after the process restarts are gone.
  static const std::regex restart_verb("\\breinici\\w*", std::regex::icase);
  if (language == Language::es)
    for (auto it = std::sregex_iterator(prose.begin(), prose.end(), restart_verb); it != std::sregex_iterator(); ++it)
      found.push_back(it->str());
  std::size_t i = 0;
  while (i < prose.size()) {
    const auto start = prose.find_first_not_of(" \t\n", i);
    if (start == std::string::npos) break;
    const auto end = prose.find_first_of(" \t\n", start);
    std::string token = prose.substr(start, end == std::string::npos ? std::string::npos : end - start);
    i = end == std::string::npos ? prose.size() : end;
    // Punctuation around a word is not part of it (ASCII, and the Spanish marks).
    const std::string_view edges = ".,;:!?()[]\"«»";
    for (const char* mark : {"¿", "¡", "…"})
      for (std::size_t at; (at = token.find(mark)) != std::string::npos;) token.erase(at, std::string_view(mark).size());
    while (!token.empty() && edges.find(token.front()) != std::string_view::npos) token.erase(0, 1);
    while (!token.empty() && edges.find(token.back()) != std::string_view::npos) token.pop_back();
    if (token.empty() || is_code_token(token)) continue;
    const std::string word = lower_ascii(token);
    if (language == Language::es) {
      if (english_markers().count(word) || rejected_in_spanish().count(word)) found.push_back(token);
    } else if (spanish_markers().count(word) || has_spanish_letter(word)) {
      found.push_back(token);
    }
  }
  return found;
}

/// One human-readable string of a JSON answer, with where it was.
struct Sentence {
  std::string where;  ///< a JSON path: .routes[3].description
  std::string text;
};

/// Every string of `answer` that is a sentence a person reads, leaving out what is code:
/// single words (names, enums, ids, statuses, timestamps), the values of `code_keys` (paths,
/// URLs, commands, raw carrier bodies...), and of a bilingual object {"es", "en"} only the
/// half in `language`.
inline void sentences_of(const nlohmann::ordered_json& answer, Language language, const std::set<std::string>& code_keys,
                         std::vector<Sentence>& out, const std::string& where = "") {
  if (answer.is_object()) {
    const bool bilingual = answer.contains("es") && answer.contains("en");
    for (const auto& [key, value] : answer.items()) {
      if (code_keys.count(key)) continue;
      if (bilingual && key == (language == Language::es ? "en" : "es")) continue;
      sentences_of(value, language, code_keys, out, where + "." + key);
    }
  } else if (answer.is_array()) {
    for (std::size_t i = 0; i < answer.size(); ++i)
      sentences_of(answer[i], language, code_keys, out, where + "[" + std::to_string(i) + "]");
  } else if (answer.is_string()) {
    const std::string& text = answer.get_ref<const std::string&>();
    if (text.find(' ') != std::string::npos) out.push_back({where, text});
  }
}

}  // namespace quote_lab::testing
