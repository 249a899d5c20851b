// The live goodput sweep (POST /experiments/storm?sweep=10,20,…): one open-loop storm per
// arrival rate, and the curve of goodput against offered load drawn as each point arrives —
// the curve bench/goodput.py draws for docs/goodput.md, here on the class's own lab. One
// curve per policy and scenario swept (the last sweep of each, until the lab is reset),
// beside the line where every arrival gets a useful answer. Where goodput stops following
// the offered load is the knee; past it a policy holds or collapses (Schroeder, Wierman and
// Harchol-Balter, NSDI '06). The pure parts (sweepKey, withSweep, curveOf, kneeOf, stepSeconds) are
// importable by node tests.

/// What the form offers first: about 0.25× to 2× the carrier capacity of the course's
/// shedding scenarios (4 calls at a time of about 100 ms: 40 a second).
export const DEFAULT_SWEEP = '10 20 30 40 60 80';
/// The lab's bounds on a sweep (lab/experiments/goodput_sweep.hpp): 2 to 12 rates, whose
/// steps send for a minute at most.
export const SWEEP_MIN_RATES = 2;
export const SWEEP_MAX_RATES = 12;
export const SWEEP_MAX_SENDING_S = 60;
/// The same reading of a curve as bench/goodput_curve.py: goodput at least 90 % of the
/// offered load still follows it; at the highest load below half the curve's best, it has
/// collapsed.
export const TRACKS = 0.9;
export const COLLAPSED = 0.5;

/// "legacy · overloaded_fifo", and the overrides when the sweep had any: one curve each.
export function sweepKey(sweep) {
  const params = Object.entries(sweep.params || {}).map(([k, v]) => `${k}=${v}`);
  return [sweep.mode, sweep.scenario, ...params].join(' · ');
}

/// A sweep's measured points by offered load: [{x: offered_rps, y: goodput_rps, live, point}].
export function curveOf(points = []) {
  return points.map(p => ({ x: p.offered_rps, y: p.goodput_rps, live: p.goodput_live_rps, point: p }))
    .sort((a, b) => a.x - b.x);
}

/// The curve's knee as bench/goodput_curve.py reads it: `kneeRps`, the highest offered load up
/// to which every point's goodput was at least TRACKS of it (null: not even the first;
/// equal to `topRps`: no knee in the loads run), the best goodput, the goodput at the highest
/// load and whether that is below COLLAPSED of the best. null without points.
export function kneeOf(points = []) {
  const curve = curveOf(points);
  if (!curve.length) return null;
  let kneeRps = null;
  for (const c of curve) {
    if (c.y < TRACKS * c.x) break;
    kneeRps = c.x;
  }
  const peak = Math.max(...curve.map(c => c.y));
  const last = curve[curve.length - 1];
  return { kneeRps, topRps: last.x, peak, last: last.y, collapses: peak > 0 && last.y < COLLAPSED * peak };
}

/// `list` (a lab's sweeps, oldest first) with `sweep` in place of the one of its policy,
/// scenario and overrides, or after the others: what a storm_sweep event changes in it.
export function withSweep(list = [], sweep) {
  const key = sweepKey(sweep);
  const i = list.findIndex(s => sweepKey(s) === key);
  return i < 0 ? [...list, sweep] : list.map((s, j) => (j === i ? sweep : s));
}

/// The form's field: values separated by spaces (or ';'), each a decimal with a point or a
/// comma as its reader writes it ("10,5" is ten and a half on a Spanish page). {rates} for
/// the lab's `sweep` (joined with commas), or {error: 'value', got} for a token that is no
/// number in 0.1–500, {error: 'count', got} for fewer than 2 or more than 12 values.
export function parseSweepField(text = '') {
  const tokens = text.split(/[\s;]+/).filter(Boolean);
  if (tokens.length < SWEEP_MIN_RATES || tokens.length > SWEEP_MAX_RATES) return { error: 'count', got: tokens.length };
  const rates = [];
  for (const token of tokens) {
    const v = /^\d+([.,]\d+)?$/.test(token) ? Number(token.replace(',', '.')) : NaN;
    if (!(v >= 0.1 && v <= 500)) return { error: 'value', got: token };
    rates.push(v);
  }
  return { rates };
}

/// Each step's seconds for `count` rates when the teacher asked `wanted`: as many as fit in
/// the sweep's minute of sending (the lab refuses more).
export function stepSeconds(count, wanted) {
  return Math.max(1, Math.min(wanted, Math.floor(SWEEP_MAX_SENDING_S / Math.max(count, 1))));
}

const PALETTE = ['#b91c1c', '#1d4ed8', '#047857', '#7c3aed', '#b45309', '#0e7490'];

