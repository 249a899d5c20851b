// The overload policies that ship (policy.hpp): each is written as the pipeline the policies
// file would list, so the index shows what runs; a strategy's settings are its sources'
// defaults unless set here.
#include "lab/resilience/policy.hpp"

namespace quote_lab {
namespace {

// Resilient's numbers (SPEC's defaults) under another name.
RetryPolicy resilient_numbers(const std::string& name) {
  RetryPolicy p{.mode = name};
  return p;
}

}  // namespace

NamedPolicy throttled_policy() {
  RetryPolicy p = resilient_numbers("throttled");
  p.pipeline = {Strategy::fallback, Strategy::retry, Strategy::adaptive_throttle, Strategy::timeout};
  return {p, std::nullopt};
}

NamedPolicy adaptive_limit_policy() {
  RetryPolicy p = resilient_numbers("adaptive_limit");
  // Envoy's gradient without its 25 % buffer: with the √limit headroom the limit settles
  // near capacity + √limit (Envoy's default lets it settle at 1.25 × capacity + √limit).
  GradientLimitSettings limit;
  limit.buffer_pct = 0;
  p.overload.concurrency_limit = limit;
  p.pipeline = {Strategy::fallback, Strategy::retry, Strategy::concurrency_limit, Strategy::timeout};
  return {p, std::nullopt};
}

NamedPolicy bulkhead_policy() {
  RetryPolicy p = legacy_numbers();
  p.mode = "bulkhead";
  p.pipeline = {Strategy::bulkhead, Strategy::retry, Strategy::timeout};
  return {p, std::nullopt};
}

NamedPolicy hedged_policy() {
  RetryPolicy p = resilient_numbers("hedged");
  p.timeout_ms = 1500;
  p.max_attempts = 1;
  HedgingPolicy h;
  h.delay.percentile = 90;
  h.delay.fixed_delay_ms = 300;
  h.delay.window_samples = 1000;
  h.delay.min_samples = 50;
  // A hedge is due for the slowest 10 % (the p90); a budget of 15 % lets every due hedge go
  // while a partial outage (every call slow) still adds at most 15 % + 1 a second.
  h.budget.share = 0.15;
  p.overload.hedging = h;
  p.pipeline = {Strategy::fallback, Strategy::retry, Strategy::hedging, Strategy::timeout};
  return {p, std::nullopt};
}

NamedPolicy aws_adaptive_policy() {
  RetryPolicy p = resilient_numbers("aws_adaptive");
  p.max_attempts = 3;  // botocore's standard and adaptive modes: 3 attempts
  p.backoff_base_ms = 200;
  p.backoff_max_ms = 2000;
  p.jitter = Jitter::full;
  p.jitter_min_ms = 0;
  p.jitter_max_ms = 0;
  // botocore's adaptive mode registers the standard mode's retry quota beside its rate
  // limiter (client.py _register_retries): both, with botocore's numbers (their defaults).
  p.pipeline = {Strategy::fallback, Strategy::retry, Strategy::retry_quota, Strategy::adaptive_retry,
                Strategy::timeout};
  return {p, std::nullopt};
}

}  // namespace quote_lab
