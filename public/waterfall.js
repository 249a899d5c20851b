// One answer as a waterfall on a millisecond axis: the wait for a worker (`queue_ms`, when
// the lab reports it), then each attempt, each backoff, the breaker's short-circuit and the
// fallback where they happened, the lab's total and what the browser measured. Both modes
// draw on the same axis (the longest of the two), so their bars compare at a glance.

// What happened inside an attempt's call: the lab lists these before the attempt itself.
const INSIDE_ATTEMPT = new Set(['hedge', 'hedge_won', 'hedge_skipped']);
const ATTEMPT = new Set(['attempt_success', 'attempt_failed']);

/// Rows with start and length in ms from when the request reached the lab. Events follow
/// each other: attempts last `elapsed_ms`, waits `wait_ms` (a backoff, the carrier's
/// Retry-After, adaptive retry's `token_wait` before its attempt); the rest (a refusal, the
/// breaker's short-circuit, the fallback) are instants. A hedged call happens inside its
/// attempt and is drawn under it: sent `wait_ms` after the attempt began (`after`), in
/// flight until the attempt's answer (the first answer wins, the other is abandoned);
/// `hedge_won` marks that answer, `hedge_skipped` (the hedge budget said no) the attempt.
/// `clientMs`: the time the browser measured (null for answers another client asked for).
export function waterfallRows(answer, clientMs = null) {
  const rows = [];
  // A wait under a millisecond is no wait worth a row (the lab reports 0 when none).
  const queue = Number.isFinite(answer.queue_ms) && answer.queue_ms >= 1 ? answer.queue_ms : null;
  let t = queue ?? 0;
  if (queue != null) rows.push({ kind: 'queue', start: 0, ms: queue });
  let inside = [];  // hedge steps waiting for their attempt
  const insideRow = (e, start, end) => {
    if (e.event === 'hedge') {
      const at = start + (e.wait_ms ?? 0);
      return { kind: 'hedge', attempt: e.attempt, reason: null, after: e.wait_ms ?? null, start: Math.min(at, end), ms: Math.max(0, end - at) };
    }
    return { kind: e.event, attempt: e.attempt, reason: e.reason || null, start: e.event === 'hedge_won' ? end : start, ms: null };
  };
  for (const e of answer.events || []) {
    if (INSIDE_ATTEMPT.has(e.event)) { inside.push(e); continue; }
    const ms = e.elapsed_ms ?? e.wait_ms ?? null;
    rows.push({ kind: e.event, attempt: e.attempt, reason: e.reason || null, start: t, ms });
    if (ATTEMPT.has(e.event)) {
      const mine = inside.filter(h => h.attempt === e.attempt);
      inside = inside.filter(h => h.attempt !== e.attempt);
      for (const h of mine) rows.push(insideRow(h, t, t + (ms ?? 0)));
    }
    if (ms != null) t += ms;
  }
  for (const h of inside) rows.push(insideRow(h, t, t));  // no attempt of theirs listed: instants where the steps stand
  rows.push({ kind: 'total', start: 0, ms: (queue ?? 0) + answer.elapsed_ms });
  if (clientMs != null) rows.push({ kind: 'client', start: 0, ms: clientMs });
  return rows;
}

/// The end of the longest row: the axis both modes share.
export function waterfallEndMs(rows) { return Math.max(0, ...rows.map(r => r.start + (r.ms ?? 0))); }

/// Axis ticks (ms) for an axis of `endMs`: about five round steps.
export function axisTicks(endMs) {
  const raw = Math.max(endMs, 1) / 5;
  const k = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map(f => f * k).find(x => x >= raw);
  const ticks = [];
  for (let v = 0; v <= endMs + 1e-9; v += step) ticks.push(v);
  return ticks;
}

/// Renders `rows` into `list` (an element) on an axis of `endMs`. `label(row)` names a row,
/// `fmt` formats ms. Each row: data-kind, data-reason, data-start-ms, data-ms (for tests).
export function renderWaterfall(list, rows, endMs, label, fmt) {
  const pct = v => `${(100 * v) / endMs}%`;
  const make = (tag, cls, text) => { const n = document.createElement(tag); if (cls) n.className = cls; if (text != null) n.textContent = text; return n; };
  const items = rows.map(r => {
    const li = make('li', `wf-row wf-${r.kind}`);
    li.dataset.kind = r.kind;
    li.dataset.reason = r.reason || '';
    li.dataset.startMs = String(r.start);
    if (r.ms != null) li.dataset.ms = String(r.ms);
    const name = make('span', 'wf-label', r.ms != null ? `${label(r)} · ${fmt.ms(r.ms).replace(' ', '\u00a0')}` : label(r));
    const track = make('span', 'wf-track');
    const bar = make('span', `wf-bar ${r.kind}${r.kind === 'attempt_failed' ? ' failed' : ''}`);
    bar.style.left = pct(r.start);
    if (r.ms != null) bar.style.width = `max(3px, ${pct(r.ms)})`; else bar.classList.add('instant');
    track.append(bar);
    li.append(name, track);
    return li;
  });
  const axis = make('li', 'wf-row wf-axis');
  const track = make('span', 'wf-track');
  for (const v of axisTicks(endMs)) { const tick = make('span', 'wf-tick', fmt.ms(v)); tick.style.left = pct(v); track.append(tick); }
  axis.append(make('span', 'wf-label', ''), track);
  list.replaceChildren(...items, axis);
}
