// Every strategy, one row each: its name in the policies file, metrics and docs, its place in
// the shipped order, the steps it alone produces, what a student reads of it, its maker, and
// for a strategy that keeps state between flows, its state's maker and gauge families.
// Adding a strategy: its enum value (pipeline.hpp) and row here, with its makers' declarations
// (strategies.hpp); its class, and its state if it keeps one (lent in its own FlowGuards slot,
// with its gauges and how the overload panel shows them), in strategies/; if it takes
// settings, its struct in OverloadStrategies with its table and its visit_settings case
// (strategy_settings); its doc row (docs/policies.md, held to GET / by a test).
#include "lab/resilience/strategies/strategy_table.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace quote_lab {
namespace {

using Maker = std::unique_ptr<ResilienceStrategy> (*)(const StrategyDeps&);
using StateMaker = std::unique_ptr<StrategyState> (*)(const RetryPolicy&, const StateDeps&);
using Gauges = std::span<const GaugeFamily* const> (*)();

struct StrategyRow {
  Strategy strategy;
  std::string_view name;
  int rank;              ///< position in the shipped policies' order (0 = outermost); the gates share one
  StrategySteps steps;   ///< the steps it alone produces (metrics make their series from start)
  StrategyAbout about;  ///< what a student reads of it (GET /)
  Maker make;
  StateMaker make_state = nullptr;  ///< null: nothing kept between flows
  Gauges gauges = nullptr;          ///< the gauge families its state shows
  std::optional<OuterNeed> outer{};  ///< the strategy it works for, listed outside it
};

// In the enum's order, as every `one of` list names them; `rank` gives the shipped order.
const std::array<StrategyRow, 11> kStrategies{{
    {Strategy::fallback, "fallback", 0, {},
     {{"respaldo", "fallback"},
      {"responde con la última cotización buena guardada cuando el flujo no obtiene una en vivo",
       "answers with the last good quote kept when the flow gets no live one"},
      "Polly v8 FallbackStrategyOptions"},
     [](const StrategyDeps& d) { return make_fallback(d.cache); }},
    {Strategy::bulkhead, "bulkhead", 1, {.rejected = Reason::bulkhead_full,
      .rejected_means = {"El mamparo (bulkhead) de esta política está lleno: la solicitud se rechazó al instante, sin "
                         "ocupar al resto del laboratorio",
                         "This policy's bulkhead is full: the request was refused at once, without holding the rest "
                         "of the lab"},
      .rejected_after_wait = {"El mamparo (bulkhead) de esta política siguió lleno mientras la solicitud esperó "
                              "{waited_ms} ms en su cola: se rechazó sin ocupar al resto del laboratorio",
                              "This policy's bulkhead stayed full while the request waited {waited_ms} ms in its "
                              "queue: it was refused without holding the rest of the lab"}},
     {{"mamparo", "bulkhead"},
      {"deja entrar a lo sumo max_concurrent cotizaciones de la política a la vez, con una cola; sin lugar, rechaza "
       "sin llamar al proveedor",
       "lets at most max_concurrent quotes of the policy in at once, with a queue; no place: refused without calling "
       "the carrier"},
      "Polly v8 ConcurrencyLimiter, resilience4j SemaphoreBulkhead"},
     [](const StrategyDeps&) { return make_bulkhead(); },
     make_bulkhead_state, bulkhead_gauges},
    {Strategy::deadline, "deadline", 2, {},
     {{"plazo total", "total deadline"},
      {"un plazo para todo el flujo, intentos y esperas incluidos, contado desde donde la lista lo pone",
       "one deadline for the whole flow, attempts and waits included, counted from where the list puts it"},
      "gRPC A6 (DEADLINE_EXCEEDED)"},
     [](const StrategyDeps&) { return make_deadline(); }},
    {Strategy::retry, "retry", 3, {},
     {{"reintentos", "retry"},
      {"repite un intento fallido tras una espera con variación aleatoria, dentro de max_attempts, retry_on y el "
       "presupuesto de reintentos",
       "repeats a failed attempt after a jittered backoff, within max_attempts, retry_on and the retry budget"},
      "AWS Architecture Blog, 'Exponential Backoff And Jitter'; Finagle RetryBudget"},
     [](const StrategyDeps&) { return make_retry(); }},
    {Strategy::retry_quota, "retry_quota", 4, {.retry_skipped = Reason::retry_quota,
      .retry_skipped_means = {"No se hizo otro reintento: a la cuota de reintentos le queda menos de lo que cuesta "
                              "uno, y solo las respuestas correctas del proveedor la recargan (SDK de AWS).",
                              "No further retry was made: the retry quota holds less than a retry costs, and only "
                              "the carrier's successful answers refill it (AWS SDKs)."}},
     {{"cuota de reintentos", "retry quota"},
      {"cada reintento paga de una cuota que solo recargan las respuestas correctas; sin saldo, no hay reintento",
       "every retry pays from a quota only successful answers refill; too little left, no retry"},
      "botocore retries/standard.py RetryQuotaChecker, retries/quota.py"},
     [](const StrategyDeps&) { return make_retry_quota(); },
     make_retry_quota_state, retry_quota_gauges,
     OuterNeed{Strategy::retry, "it pays for the retries of the retry outside it"}},
    {Strategy::circuit_breaker, "circuit_breaker", 6, {},
     {{"disyuntor", "circuit breaker"},
      {"tras failure_threshold fallos seguidos se abre y corta las llamadas open_duration_s; luego deja pasar una "
       "sola llamada de prueba",
       "after failure_threshold failures in a row it opens and cuts calls for open_duration_s; then it lets exactly "
       "one probe through"},
      "Nygard, 'Release It!'; resilience4j CircuitBreaker"},
     [](const StrategyDeps& d) { return make_circuit_breaker(d.breaker); }},
    {Strategy::adaptive_throttle, "adaptive_throttle", 5, {.rejected = Reason::throttled,
      .rejected_means = {"La limitación adaptativa descartó la llamada sin enviarla: el proveedor viene rechazando "
                         "casi todo y el cliente deja de insistir (libro de SRE)",
                         "Adaptive throttling dropped the call without sending it: the carrier has been refusing "
                         "almost everything, so the client stops insisting (SRE book)"}},
     {{"limitación adaptativa", "adaptive throttling"},
      {"descarta llamadas en el laboratorio con probabilidad (solicitudes − K·aceptadas) / (solicitudes + 1)",
       "drops calls in the lab with probability (requests − K·accepts) / (requests + 1)"},
      "Google SRE, 'Handling Overload'; go-zero core/breaker"},
     [](const StrategyDeps&) { return make_adaptive_throttle(); },
     make_adaptive_throttle_state, adaptive_throttle_gauges},
    {Strategy::adaptive_retry, "adaptive_retry", 5, {.rejected = Reason::client_rate_limited,
      .rejected_means = {"El reintento adaptativo no tenía ficha: tras un 429 del proveedor el cliente redujo su "
                         "ritmo y esta llamada habría esperado demasiado",
                         "Adaptive retry had no token: after the carrier's 429 the client slowed down and this call "
                         "would have waited too long"}},
     {{"reintento adaptativo", "adaptive retry"},
      {"cada intento toma una ficha de un balde cuyo ritmo sigue CUBIC: baja tras un 429 y vuelve a subir",
       "every attempt takes a token from a bucket whose rate follows CUBIC: down after a 429, then back up"},
      "botocore retries/adaptive.py, bucket.py, throttling.py"},
     [](const StrategyDeps&) { return make_adaptive_retry(); },
     make_adaptive_retry_state, adaptive_retry_gauges},
    {Strategy::concurrency_limit, "concurrency_limit", 5, {.rejected = Reason::concurrency_limit,
      .rejected_means = {"El límite adaptativo de concurrencia está lleno: la llamada se rechazó al instante en vez "
                         "de hacer cola",
                         "The adaptive concurrency limit is full: the call was refused at once instead of "
                         "queueing"}},
     {{"límite adaptativo de concurrencia", "adaptive concurrency limit"},
      {"limita las llamadas en curso al proveedor con un límite que sigue el gradiente entre el RTT mínimo y el "
       "medido",
       "limits the calls in flight to the carrier with a limit that follows the gradient between the minimum and the "
       "sampled RTT"},
      "Envoy adaptive_concurrency (gradient controller)"},
     [](const StrategyDeps&) { return make_concurrency_limit(); },
     make_concurrency_limit_state, concurrency_limit_gauges},
    {Strategy::hedging, "hedging", 7, {.hedges = true},
     {{"llamadas de cobertura", "hedged requests"},
      {"si la llamada no respondió tras una espera, envía una segunda; gana la primera respuesta, dentro de un "
       "presupuesto",
       "if the call has not answered after a delay, sends a second; the first answer wins, within a budget"},
      "Dean, Barroso, 'The Tail at Scale'; gRPC A6 hedging"},
     [](const StrategyDeps&) { return make_hedging(); },
     make_hedging_state, hedging_gauges},
    {Strategy::timeout, "timeout", 8, {},
     {{"tiempo límite", "timeout"},
      {"la llamada misma, cortada a timeout_ms o a lo que quede del plazo total",
       "the call itself, cut at timeout_ms or at what is left of the total deadline"},
      "SPEC; gRPC A6"},
     [](const StrategyDeps&) { return make_timeout(); }},
}};

const StrategyRow& row(Strategy s) {
  return *std::find_if(kStrategies.begin(), kStrategies.end(), [s](const StrategyRow& r) { return r.strategy == s; });
}

}  // namespace

