// The class view (GET /class for a browser): every student lab, in leaderboard order,
// refreshed every 2 s from the same route's JSON. Each name links to that student's page.
import { BASE, withLab } from './net.js';

const TEXT = {
  es: {
    title: 'La clase: un laboratorio por estudiante',
    head: ['#', 'Laboratorio', 'Breaker', 'Modo del proveedor', 'Solicitudes', 'Llamadas al proveedor por solicitud', 'p99', 'Última actividad'],
    empty: 'Todavía no hay laboratorios de estudiantes: abre /?lab=TU-NOMBRE o agrega ?lab=TU-NOMBRE a tus curl.',
    updated: 'actualizado', unreachable: 'laboratorio inalcanzable',
    states: { closed: 'cerrado', open: 'abierto', half_open: 'semiabierto' },
  },
  en: {
    title: 'The class: one lab per student',
    head: ['#', 'Lab', 'Breaker', 'Carrier mode', 'Requests', 'Carrier calls per request', 'p99', 'Last activity'],
    empty: 'No student labs yet: open /?lab=YOUR-NAME or add ?lab=YOUR-NAME to your curl lines.',
    updated: 'updated', unreachable: 'lab unreachable',
    states: { closed: 'closed', open: 'open', half_open: 'half-open' },
  },
};
let lang = (localStorage.getItem('quote-lab-lang') || navigator.language || 'en').toLowerCase().startsWith('es') ? 'es' : 'en';
let last = null;
const $ = sel => document.querySelector(sel);
const fmt = (n, digits) => n == null ? '—'
  : new Intl.NumberFormat(lang === 'es' ? 'es-AR' : 'en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }).format(n);
const ms = v => v == null ? '—' : v >= 1000 ? `${fmt(v / 1000, 2)} s` : `${fmt(v, 0)} ms`;

function cell(text, cls) {
  const td = document.createElement('td');
  if (cls) td.className = cls;
  td.append(text);
  return td;
}

function render() {
  const t = TEXT[lang];
  document.documentElement.lang = lang;
  $('#class-title').textContent = t.title;
  $('#class-head').replaceChildren(...t.head.map(h => { const th = document.createElement('th'); th.textContent = h; return th; }));
  if (!last) return;
  $('#class-order').textContent = last.order[lang];
  $('#class-empty').textContent = t.empty;
  $('#class-empty').hidden = last.labs.length > 0;
  $('#class-rows').replaceChildren(...last.labs.map(lab => {
    const tr = document.createElement('tr');
    const link = document.createElement('a');
    link.href = withLab(`${BASE}/`, lab.name);
    link.textContent = lab.name;
    const state = document.createElement('span');
    state.className = `state ${lab.circuit_status}`;
    state.textContent = t.states[lab.circuit_status] || lab.circuit_status;
    tr.append(cell(String(lab.rank)), cell(link), cell(state), cell(lab.carrier_mode),
      cell(fmt(lab.requests, 0)), cell(fmt(lab.carrier_calls_per_request, 2)), cell(ms(lab.p99_ms)),
      cell(new Date(lab.last_activity_utc).toLocaleTimeString(lang === 'es' ? 'es-AR' : 'en-US')));
    return tr;
  }));
}

async function refresh() {
  try {
    const res = await fetch(`${BASE}/class`, { headers: { Accept: 'application/json' } });
    last = await res.json();
    $('#class-status').textContent = `${TEXT[lang].updated} ${new Date().toLocaleTimeString(lang === 'es' ? 'es-AR' : 'en-US')}`;
  } catch {
    $('#class-status').textContent = TEXT[lang].unreachable;
  }
  render();
}

for (const b of document.querySelectorAll('[data-lang]'))
  b.addEventListener('click', () => { lang = b.dataset.lang; localStorage.setItem('quote-lab-lang', lang); render(); });
render();
refresh();
setInterval(refresh, 2000);
