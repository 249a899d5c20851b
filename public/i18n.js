// The dashboard's words and numbers, in neutral Spanish and English. Numbers, times and
// plurals go through Intl in the reader's own locale (es-AR, es-ES, en-GB, ...), so that
// "1,44 s" reads the same way everywhere on the page. Pure: importable by node tests.

// Words that change with a count: forms for Intl.PluralRules' "one" and "other".
const W = {
  es: {
    attempt: { one: 'intento', other: 'intentos' }, request: { one: 'solicitud', other: 'solicitudes' },
    client: { one: 'cliente', other: 'clientes' }, call: { one: 'llamada', other: 'llamadas' },
    layer: { one: 'capa', other: 'capas' },
  },
  en: {
    attempt: { one: 'attempt', other: 'attempts' }, request: { one: 'request', other: 'requests' },
    client: { one: 'client', other: 'clients' }, call: { one: 'call', other: 'calls' },
    layer: { one: 'layer', other: 'layers' },
  },
};

export const TEXT = {
  es: {
    title: 'Laboratorio de cotizaciones: legacy vs. resiliente',
    carrierMode: 'Modo del proveedor (para las solicitudes sin escenario)',
    reset: 'Reiniciar el lab', projector: 'Modo proyector', labName: name => `Laboratorio: ${name}`,
    live: 'en vivo', polling: 'sin conexión en vivo: consultando cada 2 s', unreachable: 'lab no disponible: reconectando…',
    tokenPrompt: 'Este lab tiene token del docente. Pégalo para reiniciar, cambiar el modo del proveedor y lanzar tormentas (o cancela para solo mirar):',
    adminNote: 'Sin el token del docente: reiniciar, cambiar el modo del proveedor y lanzar tormentas quedan ocultos.',
    tokenRejected: 'El lab no aceptó ese token del docente: reiniciar, cambiar el modo del proveedor y lanzar tormentas siguen ocultos. Recarga la página para ingresarlo de nuevo.',
    breakerTitle: 'Circuit breaker del proveedor (solo resiliente)', cooldown: 'Enfriamiento restante', failures: 'Fallos consecutivos',
    shortCircuits: 'Cortocircuitos', openEvents: 'Aperturas', fallbackQuote: 'Cotización de respaldo',
    incidents: 'Últimas solicitudes (de cualquier cliente)', colTime: 'Hora', colMode: 'Modo', colScenario: 'Escenario',
    colStatus: 'Estado', colAttempts: 'Intentos', colElapsed: 'Tiempo', scenario: 'Escenario', run: 'Ejecutar',
    legacy: 'Legacy: reintentos agresivos', resilient: 'Resiliente: backoff, circuit breaker y respaldo',
    policyLegacy: (p, f) => `timeout ${f.ms(p.timeout_ms)} × ${f.count(p.max_attempts, 'attempt')}, sin espera, sin breaker, sin respaldo`,
    policyResilient: (p, b, f) => `timeout ${f.ms(p.timeout_ms)} × ${f.count(p.max_attempts, 'attempt')}, espera ${f.ms(p.backoff_base_ms)} × 2^(n−1) + ${f.num(p.jitter_min_ms)}–${f.ms(p.jitter_max_ms)}, breaker: ${f.num(b.failure_threshold)} fallos / ${f.num(b.open_duration_s)} s, respaldo`,
    status: { completed: 'completada', degraded: 'degradada', failed: 'fallida' },
    quote: 'cotización', source: { live: 'en vivo', fallback: 'respaldo' },
    age: s => `de hace ${s} s`, none: '—', running: 'ejecutando…',
    serverTime: 'en el lab', clientTime: 'visto por el navegador',
    reason: {
      timeout: 'tiempo agotado', connect_error: 'error de conexión', http_5xx: 'error del proveedor (5xx)',
      http_429: 'proveedor saturado (429)', bad_response: 'respuesta inválida', circuit_open: 'circuito abierto',
      probe_in_flight: 'ya hay una sonda en curso', not_retryable: 'no se reintenta', shutting_down: 'el lab se está deteniendo',
      retry_budget: 'sin presupuesto de reintentos', deadline: 'se acabó el plazo total',
      seed_quote: 'cotización inicial', cached_quote: 'última cotización buena',
    },
    ev: {
      queue: () => 'en cola (esperando un worker)',
      attempt_success: n => `intento ${n}: respondió`, attempt_failed: (n, r) => `intento ${n}: falló (${r})`,
      backoff: () => 'espera (backoff)', circuit_opened: () => 'se abrió el circuito', short_circuit: () => 'cortocircuito: no se llamó al proveedor',
      half_open_probe: n => `intento ${n}: sonda (semiabierto)`, fallback_used: (n, r) => `respaldo usado (${r})`,
      retry_skipped: (n, r) => `reintento omitido (${r})`,
      retry_after: () => 'espera pedida por el proveedor (Retry-After)',
      total: () => 'total en el lab (cola incluida)', client: () => 'visto por el navegador',
    },
    counters: { requests: 'solicitudes', successes: 'completadas', degraded: 'degradadas', failures: 'fallidas',
      attempts: 'llamadas al proveedor', retries: 'reintentos', fallbacks: 'respaldos', short_circuits: 'cortocircuitos' },
    chartRate: 'solicitudes/s', chartCalls: 'llamadas al proveedor/s', chartErrors: '% degradadas o fallidas',
    chartP50: 'p50', chartP95: 'p95', chartP99: 'p99', chartLatency: 'latencia por segundo (cola incluida)',
    chartTraffic: 'tráfico por segundo', shading: 'Fondo: rojo = breaker abierto, ámbar = semiabierto.',
    chartMissing: 'Falta la librería de gráficos (paquete libjs-chart.js).',
    waterfallTitle: 'La última respuesta, paso a paso (mismo eje en ambos modos)',
    seconds: 's', carrierModeOption: m => `— modo del proveedor (${m}) —`,
    state: { closed: 'cerrado', open: 'abierto', half_open: 'semiabierto' },
    stormTitle: 'Experimento: tormenta de reintentos', clients: 'Clientes', durationS: 'Duración (s)', stormStart: 'Lanzar tormenta',
    stormHelp: 'Muchos clientes a la vez contra el lab: compara la amplificación (llamadas al proveedor por solicitud), la latencia de /health y el trabajo desperdiciado. El último resultado de cada política queda a la vista hasta reiniciar; legacy y resiliente, lado a lado.',
    stormPolicy: 'Política', stormOverrides: 'Ajustes (opcionales)', noBreaker: 'sin disyuntor',
    budgetRatio: 'Presupuesto de reintentos (0–1; vacío: el de la política)', stormLayers: 'Capas de reintento (1–3)',
    policyNamed: name => `Política ${name}`, budgetOf: ratio => `presupuesto de reintentos ${ratio}`,
    stormRunning: 'Ya hay una tormenta en curso.', stormNone: 'Sin tormenta todavía',
    stormOf: (r, f) => `${r.scenario} · ${f.count(r.clients, 'client')} · ${f.num(r.elapsed_s, 1)} s`,
    // The lab's metastable episode as the storm ended (GET /carrier's `metastable`).
    metastable: (m, f) => !m.trigger_over ? `La tormenta terminó dentro del disparador (${f.num(m.down_ms / 1000, 0)} s).`
      : m.recovered_after_trigger_s != null ? `El proveedor se recuperó ${f.num(m.recovered_after_trigger_s, 1)} s después del disparador.`
      : m.calls_after_trigger === 0 ? 'Ninguna llamada llegó al proveedor después del disparador: nada lo satura.'
      : `El proveedor no se recuperó: ${f.num(m.overloaded_calls)} de ${f.num(m.calls_after_trigger)} llamadas posteriores al disparador lo encontraron saturado.`,
    stormKeys: { requests: 'solicitudes', throughput: 'solicitudes/s', p50: 'latencia p50', p99: 'latencia p99',
      amplification: 'llamadas al proveedor por solicitud', health: '/health p99', wasted: 'llamadas desperdiciadas', errors: 'degradadas / fallidas' },
    unreachableMsg: 'El lab no responde (¿se reinició?). La página se reconecta sola.',
    timeoutMsg: s => `El lab no respondió en ${s} s. La página sigue intentando.`,
  },
  en: {
    title: 'Quote lab: legacy vs. resilient',
    carrierMode: 'Carrier mode (for requests without a scenario)',
    reset: 'Reset lab', projector: 'Projector mode', labName: name => `Lab: ${name}`,
    live: 'live', polling: 'live updates lost: polling every 2 s', unreachable: 'lab unreachable: reconnecting…',
    tokenPrompt: 'This lab has a teacher token. Paste it to reset, change the carrier mode and start storms (or cancel to just watch):',
    adminNote: 'Without the teacher token: reset, carrier mode and storms are hidden.',
    tokenRejected: 'The lab did not accept that teacher token: reset, carrier mode and storms stay hidden. Reload the page to enter it again.',
    breakerTitle: "The carrier's circuit breaker (resilient only)", cooldown: 'Cooldown left', failures: 'Consecutive failures',
    shortCircuits: 'Short-circuits', openEvents: 'Times opened', fallbackQuote: 'Fallback quote',
    incidents: 'Latest requests (from any client)', colTime: 'Time', colMode: 'Mode', colScenario: 'Scenario',
    colStatus: 'Status', colAttempts: 'Attempts', colElapsed: 'Elapsed', scenario: 'Scenario', run: 'Run',
    legacy: 'Legacy: aggressive retries', resilient: 'Resilient: backoff, circuit breaker and fallback',
    policyLegacy: (p, f) => `timeout ${f.ms(p.timeout_ms)} × ${f.count(p.max_attempts, 'attempt')}, no wait, no breaker, no fallback`,
    policyResilient: (p, b, f) => `timeout ${f.ms(p.timeout_ms)} × ${f.count(p.max_attempts, 'attempt')}, wait ${f.ms(p.backoff_base_ms)} × 2^(n−1) + ${f.num(p.jitter_min_ms)}–${f.ms(p.jitter_max_ms)}, breaker: ${f.num(b.failure_threshold)} failures / ${f.num(b.open_duration_s)} s, fallback`,
    status: { completed: 'completed', degraded: 'degraded', failed: 'failed' },
    quote: 'quote', source: { live: 'live', fallback: 'fallback' },
    age: s => `${s} s old`, none: '—', running: 'running…',
    serverTime: 'in the lab', clientTime: 'seen by the browser',
    reason: {
      timeout: 'timed out', connect_error: 'connection error', http_5xx: 'carrier error (5xx)',
      http_429: 'carrier overloaded (429)', bad_response: 'invalid answer', circuit_open: 'breaker open',
      probe_in_flight: 'a probe is already running', not_retryable: 'not retried', shutting_down: 'the lab is stopping',
      retry_budget: 'retry budget spent', deadline: 'total deadline reached',
      seed_quote: 'starter quote', cached_quote: 'last good quote',
    },
    ev: {
      queue: () => 'queued (waiting for a worker)',
      attempt_success: n => `attempt ${n}: answered`, attempt_failed: (n, r) => `attempt ${n}: failed (${r})`,
      backoff: () => 'wait (backoff)', circuit_opened: () => 'breaker opened', short_circuit: () => 'short-circuit: carrier not called',
      half_open_probe: n => `attempt ${n}: half-open probe`, fallback_used: (n, r) => `fallback served (${r})`,
      retry_skipped: (n, r) => `retry skipped (${r})`,
      retry_after: () => 'wait asked by the carrier (Retry-After)',
      total: () => 'total in the lab (queue included)', client: () => 'seen by the browser',
    },
    counters: { requests: 'requests', successes: 'completed', degraded: 'degraded', failures: 'failed',
      attempts: 'carrier calls', retries: 'retries', fallbacks: 'fallbacks', short_circuits: 'short-circuits' },
    chartRate: 'requests/s', chartCalls: 'carrier calls/s', chartErrors: '% degraded or failed',
    chartP50: 'p50', chartP95: 'p95', chartP99: 'p99', chartLatency: 'latency per second (queue included)',
    chartTraffic: 'traffic per second', shading: 'Background: red = breaker open, amber = half-open.',
    chartMissing: 'The chart library is missing (package libjs-chart.js).',
    waterfallTitle: 'The last answer, step by step (same axis in both modes)',
    seconds: 's', carrierModeOption: m => `— carrier mode (${m}) —`,
    state: { closed: 'closed', open: 'open', half_open: 'half-open' },
    stormTitle: 'Experiment: retry storm', clients: 'Clients', durationS: 'Duration (s)', stormStart: 'Start storm',
    stormHelp: 'Many clients at once against the lab: compare amplification (carrier calls per request), /health latency and wasted work. The last result of each policy stays in view until reset; legacy and resilient side by side.',
    stormPolicy: 'Policy', stormOverrides: 'Overrides (optional)', noBreaker: 'without breaker',
    budgetRatio: "Retry budget ratio (0–1; empty: the policy's)", stormLayers: 'Retry layers (1–3)',
    policyNamed: name => `Policy ${name}`, budgetOf: ratio => `retry budget ${ratio}`,
    stormRunning: 'A storm is already running.', stormNone: 'No storm yet',
    stormOf: (r, f) => `${r.scenario} · ${f.count(r.clients, 'client')} · ${f.num(r.elapsed_s, 1)} s`,
    metastable: (m, f) => !m.trigger_over ? `The storm ended inside the trigger (${f.num(m.down_ms / 1000, 0)} s).`
      : m.recovered_after_trigger_s != null ? `The carrier recovered ${f.num(m.recovered_after_trigger_s, 1)} s after the trigger ended.`
      : m.calls_after_trigger === 0 ? 'No call reached the carrier after the trigger: nothing overloads it.'
      : `The carrier did not recover: ${f.num(m.overloaded_calls)} of ${f.num(m.calls_after_trigger)} calls after the trigger found it overloaded.`,
    stormKeys: { requests: 'requests', throughput: 'requests/s', p50: 'latency p50', p99: 'latency p99',
      amplification: 'carrier calls per request', health: '/health p99', wasted: 'wasted carrier calls', errors: 'degraded / failed' },
    unreachableMsg: 'The lab does not answer (restarting?). The page reconnects by itself.',
    timeoutMsg: s => `The lab did not answer within ${s} s. The page keeps trying.`,
  },
};

