#pragma once
// A client error as the lab answers it — {"error", "message", "allowed"?} with a 4xx — and
// the ONE table of the student-facing messages, in English and Spanish (errors
// in the reader's language, chosen by Accept-Language; for curl, which names none, the
// lab's `serve --language`, English by default), on every route:
// quotes, unknown routes and methods, lab names, storms, the carrier mode, the teacher
// token, resets, the server's own refusals and the carrier's. The `error` codes are the
// contract and never translated; only `message` is. The Spanish uses the course glossary's
// one term per concept (disyuntor, respaldo, restablecer...; tests/support/spanish_text.hpp).

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lab/http/accept.hpp"

namespace quote_lab {

/// A client error, rendered as {"error", "message", "allowed"?} with `status`.
struct ApiError {
  int status = 400;
  std::string error;    ///< machine-readable code, e.g. "invalid_parameter"
  std::string message;  ///< one plain sentence for a student, in English
  std::vector<std::string> allowed;
  std::string message_es;  ///< the same sentence in Spanish; empty: only the English exists

  /// The message in `language`, English when there is no Spanish one.
  const std::string& message_in(Language language) const {
    return language == Language::es && !message_es.empty() ? message_es : message;
  }
};

/// The messages of the table. Each names the {placeholders} it fills.
enum class MessageId {
  malformed_query,                 ///< {piece}
  unknown_parameter,               ///< {name}
  unknown_parameter_did_you_mean,  ///< {name} {suggestion}
  unknown_body_field,              ///< {name}
  repeated_parameter,              ///< {name}
  integer_out_of_range,            ///< {name} {min} {max} {got}
  unknown_jitter,                  ///< —
  quote_too_long,                  ///< {worst_ms} {bound_ms}
  unknown_scenario,                ///< {got}
  unknown_scenario_did_you_mean,   ///< {got} {suggestion}
  rate_limited,                    ///< {limit} {window_s} {retry_after_s}
  lab_given_twice,                 ///< —
  lab_name_length,                 ///< {max} {got}
  lab_name_characters,             ///< {char} {suggestion}
  too_many_labs,                   ///< {max} {minutes}
  route_not_found,                 ///< {method} {path}
  route_not_found_did_you_mean,    ///< {method} {path} {suggestion}
  method_not_allowed,              ///< {method} {route} {allow}
  body_not_object,                 ///< —
  class_storms_busy,               ///< {max}
  storm_running,                   ///< —
  simulations_busy,                ///< {max} {retry_after_s}
  simulations_yours_busy,          ///< {max}
  simulation_too_large,            ///< {max} {got}
  simulation_bound_reached,        ///< {max}
  simulation_requests_and_duration,  ///< —
  design_body,                     ///< —
  design_refused,                  ///< {count} {first}
  design_failed,                   ///< {why}
  simulation_failed,               ///< {why}
  design_scored,                   ///< {score} {legacy} {resilient} {place} {count} (a 200's message)
  design_scored_unranked,          ///< {score} {legacy} {resilient} (a 200's message: the teacher's lab)
  no_design,                       ///< — (a 200's message: the lab has no design yet)
  storm_rate_and_clients,          ///< —
  sweep_and_load,                  ///< —
  sweep_rate_count,                ///< {min} {max} {got}
  sweep_too_long,                  ///< {steps} {duration} {max}
  missing_carrier_mode,            ///< —
  admin_token_required,            ///< —
  admin_token_wrong,               ///< —
  cross_site_request,              ///< —
  lab_key_required,                ///< {lab} {owner}
  wrong_lab_key,                   ///< {lab} {owner}
  wrong_teacher_token,             ///< (none)
  name_taken,                      ///< {owner}
  name_claimed,                    ///< {owner} (a 201's message, not an error)
  name_reissued,                   ///< {owner} (a 201's message, not an error)
  claim_needs_name,                ///< (none)
  class_route_takes_no_lab,        ///< {route}
  unknown_policy,                  ///< {got}
  unknown_policy_did_you_mean,     ///< {got} {suggestion}
  unknown_choice,                  ///< {name} {got}
  number_out_of_range,             ///< {name} {min} {max} {got}
  lab_reset_done,                  ///< —
  class_reset_done,                ///< —
  shutting_down,                   ///< —
  http_error,                      ///< {status}
  internal_error,                  ///< —
  dashboard_file_not_found,        ///< {file}
  dashboard_path_invalid,          ///< {file}
  too_many_event_clients,          ///< —
  body_too_large,                  ///< —
  incomplete_body,                 ///< —
  invalid_content_length,          ///< {got}
  conflicting_content_length,      ///< —
  unsupported_transfer_encoding,   ///< —
  conflicting_framing,             ///< —
  transfer_encoding_needs_http11,  ///< —
  missing_host,                    ///< —
  invalid_host,                    ///< —
  host_not_allowed,                ///< {host}
  carrier_route_not_found,         ///< {method} {path}
  carrier_deadline_on_arrival,     ///< —
  carrier_deadline_during_work,    ///< —
  carrier_hung,                    ///< —
  carrier_stopping,                ///< —
  carrier_scenario_status,         ///< {status}
  invalid_priority,                ///< {got}
  carrier_shed_queue_full,         ///< {queued} {max}
  carrier_shed_codel,              ///< {waited_ms} {allowed_ms}
  carrier_shed_priority,           ///< —
  carrier_shed_workers_busy,       ///< {held}
  count_                           ///< not a message: the number of ids (the table has one text each)
};

/// Values for a message's placeholders: name (without braces) → text.
using MessageArgs = std::vector<std::pair<std::string_view, std::string>>;

/// Message `id` in `language` with every {name} of `args` filled in. Placeholders without
/// a value stay as they are written (a test catches that, not a student).
std::string message_text(MessageId id, Language language, const MessageArgs& args);

/// An ApiError whose message comes from the table, in both languages.
ApiError api_error(int status, std::string error, MessageId id, const MessageArgs& args,
                   std::vector<std::string> allowed = {});

}  // namespace quote_lab
