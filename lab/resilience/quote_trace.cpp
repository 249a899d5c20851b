#include "lab/resilience/quote_trace.hpp"

#include <algorithm>

namespace quote_lab {
namespace {

bool is_call(const TraceEvent& e) { return e.step == Step::attempt_success || e.step == Step::attempt_failed; }

bool has_step(const QuoteTrace& t, Step step) {
  return std::any_of(t.events.begin(), t.events.end(), [step](const TraceEvent& e) { return e.step == step; });
}

}  // namespace

std::string_view to_string(QuoteStatus s) {
  switch (s) {
    case QuoteStatus::completed: return "completed";
    case QuoteStatus::degraded: return "degraded";
    case QuoteStatus::failed: return "failed";
  }
  return "failed";
}

std::string_view to_string(AttemptOutcome o) {
  switch (o) {
    case AttemptOutcome::success: return "success";
    case AttemptOutcome::timeout: return "timeout";
    case AttemptOutcome::error: return "error";
    case AttemptOutcome::short_circuit: return "short_circuit";
  }
  return "error";
}

int QuoteTrace::attempts() const { return static_cast<int>(std::count_if(events.begin(), events.end(), is_call)); }

int QuoteTrace::retries() const { return std::max(0, attempts() - 1); }

int QuoteTrace::timeouts() const {
  return static_cast<int>(std::count_if(events.begin(), events.end(), [](const TraceEvent& e) {
    return e.step == Step::attempt_failed && e.reason == Reason::timeout;
  }));
}

std::vector<AttemptOutcome> QuoteTrace::outcomes() const {
  std::vector<AttemptOutcome> out;
  for (const auto& e : events) {
    if (e.step == Step::attempt_success) out.push_back(AttemptOutcome::success);
    else if (e.step == Step::attempt_failed)
      out.push_back(e.reason == Reason::timeout ? AttemptOutcome::timeout : AttemptOutcome::error);
    else if (e.refused) out.push_back(AttemptOutcome::short_circuit);
  }
  return out;
}

int QuoteTrace::hedges() const {
  return static_cast<int>(std::count_if(events.begin(), events.end(), [](const TraceEvent& e) { return e.step == Step::hedge; }));
}

std::optional<Reason> QuoteTrace::rejected() const {
  for (const auto& e : events)
    if (e.step == Step::rejected) return e.reason;
  return std::nullopt;
}

int QuoteTrace::slots() const { return attempts() + short_circuits() + (rejected() ? 1 : 0); }

int QuoteTrace::short_circuits() const {
  return static_cast<int>(std::count_if(events.begin(), events.end(), [](const TraceEvent& e) { return e.refused; }));
}

bool QuoteTrace::short_circuited() const {
  // The first slot is refused exactly when no call precedes the refusal.
  for (const auto& e : events) {
    if (is_call(e)) return false;
    if (e.refused) return true;
  }
  return false;
}

bool QuoteTrace::circuit_opened() const { return has_step(*this, Step::circuit_opened); }
bool QuoteTrace::fallback_used() const { return has_step(*this, Step::fallback_used); }
bool QuoteTrace::cancelled() const { return has_step(*this, Step::cancelled); }
bool QuoteTrace::probed() const { return has_step(*this, Step::half_open_probe); }

}  // namespace quote_lab