/// The reader's locale for `lang`: their own variant when the browser names one
/// (es-AR, en-GB), else the plain language.
export function localeFor(lang, preferred = []) {
  return preferred.find(l => l.toLowerCase().split('-')[0] === lang) || lang;
}

/// Number, duration, count and time formatters for one locale; `lang` picks the words.
export function makeFormat(lang, locale) {
  const cache = new Map();
  const nf = (min, max) => {
    const key = `${min}/${max}`;
    if (!cache.has(key)) cache.set(key, new Intl.NumberFormat(locale, { minimumFractionDigits: min, maximumFractionDigits: max }));
    return cache.get(key);
  };
  const plural = new Intl.PluralRules(locale);
  const num = (n, digits = 0) => (n == null || !Number.isFinite(Number(n)) ? '—' : nf(0, digits).format(n));
  return {
    locale,
    num,
    /// Always `digits` decimals: a countdown that ticks "30,0 s", "29,9 s" without jumping.
    fixed(n, digits) { return n == null || !Number.isFinite(Number(n)) ? '—' : nf(digits, digits).format(n); },
    /// Milliseconds as a person reads them: "1,44 s" from 1,000 ms up, "221 ms", "0,02 ms".
    ms(ms) {
      if (ms == null || !Number.isFinite(Number(ms))) return '—';
      if (Math.abs(ms) >= 1000) return `${nf(2, 2).format(ms / 1000)} s`;
      return `${nf(0, Math.abs(ms) < 1 ? 2 : Math.abs(ms) < 10 ? 1 : 0).format(ms)} ms`;
    },
    /// A ratio such as carrier calls per request: 2 decimals, or 2 significant digits below 1
    /// (0.00039 is not 0: a breaker that kept nearly every call away).
    ratio(n) {
      if (n == null || !Number.isFinite(Number(n))) return '—';
      if (n === 0 || Math.abs(n) >= 1) return num(n, 2);
      if (!cache.has('sig')) cache.set('sig', new Intl.NumberFormat(locale, { maximumSignificantDigits: 2 }));
      return cache.get('sig').format(n);
    },
    /// "1 intento", "2 intentos", "1.234 solicitudes".
    count(n, word) { return `${num(n)} ${W[lang][word][plural.select(Number(n)) === 'one' ? 'one' : 'other']}`; },
    word(n, word) { return W[lang][word][plural.select(Number(n)) === 'one' ? 'one' : 'other']; },
    time(d) { return new Date(d).toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }); },
  };
}
