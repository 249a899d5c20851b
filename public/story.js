// The story over time, one point per mode about every second: request rate, carrier calls
// per second and % degraded or failed come from the lab's own counters
// (/diagnostics/summary), so a storm of thousands of answers a second is counted whole even
// when the live stream cannot carry every answer; p50/p95/p99 come from the answers the page
// saw in that second. The breaker's open and half-open spans are kept for shading.
// Bounded: points and spans older than the window are dropped, samples per second capped.
// Pure (no DOM): node tests drive it with their own clock and draws.

export const MODES = ['legacy', 'resilient'];
export const WINDOW_MS = 10 * 60 * 1000;  // a storm lasts at most 60 s: it always fits whole
export const MIN_STEP_MS = 900;           // counters read sooner than this wait for the next point
export const MAX_SAMPLES = 4000;          // latencies kept per mode and second (reservoir)
const COUNTERS = ['requests', 'successes', 'degraded', 'failures', 'attempts'];

/// Nearest-rank percentile of sorted `xs` (the lab's own definition), null when empty.
export function percentile(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export class Story {
  constructor(windowMs = WINDOW_MS, random = Math.random) {
    this.windowMs = windowMs;
    this.random = random;
    this.clear();
  }

  /// Forgets everything (the lab was reset).
  clear() {
    this.points = { legacy: [], resilient: [] };
    this.samples = { legacy: [], resilient: [] };
    this.offered = { legacy: 0, resilient: 0 };
    this.totals = { legacy: 0, resilient: 0 };  // requests drawn since the last clear
    this.bands = [];                            // {from, to (null: still), state}
    this.breakerState = null;
    this.prev = null;                           // {at, counters}
    this.since = null;                          // when the counters were first read (the baseline)
    // Counters read too soon for a point, or a read that failed: the next second must read
    // the lab again, not draw a flat one, or a storm's last answers would never be counted.
    this.owed = false;
  }

  /// The lab was reset at `atMs` (its clock): forgets everything, and its counters start
  /// from zero there, so every answer after the reset is counted, none drawn as past.
  reset(atMs) {
    this.clear();
    this.prev = { at: atMs, counters: Object.fromEntries(MODES.map(m => [m, Object.fromEntries(COUNTERS.map(k => [k, 0]))])) };
    this.since = atMs;
  }

  /// One answer's latency (ms, queue included) seen live.
  sample(mode, ms) {
    if (!this.samples[mode] || !Number.isFinite(ms)) return;
    const s = this.samples[mode];
    const seen = ++this.offered[mode];
    if (s.length < MAX_SAMPLES) s.push(ms);
    else { const j = Math.floor(this.random() * seen); if (j < MAX_SAMPLES) s[j] = ms; }  // uniform sample of the second
  }

  /// The lab's counters (summary.modes) read at `nowMs`. Adds a point per mode when at least
  /// MIN_STEP_MS have passed since the last one (sooner, the counters are `owed`: the
  /// next second reads them again); counters that went down mean a reset or a restart:
  /// they become the new baseline; a reading older than the last one is ignored (two
  /// reads crossed). Returns whether points were added.
  counters(modes, nowMs) {
    // A reading timed at or before the last point: two reads crossed, or a flat second
    // (idle(), Date.now()) came after a read timed by Resource Timing's clock, which can lag
    // Date.now(). Its counters may be the newest there are (a storm's last answers): owed,
    // so the next second reads the lab again instead of drawing flat seconds for good.
    if (this.prev && nowMs <= this.prev.at) { this.owed = true; return false; }
    const c = {};
    for (const m of MODES) c[m] = Object.fromEntries(COUNTERS.map(k => [k, Number(modes?.[m]?.[k] ?? 0)]));
    if (!this.prev || MODES.some(m => COUNTERS.some(k => c[m][k] < this.prev.counters[m][k]))) {
      this.prev = { at: nowMs, counters: c };
      this.since = nowMs;
      return false;
    }
    const dtMs = nowMs - this.prev.at;
    if (dtMs < MIN_STEP_MS) { this.owed = true; return false; }
    for (const m of MODES) {
      const d = Object.fromEntries(COUNTERS.map(k => [k, c[m][k] - this.prev.counters[m][k]]));
      const lat = this.samples[m].sort((a, b) => a - b);
      this.points[m].push({
        x: nowMs, requests: d.requests, rate: (1000 * d.requests) / dtMs, calls: (1000 * d.attempts) / dtMs,
        errors: d.requests ? (100 * (d.degraded + d.failures)) / d.requests : null,
        p50: percentile(lat, 50), p95: percentile(lat, 95), p99: percentile(lat, 99),
      });
      this.totals[m] += d.requests;
      this.samples[m] = [];
      this.offered[m] = 0;
    }
    this.prev = { at: nowMs, counters: c };
    this.owed = false;
    this.trim(nowMs);
    return true;
  }

  /// Whether an answer the lab finished at `atMs` came before the counters' baseline: the
  /// counters never count it, so it belongs at its own time (past()), not in the next second.
  isPast(atMs) { return this.since === null || (Number.isFinite(atMs) && atMs < this.since); }

  /// One answer from before the baseline (an incident read when the page opens), drawn at
  /// its own second: latency only; rates stay unknown there (null), as the counters did not
  /// see it. Incidents from minutes ago are not news of the current second.
  past(mode, ms, atMs) {
    if (!this.points[mode] || !Number.isFinite(ms) || !Number.isFinite(atMs)) return;
    const x = Math.floor(atMs / 1000) * 1000;
    const pts = this.points[mode];
    let p = pts.find(q => q.past && q.x === x);
    if (!p) {
      p = { x, past: [], requests: 0, rate: null, calls: null, errors: null, p50: null, p95: null, p99: null };
      let i = pts.length;
      while (i > 0 && pts[i - 1].x > x) i--;
      pts.splice(i, 0, p);
    }
    p.past.push(ms);
    p.past.sort((a, b) => a - b);
    p.requests = p.past.length;
    for (const q of [50, 95, 99]) p[`p${q}`] = percentile(p.past, q);
    this.trim(Math.max(atMs, this.prev?.at ?? atMs));
  }

  /// No answer since the last point: the same counters again (a flat second), no request.
  /// Not while counters are owed: that second is not flat, the lab must be read.
  idle(nowMs) { return this.prev && !this.owed ? this.counters(this.prev.counters, nowMs) : false; }

  /// The breaker's state (closed, open, half_open) as known at `nowMs`.
  breaker(status, nowMs) {
    if (!status || status === this.breakerState) return;
    this.breakerState = status;
    const last = this.bands[this.bands.length - 1];
    if (last && last.to === null) last.to = nowMs;
    if (status !== 'closed') this.bands.push({ from: nowMs, to: null, state: status });
    this.trim(nowMs);
  }

  trim(nowMs) {
    const oldest = nowMs - this.windowMs;
    for (const m of MODES) {
      const pts = this.points[m];
      let drop = 0;
      while (drop < pts.length && pts[drop].x < oldest) drop++;
      if (drop) pts.splice(0, drop);
    }
    this.bands = this.bands.filter(b => b.to === null || b.to >= oldest);
  }

  /// The time span to draw, shared by every chart: from the oldest point to now.
  span(nowMs) {
    const first = Math.min(...MODES.map(m => this.points[m][0]?.x ?? nowMs), ...this.bands.map(b => b.from));
    return { min: Math.max(first, nowMs - this.windowMs), max: nowMs };
  }
}
