// What the page draws from the lab's data: the breaker, the storm result cards, the
// overload strategies, the counters and the latest requests. Each takes the data, the words of the reader's language
// (`w`, from i18n.js) and the formatter (`f`), and only writes the DOM.
import { MODES } from './story.js';
import { dropPercent } from './overload.js';

const $ = sel => document.querySelector(sel);

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v; else if (k === 'text') node.textContent = v; else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

/// A big number with its caption: what a projector shows from the back of the room.
export const figure = (key, value, caption) =>
  el('div', { class: 'figure', 'data-key': key }, el('b', { class: 'key-number', text: value }), el('span', { text: caption }));

/// The breaker `b` (/dependency/state) as read at `readAt` (performance.now()): the
/// cooldown counts down from there. Before the first read (`b` null) it says so: a green
/// "closed" there would tell a room something nobody measured.
export function renderBreakerView(b, readAt, w, f) {
  const badge = $('#breaker-state');
  if (!b) {
    badge.className = 'state key-number connecting';
    badge.dataset.state = 'connecting';
    badge.textContent = w.connecting;
    return;
  }
  badge.className = `state key-number ${b.circuit_status}`;
  badge.dataset.state = b.circuit_status;
  badge.textContent = w.state[b.circuit_status] || b.circuit_status;
  const left = b.circuit_status === 'open' ? Math.max(0, b.cooldown_left_ms - (performance.now() - readAt)) : 0;
  $('#breaker-cooldown').textContent = b.circuit_status === 'open' ? `${f.fixed(left / 1000, 1)} ${w.seconds}` : w.none;
  $('#breaker-failures').textContent = f.num(b.consecutive_failures);
  $('#breaker-shorts').textContent = f.num(b.short_circuit_count);
  $('#breaker-opens').textContent = f.num(b.open_events);
  const q = b.fallback_quote;
  $('#breaker-fallback').textContent = q ? `${f.num(q.amount, 2)} ${q.currency} · ${q.quote_id} · ${w.age(f.num(q.age_s, 1))}` : w.none;
  renderBackendNote(b.state_backend, w);
}

// Redis shared by replicas: "this replica only" while it does not answer, then for a while
// "Redis is back" (the replicas resynced). Nothing with the file backend.
const BACK_NOTE_MS = 30000;
let backend = { alone: false, backAt: null };
function renderBackendNote(sb, w) {
  const note = $('#breaker-backend');
  if (!note || !sb) return;
  const alone = sb.kind === 'redis' && !sb.healthy;
  if (backend.alone && !alone) backend.backAt = performance.now();
  backend.alone = alone;
  const back = backend.backAt !== null && performance.now() - backend.backAt < BACK_NOTE_MS;
  note.hidden = !alone && !back;
  note.textContent = alone ? w.backendAlone : back ? w.backendBack : '';
  note.dataset.backend = alone ? 'alone' : back ? 'back' : '';
}

/// What a storm changed from its policy, in words: its overrides (`params`) and layers.
function stormExtras(r, w, f) {
  const out = [];
  for (const [k, v] of Object.entries(r.params || {})) {
    if (k === 'circuit_breaker' && v === 'false') out.push(w.noBreaker);
    else if (k === 'retry_budget_ratio') out.push(w.budgetOf(f.num(Number(v), 2)));
    else out.push(`${k}=${v}`);
  }
  if (r.layers?.length > 1) out.push(f.count(r.layers.length, 'layer'));
  return out.map(x => ` · ${x}`).join('');
}

/// A storm's requests by what their client got, in % (null without requests): `noQuote`,
/// no quote at all (a 503, a refusal, no answer), and `fallback`, a fallback quote (degraded,
/// a 200). Two outcomes a room must tell apart; one "degraded or failed" share hid which.
export function stormOutcomes(r) {
  const n = r?.requests || 0;
  const fallback = r?.status_counts?.degraded || 0;
  const noQuote = Math.max(0, n - (r?.status_counts?.completed || 0) - fallback);
  return n ? { noQuote: (100 * noQuote) / n, fallback: (100 * fallback) / n } : { noQuote: null, fallback: null };
}

/// A storm's load and what came of it, for its card: `offered`, arrivals per second offered;
/// `goodput`, the share of the arrivals whose answer was useful (HTTP 200, a live quote or a
/// fresh fallback, in time), in %. Null for a result without them (a lab from before
/// open-loop storms).
export function stormGoodput(r) {
  return { offered: r?.offered_rps ?? null, goodput: r?.goodput_ratio == null ? null : 100 * r.goodput_ratio };
}

