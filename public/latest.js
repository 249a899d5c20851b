// Which answer each mode's waterfall shows: the lab's latest, whoever asked for it (this
// page's Run, a student's or the teacher's curl, another page, a storm). A room watches the
// projected page while the teacher types curl: the page must show that answer, not only
// its own. Two limits keep it readable: the page's own Run stays at least OWN_HOLD_MS (the
// person who clicked reads it), and other answers replace each other at most once every
// OTHERS_EVERY_MS (a storm brings thousands a second). Pure: node tests drive the clock.

export const OWN_HOLD_MS = 3000;
export const OTHERS_EVERY_MS = 1000;

// When the lab finished the answer (timestamp_utc), for "newest wins"; 0 when unknown.
const finishedAt = a => Date.parse(a?.timestamp_utc) || 0;

export class LatestAnswers {
  constructor() { this.clear(); }

  /// Forgets every answer (the lab was reset).
  clear() {
    this.shown = {};    // mode -> {answer, clientMs, own, at (when drawn), time (lab's)}
    this.pending = {};  // mode -> the newest answer not drawn yet
  }

  /// Offers `answer` (a quote answer, or an incident: the same fields without `events`) at
  /// `nowMs`. `own`: this page's Run, drawn at once; `clientMs`: what the browser measured.
  /// Returns the modes to draw now.
  offer(answer, nowMs, { own = false, clientMs = null } = {}) {
    const mode = answer?.mode;
    if (!mode) return [];
    const entry = { answer, clientMs, own, at: nowMs, time: finishedAt(answer) };
    const shown = this.shown[mode];
    if (own) {
      this.shown[mode] = entry;
      if (this.pending[mode]?.answer.request_id === answer.request_id) delete this.pending[mode];
      return [mode];
    }
    if (shown && shown.answer.request_id === answer.request_id) {
      // The same answer again: an incident's summary gives way to the full answer.
      if (!shown.answer.events && answer.events) { shown.answer = answer; return [mode]; }
      return [];
    }
    if (shown && entry.time < shown.time) return [];
    const pending = this.pending[mode];
    if (pending && (pending.answer.request_id === answer.request_id ? pending.answer.events || !answer.events : entry.time < pending.time))
      return [];
    this.pending[mode] = entry;
    return this.due(nowMs);
  }

  /// The modes whose newer answer may replace the drawn one at `nowMs` (it becomes shown).
  due(nowMs) {
    const out = [];
    for (const [mode, next] of Object.entries(this.pending)) {
      const shown = this.shown[mode];
      const hold = !shown ? 0 : shown.own ? OWN_HOLD_MS : OTHERS_EVERY_MS;
      if (shown && nowMs - shown.at < hold) continue;
      this.shown[mode] = { ...next, at: nowMs };
      delete this.pending[mode];
      out.push(mode);
    }
    return out;
  }
}
