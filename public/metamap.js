// The metastability map, live: does a policy recover once a trigger ends (the carrier loses
// part of its capacity for a few seconds) under an open load, and after how many seconds?
// One cell per trigger depth × offered load at the chosen trigger length, each a run in
// simulated time (GET /experiments/map, lab/simulation/map_point.hpp), the same runs
// docs/metastability-map.sim.md draws. Moving the length, the policy or one of its settings
// redraws the map; moving the depth or the load picks a cell and shows its seconds. Cells are
// asked two at a time (the lab's share of its simulation line per student), the chosen cell
// first; a busy line (503/429) is asked again after its Retry-After; a change of settings
// drops what the old map still waited for. Huang et al., "Metastable Failures in the Wild",
// OSDI '22, Fig. 5 and Theorem 2. The pure parts (mapQuery, cellOrder, cellState, retryAfterMs)
// are importable by node tests.

/// The map's axes: the share of the capacity the trigger takes, and the offered load as a
/// share of the carrier's capacity (50 calls a second).
export const DEPTHS = [0.2, 0.4, 0.6, 0.8, 1.0];
export const LOADS = [0.15, 0.3, 0.45, 0.6, 0.75];
export const LENGTH_MIN_S = 1;
export const LENGTH_MAX_S = 10;
/// What the map shows first: Huang et al.'s critical point at the lab's numbers (legacy,
/// −60 % for 4 s at 45 % of capacity never recovers).
export const DEFAULTS = { policy: 'legacy', lengthS: 4, depth: 0.6, load: 0.45 };
/// Cells asked at once: the simulation line's share of one asker (app/simulation_runner.hpp).
export const IN_FLIGHT = 2;

/// The route's path for one cell: the policy, the trigger, the load and the settings given
/// (an empty setting keeps the policy's own, so it is left out).
export function mapQuery({ policy, lengthS, overrides = {} }, depth, load) {
  const q = new URLSearchParams({ policy, depth: String(depth), length_s: String(lengthS), load: String(load) });
  for (const [k, v] of Object.entries(overrides)) if (v !== '' && v != null) q.set(k, String(v));
  return `/experiments/map?${q}`;
}

/// Every cell as [depth, load], the chosen one first, then by distance from it: the cell a
/// student looks at is drawn first, its neighbours next.
export function cellOrder(depth, load) {
  const di = DEPTHS.indexOf(depth), li = LOADS.indexOf(load);
  const cells = DEPTHS.flatMap((d, i) => LOADS.map((l, j) => ({ d, l, far: Math.abs(i - di) + Math.abs(j - li) })));
  return cells.sort((a, b) => a.far - b.far).map(c => [c.d, c.l]);
}

/// A cell's state for its colour: 'pending' (not answered yet), 'quick' (recovered within
/// 2 s of the trigger's end), 'slow' (later), 'never' (not within the window).
export function cellState(point) {
  if (!point) return 'pending';
  if (point.recovered_after_s == null) return 'never';
  return point.recovered_after_s <= 2 ? 'quick' : 'slow';
}

/// How long to wait before asking again after a refusal: Retry-After (seconds) or the body's
/// retry_after_s, 1 s without either.
export function retryAfterMs(headerValue, body) {
  const s = Number(headerValue ?? body?.retry_after_s);
  return (Number.isFinite(s) && s > 0 ? s : 1) * 1000;
}

const key = (d, l) => `${d}|${l}`;

/// The map a set of settings draws, as a query without the cell ("policy=legacy&length_s=4"):
/// the box's data-map, which tests wait for.
export function mapKey({ policy, lengthS, overrides = {} }) {
  const q = new URLSearchParams({ policy, length_s: String(lengthS) });
  for (const [k, v] of Object.entries(overrides)) if (v !== '' && v != null) q.set(k, String(v));
  return q.toString();
}

