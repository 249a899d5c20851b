#include "lab/api/quote_sentences.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include "lab/resilience/pipeline.hpp"

namespace quote_lab {
namespace {

bool failed_with(const TraceEvent& e, Reason r) { return e.step == Step::attempt_failed && e.reason == r; }

// Every call that reached the carrier was refused with a 429: the carrier asked to wait,
// which the course never calls a failure of the carrier ("el proveedor pide esperar").
bool only_asked_to_wait(const QuoteTrace& t) {
  const auto failed = [](const TraceEvent& e) { return e.step == Step::attempt_failed; };
  return std::any_of(t.events.begin(), t.events.end(), failed) &&
         std::all_of(t.events.begin(), t.events.end(),
                     [&](const TraceEvent& e) { return !failed(e) || failed_with(e, Reason::http_429); });
}

bool rejected_as_wrong(const QuoteTrace& t) {
  return std::any_of(t.events.begin(), t.events.end(), [](const TraceEvent& e) { return e.request_rejected; });
}

// The quote a fallback served, as the sentence names it: the seed quote is the starter one
// the lab ships with (`seed: true`), not a quote the carrier gave earlier.
Explanation served(const QuoteTrace& t) {
  if (t.answer && t.answer->seed)
    return {"se respondió con la cotización de respaldo inicial (`seed: true`): aún no se guardó ninguna cotización "
            "en vivo",
            "the seed fallback quote was served (`seed: true`): no live quote has been cached yet"};
  return {"se respondió con la cotización de respaldo", "the fallback quote was served"};
}

bool hedge_won(const QuoteTrace& t) {
  return std::any_of(t.events.begin(), t.events.end(), [](const TraceEvent& e) { return e.step == Step::hedge_won; });
}

// A strategy's sentence (its steps' row), with "{waited_ms}" replaced by the wait.
std::string said(std::string_view sentence, long long waited_ms) {
  std::string out(sentence);
  constexpr std::string_view kWait = "{waited_ms}";
  if (const auto at = out.find(kWait); at != std::string::npos) out.replace(at, kWait.size(), std::to_string(waited_ms));
  return out;
}

// What an overload strategy's refusal means, as the strategy's row says it; `waited_ms`: how
// long the flow waited before it (a bulkhead's queue), if it did.
Explanation rejection(Reason why, std::optional<long long> waited_ms) {
  const std::optional<StrategySteps> own = steps_giving(why);
  if (!own || own->rejected != why)
    return {"Una estrategia de sobrecarga rechazó la llamada", "An overload strategy refused the call"};
  const Prose& means = waited_ms && !own->rejected_after_wait.en.empty() ? own->rejected_after_wait : own->rejected_means;
  return {said(means.es, waited_ms.value_or(0)), said(means.en, waited_ms.value_or(0))};
}

// What adaptive retry's token waits (token_wait steps) added to the flow, as a sentence that
// follows the outcome's; empty without one. The wait shows in `elapsed_ms` too.
std::optional<Explanation> token_waits(const QuoteTrace& t) {
  long long total_ms = 0;
  int waits = 0, attempt = 0;
  for (const TraceEvent& e : t.events) {
    if (e.step != Step::token_wait || !e.wait_ms) continue;
    total_ms += *e.wait_ms;
    ++waits;
    attempt = e.attempt;
  }
  if (waits == 0) return std::nullopt;
  const std::string ms = std::to_string(total_ms) + " ms";
  const std::string which_es = waits == 1 ? " su ficha antes del intento " + std::to_string(attempt)
                                          : " sus fichas, antes de " + std::to_string(waits) + " intentos";
  const std::string which_en = waits == 1 ? " for its token before attempt " + std::to_string(attempt)
                                          : " for its tokens, before " + std::to_string(waits) + " attempts";
  return Explanation{"El reintento adaptativo esperó " + ms + which_es + ": tras un 429 el cliente reduce su ritmo.",
                     "Adaptive retry waited " + ms + which_en + ": after a 429 the client slows its pace."};
}

// One sentence for the flow's outcome (explanation() adds what the token waits took).
Explanation outcome(const QuoteTrace& t) {
  const int n = t.attempts();
  const std::string times_es = n == 1 ? "1 vez" : std::to_string(n) + " veces";
  const std::string times_en = n == 1 ? "once" : std::to_string(n) + " times";
  const bool short_circuited = t.short_circuited();
  const bool probed = t.probed();
  const Explanation fallback = served(t);
  if (t.cancelled())
    return {"El cliente se fue antes de la respuesta: la cotización se canceló donde estaba (en la cola, en una espera "
            "o en su llamada), sin más llamadas al proveedor y sin respaldo.",
            "The client left before the answer: the quote was cancelled where it was (queued, waiting or in its call), "
            "with no further call to the carrier and no fallback."};
  if (t.status == QuoteStatus::completed && probed)
    return {"El disyuntor estaba semiabierto: esta solicitud hizo la llamada de prueba, el proveedor respondió y el "
            "disyuntor se cerró.",
            "The breaker was half-open: this call was the probe, the carrier answered and the breaker closed."};
  if (const auto why = t.rejected()) {
    const auto refused =
        std::find_if(t.events.begin(), t.events.end(), [](const TraceEvent& e) { return e.step == Step::rejected; });
    const Explanation head = rejection(*why, refused == t.events.end() ? std::nullopt : refused->wait_ms);
    if (t.status == QuoteStatus::degraded) return {head.es + "; " + fallback.es + ".", head.en + "; " + fallback.en + "."};
    return {head.es + ", y no hay respaldo: 503.", head.en + ", and there is no fallback: 503."};
  }
  if (t.status == QuoteStatus::completed && hedge_won(t))
    return {"El proveedor no respondió a tiempo y salió una llamada de cobertura: respondió primero, y la primera "
            "llamada se abandonó.",
            "The carrier had not answered in time, so a hedged call went out: it answered first, and the first call "
            "was abandoned."};
  if (t.status == QuoteStatus::completed && t.hedges() > 0)
    return {"Salió una llamada de cobertura, pero la primera llamada respondió antes: cotización en vivo.",
            "A hedged call went out, but the first call answered first: live quote."};
  if (t.status == QuoteStatus::completed && n == 1)
    return {"Cotización en vivo al primer intento.", "Live quote on the first attempt."};
  if (t.status == QuoteStatus::completed)
    return {"Cotización en vivo tras " + std::to_string(n) + " intentos: el reintento sirvió.",
            "Live quote after " + std::to_string(n) + " attempts: the retry helped."};
  // A 4xx: the request was wrong; retrying it fails the same way, and the breaker does not
  // count it (SPEC: not a carrier failure).
  if (rejected_as_wrong(t)) {
    const Explanation head{"El proveedor rechazó la solicitud (un 4xx): el error está en la solicitud, no en el "
                           "proveedor, así que no se reintenta y el disyuntor no lo cuenta como fallo",
                           "The carrier rejected the request (a 4xx): the request is wrong, not the carrier, so it is "
                           "not retried and the breaker does not count it as a failure"};
    if (t.status == QuoteStatus::degraded) return {head.es + "; " + fallback.es + ".", head.en + "; " + fallback.en + "."};
    return {head.es + ", y no hay respaldo: 503.", head.en + ", and there is no fallback: 503."};
  }
  if (short_circuited && t.status == QuoteStatus::degraded)
    return {"Disyuntor abierto: rechaza la solicitud sin llamar al proveedor; " + fallback.es + ".",
            "Circuit open: the carrier was not called; " + fallback.en + "."};
  if (short_circuited)
    return {"Disyuntor abierto: rechaza la solicitud sin llamar al proveedor, y no hay respaldo: 503.",
            "Circuit open: the carrier was not called, and there is no fallback: 503."};
  if (t.status == QuoteStatus::degraded && probed)
    return {"La llamada de prueba del disyuntor semiabierto falló: el disyuntor se volvió a abrir y " + fallback.es + ".",
            "The half-open probe failed: the breaker reopened and " + fallback.en + "."};
  if (only_asked_to_wait(t)) {
    const Explanation head{"El proveedor pidió esperar (429) " + times_es, "The carrier asked to wait (429) " + times_en};
    if (t.status == QuoteStatus::degraded) return {head.es + "; " + fallback.es + ".", head.en + "; " + fallback.en + "."};
    return {head.es + " y no hay respaldo: 503.", head.en + " and there is no fallback: 503."};
  }
  if (t.status == QuoteStatus::degraded)
    return {"El proveedor falló " + times_es + "; " + fallback.es + ".",
            "The carrier failed " + times_en + "; " + fallback.en + "."};
  return {"El proveedor falló " + times_es + " y no hay respaldo: 503.",
          "The carrier failed " + times_en + " and there is no fallback: 503."};
}

// Why the flow stopped retrying when a strategy of its pipeline refused its next retry (the
// retry quota could not pay for it), as that strategy's row says it; empty otherwise.
std::optional<Explanation> retry_refused(const QuoteTrace& t) {
  for (const TraceEvent& e : t.events) {
    if (e.step != Step::retry_skipped || !e.reason) continue;
    const std::optional<StrategySteps> own = steps_giving(*e.reason);
    if (own && own->retry_skipped == e.reason)
      return Explanation{std::string(own->retry_skipped_means.es), std::string(own->retry_skipped_means.en)};
  }
  return std::nullopt;
}

}  // namespace

Explanation explanation(const QuoteTrace& t) {
  Explanation said = outcome(t);
  for (const auto& more : {retry_refused(t), token_waits(t)}) {
    if (!more) continue;
    said.es += " " + more->es;
    said.en += " " + more->en;
  }
  return said;
}

std::string policy_note(const RetryPolicy& p, Language language) {
  const bool breaker = p.uses(Strategy::circuit_breaker);
  const bool fallback = p.uses(Strategy::fallback);
  if (language == Language::es) {
    const std::string name = "`" + p.mode + "`";
    // `dependency` is always the carrier's one breaker; say whether this request used it.
    const std::string untouched = "`dependency` muestra el disyuntor del proveedor que comparten las solicitudes "
                                  "`resilient`; esta solicitud no lo consultó ni lo cambió";
    const std::string asks = "consulta el disyuntor del proveedor (`dependency`) antes de cada intento";
    const std::string falls_back = "responde con la última cotización buena (respaldo) cuando fallan todos los intentos";
    if (!breaker && !fallback) return name + " no tiene disyuntor ni respaldo: " + untouched;
    if (!breaker) return name + " no tiene disyuntor, pero " + falls_back + "; " + untouched;
    if (!fallback)
      return name + " " + asks + " y no tiene respaldo: cuando fallan todos los intentos la respuesta es un 503";
    return name + " " + asks + " y " + falls_back;
  }
  const std::string untouched = "`dependency` shows the carrier's circuit breaker that resilient requests share; "
                                "this request neither asked it nor changed it";
  const std::string asks = "asks the carrier's circuit breaker (`dependency`) before every attempt";
  const std::string falls_back = "serves the last good quote when every attempt fails";
  if (!breaker && !fallback) return p.mode + " has no circuit breaker and no fallback: " + untouched;
  if (!breaker) return p.mode + " has no circuit breaker but " + falls_back + "; " + untouched;
  if (!fallback) return p.mode + " " + asks + " and has no fallback: when every attempt fails the answer is a 503";
  return p.mode + " " + asks + " and " + falls_back;
}

}  // namespace quote_lab