std::string_view to_string(Strategy s) { return row(s).name; }

StrategyAbout about(Strategy s) { return row(s).about; }

std::optional<OuterNeed> outer_need(Strategy s) { return row(s).outer; }

std::optional<Strategy> parse_strategy(std::string_view text) {
  for (const StrategyRow& r : kStrategies)
    if (r.name == text) return r.strategy;
  return std::nullopt;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> out;
  for (const StrategyRow& r : kStrategies) out.emplace_back(r.name);
  return out;
}

StrategySteps steps_of(Strategy s) { return row(s).steps; }

std::optional<StrategySteps> steps_giving(Reason r) {
  for (const StrategyRow& x : kStrategies)
    if (x.steps.rejected == r || x.steps.retry_skipped == r) return x.steps;
  return std::nullopt;
}

std::string strategy_reasons(std::optional<Reason> StrategySteps::*which) {
  std::string out;
  for (const StrategyRow& x : kStrategies)
    if (const std::optional<Reason> r = x.steps.*which) out += (out.empty() ? "" : ", ") + std::string(to_string(*r));
  return out;
}

int strategy_rank(Strategy s) { return row(s).rank; }

std::vector<std::unique_ptr<ResilienceStrategy>> make_pipeline(const std::vector<Strategy>& pipeline,
                                                               const StrategyDeps& deps) {
  std::vector<std::unique_ptr<ResilienceStrategy>> out;
  out.reserve(pipeline.size());
  for (const Strategy s : pipeline) out.push_back(row(s).make(deps));
  return out;
}

std::vector<std::unique_ptr<StrategyState>> make_states(const RetryPolicy& policy, const StateDeps& deps) {
  std::vector<std::unique_ptr<StrategyState>> out;
  for (const Strategy s : policy.pipeline)
    if (const StateMaker make = row(s).make_state) out.push_back(make(policy, deps));
  return out;
}

std::span<const GaugeFamily* const> gauges_of(Strategy s) {
  if (const Gauges gauges = row(s).gauges) return gauges();
  return {};
}

std::span<const GaugeFamily* const> strategy_gauge_families() {
  // Gathered once: every /metrics scrape and Spanish help lookup walks them.
  static const std::vector<const GaugeFamily*> kFamilies = [] {
    std::vector<const GaugeFamily*> out;
    for (const StrategyRow& r : kStrategies)
      if (r.gauges)
        for (const GaugeFamily* f : r.gauges()) out.push_back(f);
    return out;
  }();
  return kFamilies;
}

}  // namespace quote_lab