/// The last storm result of each policy (`storms[mode]`, POST /experiments/storm's
/// last_result): legacy and resilient side by side always, then a card for each other
/// policy stormed since the reset; `runningMode` is the policy of a storm under way, if any.
/// Amplification, the lesson, is each card's first figure.
export function renderStormCardsView(storms, runningMode, w, f) {
  const modes = [...MODES, ...Object.keys(storms).filter(m => !MODES.includes(m))];
  if (runningMode && !modes.includes(runningMode)) modes.push(runningMode);
  const box = $('.storm-results');
  for (const card of box.querySelectorAll('.storm-card')) if (!modes.includes(card.dataset.mode)) card.remove();
  for (const mode of modes) {
    let card = $(`#storm-${mode}`);
    if (!card) box.append(card = el('div', { id: `storm-${mode}`, class: 'storm-card', 'data-mode': mode, 'aria-live': 'polite' }));
    const r = storms[mode];
    const head = el('h3', {}, el('span', { text: MODES.includes(mode) ? w[mode] : w.policyNamed(mode) }));
    if (runningMode === mode) head.append(el('span', { class: 'running', text: ` · ${w.running}` }));
    card.dataset.requests = r ? String(r.requests) : '';
    if (!r) { card.replaceChildren(head, el('p', { class: 'note', text: w.stormNone })); continue; }
    const k = w.stormKeys;
    const shares = stormOutcomes(r);
    const pct = v => `${f.num(v, 0)}\u00a0%`;
    const headline = figure('amplification', f.ratio(r.amplification), k.amplification);
    headline.classList.add('headline');
    card.replaceChildren(head, el('p', { class: 'note', text: w.stormOf(r, f) + stormExtras(r, w, f) }),
      el('div', { class: 'figures' }, headline,
        figure('requests', f.num(r.requests), k.requests), figure('throughput', f.num(r.throughput_rps, 1), k.throughput),
        figure('p50', f.ms(r.latency_ms.p50), k.p50), figure('p99', f.ms(r.latency_ms.p99), k.p99),
        figure('health', f.ms(r.health_latency_ms.p99), k.health),
        figure('wasted', f.num(r.wasted_carrier_calls), k.wasted),
        figure('no-quote', pct(shares.noQuote), k.noQuote), figure('fallback', pct(shares.fallback), k.fallback)));
    const load = stormGoodput(r);
    if (load.offered != null) {
      card.querySelector('.figures').append(figure('offered', f.num(load.offered, 1), k.offered),
        figure('goodput', load.goodput == null ? w.none : pct(load.goodput), k.goodput));
    }
    if (r.metastable) {
      card.append(el('p', { class: 'note metastable', 'data-recovered': String(r.metastable.recovered_after_trigger_s),
        text: w.metastable(r.metastable, f) }));
    }
  }
}

/// Per mode, the lab's counters (/diagnostics/summary).
export function renderCountersView(summary, w, f) {
  for (const mode of MODES) {
    const m = summary.modes[mode];
    $(`#mode-${mode} .counters`).replaceChildren(...Object.entries(w.counters).map(([k, label]) =>
      el('div', { 'data-counter': k }, el('b', { text: f.num(m[k]) }), label)));
  }
}

/// The latest requests (/incidents), newest first.
export function renderIncidentsView(incidents, w, f) {
  $('#incidents-body').replaceChildren(...incidents.map(i => el('tr', { 'data-request-id': i.request_id },
    el('td', { text: f.time(i.timestamp_utc) }), el('td', { text: i.mode }),
    el('td', { text: i.scenario }), el('td', {}, el('span', { class: `badge ${i.status}`, text: w.status[i.status] })),
    el('td', { text: f.num(i.attempts) }), el('td', { text: f.ms(i.elapsed_ms) }),
    el('td', { class: 'mono', text: i.request_id }))));
}

// A live figure's value as the index says to show it (GaugeFamily's `shows`).
function shownValue(g, w, f) {
  if (g.value == null) return w.none;
  if (g.shows === 'percent') return `${f.fixed(dropPercent(g.value), 1)}\u00a0%`;
  if (g.shows === 'milliseconds') return f.ms(g.value * 1000);
  if (g.shows === 'per_second') return f.perSecond(g.value, 1);
  return g.outOf == null ? f.num(g.value) : `${f.num(g.value)} / ${f.num(g.outOf)}`;
}

/// The overload strategies panel: a card per policy (overload.js's rows), what it admitted,
/// refused by reason or hedged, then its strategies' live figures (data-key: the gauge
/// family). Each figure carries its number in data-value (a gauge's: as the lab reports it,
/// in its family's unit); a card its requests in data-requests.
export function renderOverloadView(rows, w, f, lang) {
  const box = $('#overload-policies');
  if (!box) return;
  const k = w.overloadKeys;
  const fig = (key, value, shown, caption) => {
    const node = figure(key, shown, caption);
    node.dataset.value = value == null ? '' : String(value);
    return node;
  };
  const count = (key, n) => fig(key, n, f.num(n), k[key]);
  box.replaceChildren(...rows.map(r => {
    const title = el('h3', {}, el('span', { class: 'mono', text: r.name }),
      el('span', { class: 'strategy', text: ` · ${r.strategies.map(s => r.terms?.[s]?.[lang] ?? s).join(', ')}` }));
    const figures = [count('requests', r.requests), count('calls', r.calls)];
    if (r.refuses) figures.push(count('rejected', r.rejectedTotal));
    if (r.hedges) figures.push(fig('hedgeSent', r.hedges.sent, f.num(r.hedges.sent), k.hedgeSent),
      fig('hedgeWon', r.hedges.won, f.num(r.hedges.won), k.hedgeWon), fig('hedgeSkipped', r.hedges.skipped, f.num(r.hedges.skipped), k.hedgeSkipped));
    // Each strategy's live figures, keyed by their gauge family, captioned as the lab says.
    const live = r.live.map(g => fig(g.family, g.value, shownValue(g, w, f), ((g.value == null && g.beforeFirst) || g.label)[lang]));
    for (const node of live) node.classList.add('live-value');
    const reasons = Object.entries(r.rejected).map(([reason, n]) => `${w.rejectedReason[reason] || w.reason[reason] || reason}: ${f.num(n)}`);
    return el('div', { class: 'overload-card', 'data-policy': r.name, 'data-requests': String(r.requests) }, title,
      el('div', { class: 'figures' }, ...figures, ...live),
      ...(reasons.length ? [el('p', { class: 'note reasons', text: reasons.join(' · ') })] : []));
  }));
  const none = $('#overload-none');
  if (none) { none.hidden = rows.some(r => r.requests > 0); none.textContent = w.overloadNone; }
}
