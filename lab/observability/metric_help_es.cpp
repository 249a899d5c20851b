#include "lab/observability/metric_help_es.hpp"

#include <array>
#include <string>
#include <utility>

#include "lab/resilience/strategies/strategy_table.hpp"

namespace quote_lab {

std::optional<std::string_view> metric_help_es(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 20> kHelp{{
      {"quote_lab_quote_requests_total",
       "Solicitudes de cotización que respondió el laboratorio, por modo, escenario y estado final (`completed` = "
       "cotización en vivo, `degraded` = cotización de respaldo, `failed` = 503)."},
      {"quote_lab_quote_duration_seconds",
       "Tiempo que tardó el laboratorio en responder una solicitud de cotización, con reintentos y esperas entre "
       "reintentos incluidos, en segundos."},
      {"quote_lab_carrier_attempts_total",
       "Intentos de llamar al proveedor, por modo y resultado; short_circuit = el disyuntor rechazó la llamada, "
       "que nunca salió del laboratorio."},
      {"quote_lab_retries_total", "Llamadas al proveedor que fueron reintentos de un intento fallido anterior."},
      {"quote_lab_fallbacks_total", "Solicitudes de cotización respondidas con la cotización de respaldo guardada."},
      {"quote_lab_quotes_cancelled_total",
       "Cotizaciones detenidas porque su cliente se fue (en una cola, una espera o un intento): ninguna llamada más "
       "al proveedor y sin respaldo."},
      {"quote_lab_breaker_transitions_total", "Cambios de estado del disyuntor, de un estado a otro."},
      {"quote_lab_breaker_state",
       "Estado del disyuntor de cada dependencia: 1 para el estado actual, 0 para los demás."},
      {"quote_lab_http_requests_total",
       "Solicitudes HTTP que respondió el laboratorio, por plantilla de ruta y código de estado."},
      {"quote_lab_rate_limited_total",
       "Solicitudes de cotización rechazadas con un 429 por el límite de solicitudes por cliente (--rate-limit), "
       "por plantilla de ruta."},
      {"quote_lab_hedges_total",
       "Llamadas de cobertura por modo y resultado: sent (salió una segunda llamada al proveedor), won (respondió "
       "primero), skipped (la retuvo el presupuesto de coberturas, o era la llamada de prueba del disyuntor semiabierto)."},
      {"quote_lab_carrier_calls_total",
       "Llamadas que recibió el proveedor simulado, por escenario (con los reintentos: compáralas con las "
       "solicitudes de cotización para ver la amplificación)."},
      {"quote_lab_carrier_in_flight", "Llamadas que el proveedor simulado está atendiendo ahora."},
      {"quote_lab_carrier_peak_in_flight",
       "Máximo de llamadas que el proveedor simulado atendió a la vez desde el arranque o el último "
       "restablecimiento."},
      {"quote_lab_carrier_wasted_calls_total",
       "Llamadas que el proveedor terminó cuando quien llamaba ya se había rendido (venció su tiempo límite): "
       "trabajo perdido."},
      {"quote_lab_carrier_wasted_seconds_total",
       "Tiempo del proveedor, en segundos, gastado en llamadas cuyo llamador ya se había rendido."},
      {"quote_lab_carrier_shed_calls_total",
       "Llamadas que un proveedor que descarta carga respondió con un 503 en vez de atenderlas, por "
       "motivo (queue_full, codel, priority, workers_busy)."},
      {"quote_lab_carrier_queued_calls",
       "Llamadas que esperan ahora en las colas de los proveedores que descartan carga, de todos los laboratorios."},
      {"quote_lab_state_backend_up",
       "1 mientras el almacén de estado compartido (Redis) responde; 0 mientras cada réplica decide sola."},
      {"quote_lab_state_backend_errors_total",
       "Viajes de ida y vuelta fallidos y reconexiones al almacén de estado compartido."},
  }};
  // The two whose reasons are the strategies' own list them from the strategies' rows.
  static const std::string kRejections =
      "Llamadas al proveedor que una estrategia de sobrecarga rechazó antes de salir del laboratorio, por modo y "
      "motivo (" + strategy_reasons(&StrategySteps::rejected) + ").";
  static const std::string kRetriesSkipped =
      "Reintentos que una solicitud de cotización no hizo, por modo y motivo (retry_budget, " +
      strategy_reasons(&StrategySteps::retry_skipped) + ", not_retryable, circuit_open, ...).";
  if (name == "quote_lab_overload_rejections_total") return kRejections;
  if (name == "quote_lab_retries_skipped_total") return kRetriesSkipped;
  for (const auto& [family, help] : kHelp)
    if (family == name) return help;
  for (const GaugeFamily* f : strategy_gauge_families())  // each strategy's gauges carry their own
    if (f->name == name) return f->help_es;
  return std::nullopt;
}

}  // namespace quote_lab
