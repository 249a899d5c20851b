#include "lab/http/policy_overrides.hpp"

#include <cmath>

namespace quote_lab {
namespace {

// The course's resilient policy: where a backoff override on a policy without one (legacy)
// takes its cap and jitter range from, so the choice is visible in the answer.
const RetryPolicy& course_backoff() {
  static const RetryPolicy resilient = default_policies().resilient;
  return resilient;
}

void borrow_backoff_cap(RetryPolicy& p) {
  if (p.backoff_max_ms == 0) p.backoff_max_ms = course_backoff().backoff_max_ms;
}

}  // namespace

std::string bound_text(double v) {
  if (v == std::floor(v)) return std::to_string(static_cast<long long>(v));
  std::string text = std::to_string(v);  // "0.500000": the zeros say nothing
  text.erase(text.find_last_not_of('0') + 1);
  return text;
}

std::string PolicyOverride::accepted(Language language) const {
  if (kind == OverrideKind::choice) {
    std::string list;
    // In code font: values are names, never words of the sentence.
    for (const auto& c : choices) list += (list.empty() ? "`" : ", `") + c + "`";
    return (language == Language::es ? "uno de: " : "one of: ") + list;
  }
  const bool es = language == Language::es;
  const std::string what = kind == OverrideKind::integer ? (es ? "entero " : "integer ") : (es ? "número " : "number ");
  return what + bound_text(min) + "-" + bound_text(max);
}

const std::vector<PolicyOverride>& policy_overrides() {
  using K = OverrideKind;
  static const std::vector<PolicyOverride> table = {
      {"timeout_ms", K::integer, 10, 5000, {}, MessageId::unknown_choice,
       "tiempo límite de cada intento (ms)", "timeout of each attempt (ms)",
       [](RetryPolicy& p, double v, const std::string&) { p.timeout_ms = static_cast<int>(v); }},
      {"max_attempts", K::integer, 1, 10, {}, MessageId::unknown_choice,
       "intentos como máximo, el primero incluido", "attempts at most, the first included",
       [](RetryPolicy& p, double v, const std::string&) {
         p.max_attempts = static_cast<int>(v);
         if (p.max_attempts > 1) switch_strategy(p, Strategy::retry, true);  // one attempt keeps it listed
       }},
      {"backoff_base_ms", K::integer, 0, 5000, {}, MessageId::unknown_choice,
       "espera base entre reintentos (ms), que se duplica en cada uno",
       "backoff base between retries (ms), doubled on each",
       [](RetryPolicy& p, double v, const std::string&) {
         p.backoff_base_ms = static_cast<int>(v);
         borrow_backoff_cap(p);
       }},
      {"jitter", K::choice, 0, 0, jitter_names(), MessageId::unknown_jitter,
       "variación aleatoria de la espera", "how the backoff is jittered",
       [](RetryPolicy& p, double, const std::string& c) {
         parse_jitter(c, p.jitter);
         borrow_backoff_cap(p);
         if (p.jitter == Jitter::additive && p.jitter_max_ms == 0) {
           p.jitter_min_ms = course_backoff().jitter_min_ms;
           p.jitter_max_ms = course_backoff().jitter_max_ms;
         }
       }},
      {"retry_budget_ratio", K::number, 0, 1, {}, MessageId::unknown_choice,
       "presupuesto de reintentos: reintentos por solicitud", "retry budget: retries per request",
       [](RetryPolicy& p, double v, const std::string&) { p.retry_budget_ratio = v; }},
      {"retry_budget_min_per_s", K::integer, 0, 1000, {}, MessageId::unknown_choice,
       "reintentos por segundo que el presupuesto siempre permite",
       "retries per second the budget always allows",
       [](RetryPolicy& p, double v, const std::string&) { p.retry_budget_min_per_s = static_cast<int>(v); }},
      {"deadline_ms", K::integer, 10, 5000, {}, MessageId::unknown_choice,
       "plazo total de la solicitud (ms), reintentos incluidos",
       "total deadline of the request (ms), retries included",
       [](RetryPolicy& p, double v, const std::string&) {
         p.deadline_ms = static_cast<int>(v);
         switch_strategy(p, Strategy::deadline, true);  // the pipeline it runs lists `deadline`
       }},
      {"idempotency_key", K::choice, 0, 0, idempotency_key_names(), MessageId::unknown_choice,
       "clave de idempotencia que recibe el proveedor", "the idempotency key the carrier gets",
       [](RetryPolicy& p, double, const std::string& c) { parse_idempotency_key(c, p.idempotency_key); }},
      {"circuit_breaker", K::choice, 0, 0, {"true", "false"}, MessageId::unknown_choice,
       "si la solicitud consulta el disyuntor", "whether the request asks the circuit breaker",
       [](RetryPolicy& p, double, const std::string& c) { switch_strategy(p, Strategy::circuit_breaker, c == "true"); }},
  };
  return table;
}

std::vector<std::string> policy_override_names() {
  std::vector<std::string> names;
  for (const auto& o : policy_overrides()) names.emplace_back(o.name);
  return names;
}

}  // namespace quote_lab
