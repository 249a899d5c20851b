// The story's charts (Chart.js, Debian's libjs-chart.js): per mode, traffic per second
// (requests, carrier calls, % degraded or failed) and latency per second (p50/p95/p99),
// all on one time axis. Latency shares its y axis across modes, so that heights compare
// (1.44 s against 0.6 ms is the lesson); rates keep their own, or a storm of 9,000 short-
// circuits a second would flatten legacy's 7 requests a second to nothing. The
// resilient charts shade the breaker's open (red) and half-open (amber) spans behind the
// lines; legacy has no breaker, so its charts have no shading.
import { MODES } from './story.js';

const COLORS = { rate: '#111827', calls: '#1d4ed8', errors: '#b91c1c', p50: '#0e7490', p95: '#7c3aed', p99: '#be123c' };
const BAND = { open: 'rgba(220, 38, 38, 0.22)', half_open: 'rgba(217, 119, 6, 0.28)' };

// Draws the breaker's spans behind the datasets (options.plugins.breakerBands.bands).
const breakerBands = {
  id: 'breakerBands',
  beforeDatasetsDraw(chart, _args, opts) {
    const bands = opts && opts.bands;
    if (!bands || !bands.length) return;
    const { ctx, chartArea: area, scales: { x } } = chart;
    ctx.save();
    for (const b of bands) {
      const left = Math.max(area.left, x.getPixelForValue(b.from));
      const right = Math.min(area.right, x.getPixelForValue(b.to ?? x.max));
      if (right <= left) continue;
      ctx.fillStyle = BAND[b.state] || BAND.open;
      ctx.fillRect(left, area.top, right - left, area.bottom - area.top);
    }
    ctx.restore();
  },
};

/// The next "round" number at or above `v` (1, 2 or 5 × 10^k): the same axis for both modes.
export function niceCeil(v) {
  const k = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 5, 10].map(f => f * k).find(x => x >= v);
}

/// A time tick step of whole seconds (1, 2, 5, 10, 15, 30 s, 1, 2, 5 min) giving at most
/// about six ticks over `spanMs`: never two ticks within one second.
export function timeStepMs(spanMs) {
  return [1, 2, 5, 10, 15, 30, 60, 120, 300].map(s => s * 1000).find(step => spanMs / step <= 6) ?? 600000;
}

const line = (key, label, extra = {}) => ({ key, label, data: [], borderColor: COLORS[key], backgroundColor: COLORS[key],
  pointRadius: 2, borderWidth: 2, spanGaps: false, clip: 8, ...extra });

export class StoryCharts {
  /// `boxes[mode]` = {traffic: canvas, latency: canvas}; `fmt()` the current formatter.
  constructor(boxes, fmt, words) {
    this.fmt = fmt;
    this.charts = {};
    this.scale = 1;
    this.axisPx = { y: 60, y1: 48 };
    for (const mode of MODES) {
      const common = (yTitle, extraScales = {}) => ({
        animation: false, maintainAspectRatio: false, parsing: false, normalized: true,
        interaction: { mode: 'nearest', intersect: false },
        plugins: { legend: { display: true, labels: { boxWidth: 14 } }, breakerBands: { bands: [] }, tooltip: { enabled: true } },
        scales: {
          x: { type: 'linear', ticks: { maxTicksLimit: 7, callback: v => this.fmt().time(v) } },
          // Fixed axis widths: the plot areas of all four charts start and end at the same
          // x, so that one second sits at the same place in every chart.
          y: { beginAtZero: true, title: { display: true, text: yTitle }, afterFit: s => { s.width = this.axisPx.y; } },
          ...extraScales,
        },
      });
      const traffic = new Chart(boxes[mode].traffic, {
        type: 'line', plugins: mode === 'resilient' ? [breakerBands] : [],
        data: { datasets: [line('rate', words().chartRate), line('calls', words().chartCalls),
          line('errors', words().chartErrors, { yAxisID: 'y1', borderDash: [6, 4] })] },
        options: common('/s', { y1: { position: 'right', min: 0, max: 100, grid: { drawOnChartArea: false }, ticks: { callback: v => `${v} %` },
          afterFit: s => { s.width = this.axisPx.y1; } } }),
      });
      const latency = new Chart(boxes[mode].latency, {
        type: 'line', plugins: mode === 'resilient' ? [breakerBands] : [],
        data: { datasets: [line('p50', words().chartP50), line('p95', words().chartP95), line('p99', words().chartP99)] },
        options: common('', {}),
      });
      latency.options.layout = { padding: { right: this.axisPx.y1 } };  // where traffic has its % axis
      latency.options.scales.y.ticks = { callback: v => this.fmt().ms(v) };
      this.charts[mode] = { traffic, latency };
    }
    this.words = words;
  }

  /// Type size for the current screen (projector mode scales with the width).
  setScale(px) {
    this.scale = px;
    this.axisPx.y = Math.round(px * 5);
    this.axisPx.y1 = Math.round(px * 4);
    for (const c of this.all()) {
      for (const axis of Object.values(c.options.scales)) { axis.ticks = { ...axis.ticks, font: { size: px } }; if (axis.title) axis.title.font = { size: px }; }
      c.options.plugins.legend.labels.font = { size: px };
      for (const d of c.data.datasets) d.borderWidth = Math.max(2, Math.round(px / 6));
    }
    for (const m of MODES) this.charts[m].latency.options.layout.padding.right = this.axisPx.y1;
  }

  all() { return MODES.flatMap(m => [this.charts[m].traffic, this.charts[m].latency]); }

  /// Redraws from `story` at `nowMs`.
  draw(story, nowMs) {
    const span = story.span(nowMs);
    const stepMs = timeStepMs(span.max - span.min);
    let maxLat = 100;
    for (const m of MODES) for (const p of story.points[m]) maxLat = Math.max(maxLat, p.p99 ?? 0);
    for (const m of MODES) {
      const { traffic, latency } = this.charts[m];
      const pts = story.points[m];
      for (const c of [traffic, latency]) {
        for (const d of c.data.datasets) {
          d.data = pts.map(p => ({ x: p.x, y: p[d.key] }));
          d.label = this.words()[{ rate: 'chartRate', calls: 'chartCalls', errors: 'chartErrors', p50: 'chartP50', p95: 'chartP95', p99: 'chartP99' }[d.key]];
        }
        c.options.locale = this.fmt().locale;  // Chart.js's own numbers: 1,5 or 1.5
        c.options.scales.x.min = span.min;
        c.options.scales.x.max = span.max;
        c.options.scales.x.ticks.stepSize = stepMs;
        if (m === 'resilient') c.options.plugins.breakerBands.bands = story.bands;
      }
      traffic.options.scales.y.suggestedMax = 1;
      latency.options.scales.y.max = niceCeil(maxLat * 1.1);
      traffic.update('none');
      latency.update('none');
    }
  }
}
