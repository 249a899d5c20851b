#include "lab/carrier/carrier_client.hpp"
#include "lab/carrier/http_date.hpp"
#include "lab/formats/quote_json.hpp"

#include <httplib.h>

#include <nlohmann/json.hpp>

namespace quote_lab {

HttpCarrierClient::HttpCarrierClient(std::string base_url, const Clock& clock, Route route,
                                     HostResolver::Lookup lookup)
    : base_url_(std::move(base_url)), clock_(clock), route_(std::move(route)) {
  if (std::string host = url_host(base_url_); !host.empty())
    resolver_ = std::make_unique<HostResolver>(std::move(host), std::move(lookup));
}

CallOutcome HttpCarrierClient::call(const CarrierRequest& request) {
  const auto routed = route_ ? route_(request) : std::nullopt;
  httplib::Client client(routed ? *routed : base_url_);
  if (!routed && resolver_) {
    const auto address = resolver_->address();
    if (!address) {  // the name was never found
      CallOutcome refused;
      refused.error = CallError::connect_error;
      return refused;
    }
    client.set_hostname_addr_map({{resolver_->host(), *address}});
  }
  client.set_tcp_nodelay(true);
  client.set_keep_alive(false);
  client.set_connection_timeout(request.timeout);
  client.set_read_timeout(request.timeout);
  client.set_write_timeout(request.timeout);

  httplib::Params params{{"customer_id", std::to_string(request.customer_id)},
                         {"items", std::to_string(request.items)}};
  if (!request.scenario.empty()) params.emplace("scenario", request.scenario);
  // The caller's deadline travels with the call (as gRPC's grpc-timeout does), so the
  // carrier can count the work it finishes after we gave up: the waste of a retry storm.
  const auto deadline_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               (clock_.wall_now() + request.timeout).time_since_epoch())
                               .count();
  httplib::Headers headers{
      {"X-Attempt", std::to_string(request.attempt)},
      {"X-Deadline-Unix-Ms", std::to_string(deadline_ms)},
      {"X-Priority", std::string(to_string(request.priority))},
      {"traceparent", "00-" + request.trace_id + "-" + request.request_id.substr(0, 16) + "-01"}};
  if (!request.idempotency_key.empty()) headers.emplace("Idempotency-Key", request.idempotency_key);
  if (!request.lab.empty()) headers.emplace("X-Quote-Lab", request.lab);
  if (request.deadline)
    headers.emplace("X-Request-Deadline-Unix-Ms",
                    std::to_string(std::chrono::duration_cast<Millis>(request.deadline->time_since_epoch()).count()));

  const SteadyTime started = clock_.now();
  // The per-recv read timeout is not a deadline; the watchdog is (see deadline_watchdog.hpp).
  auto guard = watchdog_.arm(started + request.timeout,
                             [&client] { client.stop(); });
  // A client that left cuts the call at once (the executor drops its outcome).
  const auto stop_now = [&client] { client.stop(); };
  const std::stop_callback on_cancel(request.cancel, stop_now);
  // A carrier (or a proxy in its place) could send an endless body: read at most 64 KiB.
  std::string body;
  bool too_big = false;
  const auto result = client.Get("/quote", params, headers, [&](const char* data, std::size_t n) {
    too_big = body.size() + n > kMaxCarrierBodyBytes;
    if (!too_big) body.append(data, n);
    return !too_big;
  });
  const bool deadline_fired = guard.fired();
  CallOutcome out;
  out.elapsed_ms = elapsed_ms(started, clock_.now());

  if (too_big) {
    out.error = CallError::bad_response;
    return out;
  }
  if (!result) {
    const auto err = result.error();
    const bool spent = out.elapsed_ms >= static_cast<double>(request.timeout.count()) * 0.98;
    if (err == httplib::Error::ConnectionTimeout || deadline_fired || spent)
      out.error = CallError::timeout;
    else
      out.error = CallError::connect_error;  // refused or reset before the deadline
    return out;
  }
  out.http_status = result->status;
  if (result->has_header("Retry-After"))
    out.retry_after = parse_retry_after(result->get_header_value("Retry-After"), clock_.wall_now());
  out.error = call_error_for_status(result->status);
  if (!out.ok()) return out;

  const auto json = nlohmann::ordered_json::parse(body, nullptr, /*allow_exceptions=*/false);
  out.quote = quote_from_json(json);
  if (!out.quote) out.error = CallError::bad_response;
  return out;
}

}  // namespace quote_lab
