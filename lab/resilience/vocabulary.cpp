#include "lab/resilience/vocabulary.hpp"

#include "lab/base/name_table.hpp"

namespace quote_lab {
namespace {

constexpr NameTable<Mode, 2> kModeNames{{{
    {Mode::legacy, "legacy"},
    {Mode::resilient, "resilient"},
}}};

constexpr NameTable<Step, 15> kStepNames{{{
    {Step::attempt_success, "attempt_success"},
    {Step::attempt_failed, "attempt_failed"},
    {Step::backoff, "backoff"},
    {Step::circuit_opened, "circuit_opened"},
    {Step::short_circuit, "short_circuit"},
    {Step::half_open_probe, "half_open_probe"},
    {Step::fallback_used, "fallback_used"},
    {Step::retry_skipped, "retry_skipped"},
    {Step::retry_after, "retry_after"},
    {Step::rejected, "rejected"},
    {Step::hedge, "hedge"},
    {Step::hedge_won, "hedge_won"},
    {Step::hedge_skipped, "hedge_skipped"},
    {Step::token_wait, "token_wait"},
    {Step::cancelled, "cancelled"},
}}};

constexpr NameTable<Reason, 20> kReasonNames{{{
    {Reason::timeout, "timeout"},
    {Reason::connect_error, "connect_error"},
    {Reason::http_5xx, "http_5xx"},
    {Reason::http_429, "http_429"},
    {Reason::bad_response, "bad_response"},
    {Reason::circuit_open, "circuit_open"},
    {Reason::probe_in_flight, "probe_in_flight"},
    {Reason::not_retryable, "not_retryable"},
    {Reason::shutting_down, "shutting_down"},
    {Reason::retry_budget, "retry_budget"},
    {Reason::retry_quota, "retry_quota"},
    {Reason::deadline, "deadline"},
    {Reason::throttled, "throttled"},
    {Reason::concurrency_limit, "concurrency_limit"},
    {Reason::bulkhead_full, "bulkhead_full"},
    {Reason::client_rate_limited, "client_rate_limited"},
    {Reason::hedge_budget, "hedge_budget"},
    {Reason::half_open_probe, "half_open_probe"},
    {Reason::seed_quote, "seed_quote"},
    {Reason::cached_quote, "cached_quote"},
}}};

constexpr NameTable<Priority, 2> kPriorityNames{{{
    {Priority::critical, "critical"},
    {Priority::sheddable, "sheddable"},
}}};

}  // namespace

std::string_view to_string(Mode m) { return kModeNames.name(m); }
std::optional<Mode> parse_mode(std::string_view text) { return kModeNames.parse(text); }
std::vector<std::string> mode_names() { return kModeNames.names(); }

std::string_view to_string(Step s) { return kStepNames.name(s); }
std::optional<Step> parse_step(std::string_view text) { return kStepNames.parse(text); }
std::vector<std::string> step_names() { return kStepNames.names(); }

std::string_view to_string(Reason r) { return kReasonNames.name(r); }
std::optional<Reason> parse_reason(std::string_view text) { return kReasonNames.parse(text); }
std::vector<std::string> reason_names() { return kReasonNames.names(); }

std::string_view to_string(Priority p) { return kPriorityNames.name(p); }
std::optional<Priority> parse_priority(std::string_view text) { return kPriorityNames.parse(text); }
std::vector<std::string> priority_names() { return kPriorityNames.names(); }

}  // namespace quote_lab
