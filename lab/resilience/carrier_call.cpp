#include "lab/resilience/carrier_call.hpp"

namespace quote_lab {

Reason failure_reason(CallError e) {
  switch (e) {
    case CallError::timeout: return Reason::timeout;
    case CallError::connect_error: return Reason::connect_error;
    case CallError::http_5xx: return Reason::http_5xx;
    case CallError::http_429: return Reason::http_429;
    case CallError::none:
    case CallError::http_4xx:
    case CallError::bad_response: return Reason::bad_response;
  }
  return Reason::bad_response;
}

std::string_view to_string(CallError e) { return e == CallError::none ? "success" : to_string(failure_reason(e)); }

CallError call_error_for_status(int http_status) {
  if (http_status == 200) return CallError::none;
  if (http_status == 429) return CallError::http_429;
  if (http_status >= 500) return CallError::http_5xx;
  if (http_status >= 400) return CallError::http_4xx;
  return CallError::bad_response;
}

}  // namespace quote_lab