/// The sweep's chart and table in `box` (the page's #sweep): `w()` the words, `f()` the
/// formatter, both of the current language.
export class SweepView {
  constructor(box, w, f) {
    this.box = box;
    this.w = w;
    this.f = f;
    this.sweeps = new Map();  // sweepKey → the last sweep of that policy and scenario, oldest first
    this.running = null;      // the key being swept now
    this.chart = null;
  }

  /// The lab's sweeps (GET /experiments/storm's `sweeps`, oldest first) and the one being
  /// swept now (`running`, a sweep or null).
  show(list, running) {
    this.sweeps = new Map((list || []).filter(s => s && s.mode).map(s => [sweepKey(s), s]));
    this.running = running ? sweepKey(running) : null;
    this.render();
  }

  render() {
    const w = this.w(), f = this.f();
    this.box.hidden = this.sweeps.size === 0;
    if (!this.sweeps.size) return;
    this.box.querySelector('canvas').setAttribute('aria-label', w.sweepTitle);
    const entries = [...this.sweeps.entries()];
    this.draw(entries, w, f);
    const list = this.box.querySelector('.sweep-curves');
    list.replaceChildren(...entries.reverse().map(([key, s]) => this.describe(key, s, w, f)));
  }

  // One curve's summary (its knee, whether it collapses) and its points as a table.
  describe(key, sweep, w, f) {
    const item = document.createElement('div');
    item.className = 'sweep-curve';
    item.dataset.key = key;
    item.dataset.points = String(sweep.points.length);
    const head = document.createElement('h4');
    const progress = `(${sweep.points.length}/${sweep.rates_per_s.length})`;
    head.textContent = key + (this.running === key ? ` · ${w.running} ${progress}` : sweep.state === 'cancelled' ? ` · ${w.sweepCancelled} ${progress}` : '');
    const knee = document.createElement('p');
    knee.className = 'note sweep-knee';
    knee.textContent = sweep.points.length ? w.sweepKnee(kneeOf(sweep.points), f) : w.sweepWaiting;
    const table = document.createElement('table');
    table.className = 'sweep-table';
    const row = (cells, tag) => {
      const tr = document.createElement('tr');
      for (const c of cells) { const td = document.createElement(tag); td.textContent = c; tr.append(td); }
      return tr;
    };
    const k = w.sweepKeys;
    table.append(row([k.rate, k.offered, k.goodput, k.live, k.amplification, k.p99], 'th'));
    for (const p of sweep.points)
      table.append(row([f.num(p.rate_per_s, 1), f.num(p.offered_rps, 1), f.num(p.goodput_rps, 1), f.num(p.goodput_live_rps, 1),
        p.amplification == null ? w.none : f.ratio(p.amplification), p.latency_p99_ms == null ? w.none : f.ms(p.latency_p99_ms)], 'td'));
    item.append(head, knee, table);
    return item;
  }

  // Goodput (solid) and live quotes (dashed) per curve, and the line where every arrival is
  // useful; Chart.js from Debian's libjs-chart.js, loaded by the page.
  draw(entries, w, f) {
    if (typeof Chart === 'undefined') return;
    const datasets = [];
    let top = 1;
    entries.forEach(([key, s], i) => {
      const color = PALETTE[i % PALETTE.length];
      const curve = curveOf(s.points);
      for (const c of curve) top = Math.max(top, c.x, c.y);
      datasets.push({ label: `${key}: ${w.sweepGoodput}`, data: curve.map(c => ({ x: c.x, y: c.y })), borderColor: color,
        backgroundColor: color, pointRadius: 4, borderWidth: 3 });
      datasets.push({ label: `${key}: ${w.sweepLive}`, data: curve.map(c => ({ x: c.x, y: c.live })), borderColor: color,
        backgroundColor: color, pointRadius: 2, borderWidth: 2, borderDash: [6, 4] });
    });
    datasets.push({ label: w.sweepIdeal, data: [{ x: 0, y: 0 }, { x: top, y: top }], borderColor: '#9ca3af',
      borderWidth: 1, pointRadius: 0, borderDash: [2, 3] });
    const axis = text => ({ type: 'linear', min: 0, title: { display: true, text } });
    if (!this.chart) {
      this.chart = new Chart(this.box.querySelector('canvas'), {
        type: 'line', data: { datasets },
        options: { animation: false, maintainAspectRatio: false, parsing: false,
          plugins: { legend: { display: true, labels: { boxWidth: 14 } } },
          scales: { x: axis(w.sweepKeys.offered), y: axis(w.sweepKeys.goodput) } },
      });
    } else {
      this.chart.data.datasets = datasets;
      this.chart.options.scales.x.title.text = w.sweepKeys.offered;
      this.chart.options.scales.y.title.text = w.sweepKeys.goodput;
    }
    this.chart.options.locale = f.locale;
    this.chart.update('none');
  }
}