/// The map's card: `box` holds the form and the grid; `api(path, options)` is net.js's;
/// `w()` and `f()` the words and the formatter of the current language; `index` is GET /.
export class MetamapView {
  constructor(box, { api, w, f, index, headers = () => ({}) }) {
    Object.assign(this, { box, api, w, f, index, headers });
    this.settings = { ...DEFAULTS, overrides: {} };
    this.points = new Map();  // key(depth, load) → the route's answer
    this.generation = 0;
    this.problem = null;      // a refusal that is no busy line: shown, the map stops
    this.busy = false;        // a cell was refused for a full line and waits to ask again
    this.chart = null;
    this.form = box.querySelector('form');
    for (const name of Object.keys(index.policies || {}))
      if (name !== 'breaker') this.form.policy.append(Object.assign(document.createElement('option'), { value: name, text: name }));
    this.form.policy.value = DEFAULTS.policy;
    Object.assign(this.form.length_s, { min: LENGTH_MIN_S, max: LENGTH_MAX_S, value: DEFAULTS.lengthS });
    Object.assign(this.form.depth, { min: 0, max: DEPTHS.length - 1, value: DEPTHS.indexOf(DEFAULTS.depth) });
    Object.assign(this.form.load, { min: 0, max: LOADS.length - 1, value: LOADS.indexOf(DEFAULTS.load) });
    let timer = null;
    // A slider sends a change per step: the map is asked again once it rests a moment.
    this.form.addEventListener('input', ev => {
      clearTimeout(timer);
      timer = setTimeout(() => this.read(), 250);
    });
    this.form.addEventListener('submit', ev => ev.preventDefault());
    box.querySelector('.metamap-grid').addEventListener('click', ev => {
      const cell = ev.target.closest('td[data-depth]');
      if (!cell) return;
      this.form.depth.value = DEPTHS.indexOf(Number(cell.dataset.depth));
      this.form.load.value = LOADS.indexOf(Number(cell.dataset.load));
      this.read();
    });
    this.draw();
  }

  // The form as settings; a change of policy, length or setting starts a new map.
  read() {
    const fd = new FormData(this.form);
    const overrides = {};
    for (const [k, v] of fd.entries()) if (!['policy', 'length_s', 'depth', 'load'].includes(k) && v !== '') overrides[k] = v;
    const next = { policy: fd.get('policy'), lengthS: Number(fd.get('length_s')),
      depth: DEPTHS[Number(fd.get('depth'))], load: LOADS[Number(fd.get('load'))], overrides };
    const newMap = next.policy !== this.settings.policy || next.lengthS !== this.settings.lengthS
      || JSON.stringify(overrides) !== JSON.stringify(this.settings.overrides);
    this.settings = next;
    if (newMap || this.problem) this.draw();
    else this.render();
  }

  /// Asks every cell of the current settings, the chosen one first.
  draw() {
    const generation = ++this.generation;
    this.box.dataset.generation = String(generation);
    this.box.dataset.map = mapKey(this.settings);
    this.points = new Map();
    this.problem = null;
    const todo = cellOrder(this.settings.depth, this.settings.load);
    const settings = this.settings;
    const worker = async () => {
      while (todo.length && generation === this.generation && !this.problem) {
        const [d, l] = todo.shift();
        const point = await this.ask(settings, d, l, generation);
        if (generation !== this.generation) return;
        if (point) this.points.set(key(d, l), point);
        this.render();
      }
    };
    this.render();
    for (let i = 0; i < IN_FLIGHT; i++) worker();
  }

  // One cell; a busy line is asked again after its Retry-After; null when the map changed.
  async ask(settings, d, l, generation) {
    for (;;) {
      let answer;
      try {
        answer = await this.api(mapQuery(settings, d, l), { timeoutMs: 60000, headers: this.headers() });
      } catch {
        answer = null;
      }
      if (generation !== this.generation) return null;
      if (answer && answer.status === 200) return answer.body;
      if (answer && (answer.status === 503 || answer.status === 429)) {
        this.busy = true;
        this.render();
        await new Promise(r => setTimeout(r, retryAfterMs(answer.headers?.get?.('Retry-After'), answer.body)));
        continue;
      }
      this.problem = answer ? (answer.body?.message || `HTTP ${answer.status}`) : this.w().mapUnreachable;
      return null;
    }
  }

  render() {
    const w = this.w(), f = this.f();
    this.busy = this.busy && this.points.size < DEPTHS.length * LOADS.length;
    this.form.querySelector('.metamap-length-value').textContent = `${f.num(this.settings.lengthS)} s`;
    this.form.querySelector('.metamap-depth-value').textContent = `−${f.num(this.settings.depth * 100)} %`;
    this.form.querySelector('.metamap-load-value').textContent = w.mapLoadValue(this.settings.load, f);
    const first = [...this.points.values()].find(p => p.theorem2_load !== undefined);
    const bound = first?.theorem2_load ?? null;
    const table = this.box.querySelector('.metamap-grid');
    const head = document.createElement('tr');
    const corner = document.createElement('th');
    corner.textContent = w.mapCorner;
    head.append(corner);
    for (const l of LOADS) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = `${f.num(l * 100)} %`;
      if (bound != null && l < bound) th.className = 'below-bound';
      head.append(th);
    }
    const rows = DEPTHS.map(d => {
      const tr = document.createElement('tr');
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = `−${f.num(d * 100)} %`;
      tr.append(th);
      for (const l of LOADS) {
        const p = this.points.get(key(d, l));
        const td = document.createElement('td');
        Object.assign(td.dataset, { depth: String(d), load: String(l), state: cellState(p) });
        td.textContent = w.mapCell(p, f);
        if (d === this.settings.depth && l === this.settings.load) td.classList.add('chosen');
        td.title = w.mapSentence({ ...this.settings, depth: d, load: l }, p, f);
        tr.append(td);
      }
      return tr;
    });
    table.replaceChildren(head, ...rows);
    const chosen = this.points.get(key(this.settings.depth, this.settings.load));
    const done = this.points.size;
    const status = this.box.querySelector('.metamap-status');
    status.textContent = this.problem ? w.mapProblem(this.problem)
      : done < DEPTHS.length * LOADS.length ? w.mapProgress(done, DEPTHS.length * LOADS.length, this.busy) : '';
    status.dataset.state = this.problem ? 'problem' : done < DEPTHS.length * LOADS.length ? 'drawing' : 'done';
    const sentence = this.box.querySelector('.metamap-sentence');
    sentence.textContent = w.mapSentence(this.settings, chosen, f);
    this.box.querySelector('.metamap-bound').textContent = bound == null ? '' : w.mapBound(bound, first.worst_calls_per_quote, f);
    this.box.dataset.cells = String(done);
    this.chartOf(chosen, w);
  }

  // The chosen cell's seconds: arrivals and live answers per second, the trigger shaded.
  chartOf(point, w) {
    if (typeof Chart === 'undefined') return;
    const canvas = this.box.querySelector('canvas');
    const series = point?.timeline || [];
    const data = [
      { label: w.mapArrivals, data: series.map(s => ({ x: s.second, y: s.arrivals })), borderColor: '#9ca3af', borderDash: [4, 3], pointRadius: 0, borderWidth: 2 },
      { label: w.mapUseful, data: series.map(s => ({ x: s.second, y: s.useful })), borderColor: '#047857', backgroundColor: '#047857', pointRadius: 2, borderWidth: 3 },
    ];
    const band = point ? { from: point.trigger.after_s, to: point.trigger.end_s } : null;
    canvas.setAttribute('aria-label', w.mapChart);
    if (!this.chart) {
      this.chart = new Chart(canvas, {
        type: 'line', data: { datasets: data },
        plugins: [{
          id: 'triggerBand',
          beforeDatasetsDraw(chart, _a, opts) {
            if (!opts.band) return;
            const { ctx, chartArea: a, scales: { x } } = chart;
            ctx.save();
            ctx.fillStyle = 'rgba(220, 38, 38, 0.18)';
            const left = Math.max(a.left, x.getPixelForValue(opts.band.from)), right = Math.min(a.right, x.getPixelForValue(opts.band.to));
            if (right > left) ctx.fillRect(left, a.top, right - left, a.bottom - a.top);
            ctx.restore();
          },
        }],
        options: { animation: false, maintainAspectRatio: false, parsing: false,
          plugins: { legend: { display: true, labels: { boxWidth: 14 } }, triggerBand: { band } },
          scales: { x: { type: 'linear', min: 0, title: { display: true, text: w.mapSecond } },
            y: { type: 'linear', min: 0, title: { display: true, text: w.mapPerSecond } } } },
      });
    } else {
      this.chart.data.datasets = data;
      this.chart.options.plugins.triggerBand.band = band;
      this.chart.options.scales.x.title.text = w.mapSecond;
      this.chart.options.scales.y.title.text = w.mapPerSecond;
    }
    this.chart.update('none');
  }
}
