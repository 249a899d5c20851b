// The dashboard's words and numbers, in neutral Spanish and English. Numbers, times and
// plurals go through Intl in the reader's own locale (es-AR, es-ES, en-GB, ...), so that
// "1,44 s" reads the same way everywhere on the page. Pure: importable by node tests.

// Words that change with a count: forms for Intl.PluralRules' "one" and "other".
const W = {
  es: {
    attempt: { one: 'intento', other: 'intentos' }, request: { one: 'solicitud', other: 'solicitudes' },
    client: { one: 'cliente', other: 'clientes' }, call: { one: 'llamada', other: 'llamadas' },
    layer: { one: 'capa', other: 'capas' }, useful: { one: 'respuesta útil', other: 'respuestas útiles' },
  },
  en: {
    attempt: { one: 'attempt', other: 'attempts' }, request: { one: 'request', other: 'requests' },
    client: { one: 'client', other: 'clients' }, call: { one: 'call', other: 'calls' },
    layer: { one: 'layer', other: 'layers' }, useful: { one: 'useful answer', other: 'useful answers' },
  },
};

export const TEXT = {
  es: {
    // One Spanish (the course glossary): disyuntor, rechazo, respaldo, tiempo límite, espera
    // entre reintentos, restablecer; policy and scenario names stay as the lab spells them.
    title: 'Laboratorio de cotizaciones: legacy frente a resilient',
    carrierMode: 'Modo del proveedor (para las solicitudes sin escenario)',
    reset: 'Restablecer el laboratorio', projector: 'Modo proyector', labName: name => `Laboratorio: ${name}`,
    live: 'en vivo', polling: 'sin conexión en vivo: consultando cada 2 s', unreachable: 'laboratorio no disponible: reconectando…',
    connecting: 'conectando…',
    backendAlone: 'Solo esta réplica: Redis no responde, así que esta réplica decide sola (disyuntor, límite de solicitudes y clase) hasta que vuelva.',
    backendBack: 'Redis volvió: las réplicas se resincronizaron y comparten de nuevo un solo disyuntor.',
    tokenPrompt: 'Este laboratorio tiene token del docente. Pégalo para restablecer, cambiar el modo del proveedor y lanzar tormentas (o cancela para solo mirar):',
    adminNote: 'Sin el token del docente: restablecer, cambiar el modo del proveedor y lanzar tormentas quedan ocultos.',
    tokenRejected: 'El laboratorio no aceptó ese token del docente: restablecer, cambiar el modo del proveedor y lanzar tormentas siguen ocultos. Ingrésalo de nuevo con el botón.',
    tokenEnter: 'Ingresar el token del docente',
    labKeyLabel: 'Clave de tu laboratorio', labKeySave: 'Guardar la clave',
    labKeyHelp: 'Es la clave que mostró la primera respuesta de tu laboratorio; esta página la guarda en este navegador.',
    breakerTitle: 'Disyuntor del proveedor (solo la política resilient)', cooldown: 'Enfriamiento restante', failures: 'Fallos consecutivos',
    shortCircuits: 'Rechazos', openEvents: 'Aperturas', fallbackQuote: 'Cotización de respaldo',
    incidents: 'Últimas solicitudes del laboratorio del docente (de cualquier cliente)',
    incidentsOf: name => `Últimas solicitudes del laboratorio ${name} (solo las de este laboratorio)`,
    colTime: 'Hora', colMode: 'Modo', colScenario: 'Escenario',
    colStatus: 'Estado', colAttempts: 'Intentos', colElapsed: 'Tiempo', scenario: 'Escenario', run: 'Ejecutar',
    legacy: 'legacy: reintentos agresivos', resilient: 'resilient: espera entre reintentos, disyuntor y respaldo',
    policyLegacy: (p, f) => `tiempo límite ${f.ms(p.timeout_ms)} × ${f.count(p.max_attempts, 'attempt')}, sin espera entre reintentos, sin disyuntor, sin respaldo`,
    policyResilient: (p, b, f) => `tiempo límite ${f.ms(p.timeout_ms)} × ${f.count(p.max_attempts, 'attempt')}, espera entre reintentos ${f.ms(p.backoff_base_ms)} × 2^(n−1) + ${f.num(p.jitter_min_ms)}–${f.ms(p.jitter_max_ms)} de variación aleatoria, disyuntor: ${f.num(b.failure_threshold)} fallos / ${f.num(b.open_duration_s)} s, respaldo`,
    status: { completed: 'completada', degraded: 'degradada', failed: 'fallida' },
    quote: 'cotización', source: { live: 'en vivo', fallback: 'de respaldo' }, seed: 'la cotización inicial',
    age: s => `de hace ${s} s`, none: '—', running: 'ejecutando…',
    serverTime: 'en el laboratorio', clientTime: 'visto por el navegador',
    answerOwn: at => `Tu solicitud (Ejecutar), ${at}`, answerOther: at => `Otra solicitud (curl, otra página o una tormenta), ${at}`,
    answerSummary: 'sin el detalle paso a paso (la conexión en vivo lo trae)',
    reason: {
      timeout: 'tiempo límite agotado', connect_error: 'error de conexión', http_5xx: 'error del proveedor (5xx)',
      http_429: 'el proveedor pide esperar (429)', bad_response: 'respuesta inválida', circuit_open: 'disyuntor abierto',
      probe_in_flight: 'ya hay una llamada de prueba en curso', not_retryable: 'no se reintenta', shutting_down: 'el laboratorio se está deteniendo',
      retry_budget: 'sin presupuesto de reintentos', retry_quota: 'la cuota de reintentos no alcanza', deadline: 'se acabó el plazo total',
      seed_quote: 'cotización inicial', cached_quote: 'última cotización buena',
      throttled: 'la limitación adaptativa la descartó', concurrency_limit: 'límite adaptativo de concurrencia lleno',
      bulkhead_full: 'mamparo lleno', client_rate_limited: 'el reintento adaptativo no tenía ficha',
      hedge_budget: 'sin presupuesto de coberturas', half_open_probe: 'es la llamada de prueba del disyuntor semiabierto: va sola',
    },
    ev: {
      queue: () => 'en cola (esperando un hilo de trabajo)',
      attempt_success: n => `intento ${n}: respondió`, attempt_failed: (n, r) => `intento ${n}: falló (${r})`,
      backoff: () => 'espera entre reintentos', circuit_opened: () => 'se abrió el disyuntor', short_circuit: () => 'rechazo: el disyuntor no llamó al proveedor',
      half_open_probe: n => `intento ${n}: llamada de prueba (semiabierto)`, fallback_used: (n, r) => `respaldo servido (${r})`,
      retry_skipped: (n, r) => `reintento omitido (${r})`,
      retry_after: () => 'espera que pidió el proveedor',
      rejected: (n, r) => `intento ${n}: rechazado sin llamar al proveedor (${r})`,
      hedge: (n, r, row, f) => `intento ${n}: llamada de cobertura, enviada a los ${f.ms(row.after)}`,
      hedge_won: n => `intento ${n}: la llamada de cobertura respondió primero`,
      cancelled: n => `intento ${n}: el cliente se fue; la cotización se canceló`,
      hedge_skipped: (n, r) => `intento ${n}: llamada de cobertura omitida (${r})`,
      token_wait: n => `intento ${n}: espera de su ficha (reintento adaptativo)`,
      total: () => 'total en el laboratorio (cola incluida)', client: () => 'visto por el navegador',
    },
    counters: { requests: 'solicitudes', successes: 'completadas', degraded: 'degradadas', failures: 'fallidas',
      attempts: 'llamadas al proveedor', retries: 'reintentos', fallbacks: 'respaldos', short_circuits: 'rechazos' },
    chartRate: 'solicitudes/s', chartCalls: 'llamadas al proveedor/s', chartErrors: '% degradadas o fallidas',
    chartP50: 'p50', chartP95: 'p95', chartP99: 'p99', chartLatency: 'latencia por segundo (cola incluida)',
    chartTraffic: 'tráfico por segundo', shading: 'Fondo: rojo = disyuntor abierto, ámbar = semiabierto.',
    chartMissing: 'Falta la biblioteca de gráficos (paquete libjs-chart.js).',
    waterfallTitle: 'La última respuesta, paso a paso (un mismo eje para ambos modos)',
    seconds: 's', carrierModeOption: m => `— modo del proveedor (${m}) —`,
    state: { closed: 'cerrado', open: 'abierto', half_open: 'semiabierto' },
    stormTitle: 'Experimento: tormenta de reintentos', clients: 'Clientes', durationS: 'Duración (s)', stormStart: 'Lanzar tormenta',
    stormHelp: 'Muchos clientes a la vez contra el laboratorio (carga cerrada: cada uno espera su respuesta antes de la siguiente) o llegadas por segundo que no esperan ninguna respuesta (carga abierta, como usuarios que siguen llegando): compara la carga ofrecida, las respuestas útiles (a tiempo), la amplificación (llamadas al proveedor por solicitud), la latencia de /health y el trabajo desperdiciado. El último resultado de cada política queda a la vista hasta restablecer; legacy y resilient, lado a lado.',
    stormLoad: 'Carga', loadClosed: 'clientes (carga cerrada)', loadOpen: 'llegadas por segundo (carga abierta)', ratePerS: 'Llegadas por segundo',
    loadSweep: 'barrido de llegadas por segundo (curva de respuestas útiles)', sweepRates: 'Llegadas por segundo de cada paso (separadas por espacios)',
    sweepCancelled: 'cancelado',
    sweepBadValue: v => `«${v}» no es un valor de llegadas por segundo entre 0,1 y 500.`,
    sweepCount: n => `Un barrido tiene de 2 a 12 valores de llegadas por segundo, separados por espacios (hay ${n}).`,
    sweepTooLong: (n, d, max) => `${n} pasos de ${d} s enviarían durante más de ${max} s: baja la duración de cada paso o da menos valores.`,
    sweepStepS: 'Duración de cada paso (s)',
    sweepTitle: 'Respuestas útiles frente a la carga ofrecida',
    sweepHelp: 'Un barrido lanza una tormenta de carga abierta por cada valor de llegadas por segundo, una tras otra, sobre el mismo laboratorio (lo que un paso deja, como un disyuntor abierto, sigue en el siguiente). Cada punto es un paso: la línea continua cuenta las respuestas útiles (una cotización en vivo o un respaldo reciente, a tiempo); la discontinua, solo las cotizaciones en vivo, lo que el proveedor mismo atendió; la gris, lo ideal: toda llegada con una respuesta útil. El codo es donde las respuestas útiles dejan de seguir a la carga ofrecida; pasado el codo, una política las sostiene o se derrumba. Queda el último barrido de cada política y escenario hasta restablecer.',
    sweepGoodput: 'respuestas útiles', sweepLive: 'cotizaciones en vivo', sweepIdeal: 'toda llegada con respuesta útil',
    sweepWaiting: 'Midiendo el primer paso…',
    sweepKeys: { rate: 'llegadas/s pedidas', offered: 'carga ofrecida (llegadas/s)', goodput: 'respuestas útiles/s', live: 'en vivo/s',
      amplification: 'llamadas al proveedor por solicitud', p99: 'latencia p99' },
    // The metastability map (metamap.js): one cell per trigger depth × offered load.
    mapTitle: 'El mapa de la metaestabilidad (tiempo simulado)',
    mapHelp: 'Un disparador: 3 s después de la primera llamada, el proveedor (5 llamadas a la vez de unos 100 ms, 50 por segundo, con una cola FIFO de 50 que atiende también las llamadas que ya nadie espera) pierde parte de su capacidad durante unos segundos y después vuelve entero. Cada celda es una tormenta de carga abierta en tiempo simulado: ¿vuelven las respuestas útiles en vivo cuando el disparador termina, y cuántos segundos después? Cambia la duración del disparador, la política o sus ajustes y el mapa se vuelve a dibujar; mueve la profundidad o la carga (o toca una celda) para ver sus segundos. Es la figura 5 de Huang y otros (OSDI 2022) con los números del laboratorio.',
    mapPolicy: 'Política', mapLength: 'Duración del disparador', mapDepth: 'Profundidad del disparador', mapLoad: 'Carga ofrecida',
    mapSettings: 'Ajustes de la política (opcionales)',
    mapLoadValue: (l, f) => `${f.num(l * 100)} % de la capacidad (${f.num(l * 50, 1)} llegadas/s)`,
    mapCorner: 'disparador \\ carga',
    mapCell: (p, f) => (!p ? '…' : p.recovered_after_s == null ? 'nunca' : `${f.num(p.recovered_after_s)} s`),
    mapSentence: (s, p, f) => {
      const what = `Con ${s.policy}, un disparador de −${f.num(s.depth * 100)} % durante ${f.num(s.lengthS)} s y una carga del ${f.num(s.load * 100)} % de la capacidad (${f.num(s.load * 50, 1)} llegadas/s)`;
      if (!p) return `${what}: simulando…`;
      const calls = `Llamadas al proveedor por solicitud: ${f.ratio(p.calls_per_quote)}.`;
      if (p.recovered_after_s == null) return `${what} no se recupera: en los ${f.num(p.window_s)} s después del disparador nunca hay 2 segundos seguidos con un 90 % de respuestas útiles en vivo. ${calls}`;
      return `${what} se recupera ${p.recovered_after_s === 0 ? 'en cuanto el disparador termina' : `${f.num(p.recovered_after_s)} s después de que el disparador termina`}. ${calls}`;
    },
    mapBound: (b, worst, f) => `Cargas en negrita: por debajo de la cota del teorema 2 (la capacidad ÷ ${f.count(worst, 'call')} por solicitud en el peor caso = ${f.num(b * 100)} % de la capacidad): ahí ningún disparador puede dejar al sistema caído.`,
    mapProgress: (done, all, busy) => `Simulando: ${done} de ${all} celdas${busy ? ' (la fila de simulaciones del laboratorio está llena: se vuelven a pedir en unos segundos)' : ''}…`,
    mapProblem: m => `El laboratorio rechazó el mapa: ${m}`,
    mapUnreachable: 'el laboratorio no respondió',
    mapArrivals: 'llegadas por segundo', mapUseful: 'respuestas útiles en vivo por segundo', mapSecond: 'segundo de la tormenta',
    mapPerSecond: 'por segundo', mapChart: 'Llegadas y respuestas útiles en vivo por segundo de la celda elegida, con el disparador sombreado',
    // The knee as bench/goodput_curve.py reads it (sweep.js kneeOf).
    sweepKnee: (k, f) => {
      const rps = v => `${f.num(v, 1)} llegadas/s`;
      const useful = v => `${f.num(v, 1)} ${f.word(Math.round(v * 10) / 10, 'useful')}/s`;  // "1 respuesta útil/s"
      if (k.peak === 0) return `Ninguna carga medida recibió respuestas útiles (hasta ${rps(k.topRps)}).`;
      if (k.kneeRps === k.topRps) return `Sin codo: las respuestas útiles siguen a la carga ofrecida hasta la más alta medida (${rps(k.topRps)}: ${useful(k.last)}).`;
      const where = k.kneeRps == null ? 'Ni la carga más baja medida recibe un 90 % de respuestas útiles' : `Codo en ${rps(k.kneeRps)}`;
      return `${where}; ${k.collapses ? 'pasado el codo se derrumba' : 'pasado el codo se sostiene'}: ${useful(k.last)} con la carga más alta (${rps(k.topRps)}), su máximo ${f.num(k.peak, 1)}.`;
    },
    stormPolicy: 'Política', stormOverrides: 'Ajustes (opcionales)', noBreaker: 'sin disyuntor',
    stormLayers: 'Capas de reintento (1–3)',
    policyNamed: name => `Política ${name}`, budgetOf: ratio => `presupuesto de reintentos ${ratio}`,
    stormRunning: 'Ya hay una tormenta en curso.', stormNone: 'Sin tormenta todavía',
    stormOf: (r, f) => `${r.scenario} · ${r.rate_per_s != null ? f.num(r.rate_per_s, 1) + ' llegadas/s' : f.count(r.clients, 'client')} · ${f.num(r.elapsed_s, 1)} s`,
    // The lab's metastable episode as the storm ended (GET /carrier's `metastable`).
    metastable: (m, f) => !m.trigger_over ? `La tormenta terminó dentro del disparador (${f.num(m.down_ms / 1000, 0)} s).`
      : m.recovered_after_trigger_s != null ? `El proveedor se recuperó ${f.num(m.recovered_after_trigger_s, 1)} s después del disparador.`
      : m.calls_after_trigger === 0 ? 'Ninguna llamada llegó al proveedor después del disparador: nada lo satura.'
      : `El proveedor no se recuperó: ${f.num(m.overloaded_calls)} de ${f.num(m.calls_after_trigger)} llamadas posteriores al disparador lo encontraron saturado.`,
    stormKeys: { requests: 'solicitudes', throughput: 'solicitudes/s', p50: 'latencia p50', p99: 'latencia p99',
      amplification: 'llamadas al proveedor por solicitud', health: 'p99 de /health', wasted: 'llamadas desperdiciadas',
      noQuote: 'sin cotización (503)', fallback: 'cotización de respaldo',
      offered: 'carga ofrecida (llegadas/s)', goodput: 'respuestas útiles (a tiempo)' },
    // The overload strategies panel (each strategy's term and live figures' captions come from GET /'s `strategies`).
    overloadTitle: 'Estrategias de sobrecarga',
    overloadHelp: 'Por política: cuántas solicitudes llegaron, cuántas llamadas dejó pasar al proveedor, cuántas rechazó (y por qué) o cubrió, y el valor en vivo de su estrategia. Cuentas del laboratorio, leídas cada segundo mientras algo pasa.',
    overloadKeys: { requests: 'solicitudes', calls: 'llamadas admitidas (al proveedor)', rejected: 'rechazadas sin llamar al proveedor',
      hedgeSent: 'llamadas de cobertura enviadas', hedgeWon: 'coberturas que respondieron primero', hedgeSkipped: 'omitidas: sin presupuesto de coberturas' },
    // A count of refusals by reason: these words where they differ from the step's (`reason`).
    rejectedReason: { throttled: 'descartadas por la limitación adaptativa', client_rate_limited: 'sin ficha del reintento adaptativo' },
    overloadNone: 'Sin solicitudes todavía: lanza una tormenta contra una de estas políticas.',
    overloadAnswerTitle: 'La última respuesta de una de estas políticas, paso a paso',
    overloadAnswerOf: (policy, at) => `Política ${policy}, ${at}`,
    unreachableMsg: 'El laboratorio no responde (¿se reinició el proceso?). La página se reconecta sola.',
    timeoutMsg: s => `El laboratorio no respondió en ${s} s. La página sigue intentando.`,
  },
  en: {
    title: 'Quote lab: legacy vs. resilient',
    carrierMode: 'Carrier mode (for requests without a scenario)',
    reset: 'Reset the lab', projector: 'Projector mode', labName: name => `Lab: ${name}`,
    live: 'live', polling: 'live updates lost: polling every 2 s', unreachable: 'lab unreachable: reconnecting…',
    connecting: 'connecting…',
    backendAlone: 'This replica only: Redis is not answering, so this replica decides alone (breaker, rate limit and class) until it is back.',
    backendBack: 'Redis is back: the replicas resynced and share one breaker again.',
    tokenPrompt: 'This lab has a teacher token. Paste it to reset, change the carrier mode and start storms (or cancel to just watch):',
    adminNote: 'Without the teacher token: reset, carrier mode and storms are hidden.',
    tokenRejected: 'The lab did not accept that teacher token: reset, carrier mode and storms stay hidden. Enter it again with the button.',
    tokenEnter: "Enter the teacher's token",
    labKeyLabel: 'Your lab key', labKeySave: 'Save the key',
    labKeyHelp: "The key your lab's first answer showed; this page keeps it in this browser.",
    breakerTitle: "The carrier's circuit breaker (resilient only)", cooldown: 'Cooldown left', failures: 'Consecutive failures',
    shortCircuits: 'Short-circuits', openEvents: 'Times opened', fallbackQuote: 'Fallback quote',
    incidents: "Latest requests to the teacher's lab (from any client)",
    incidentsOf: name => `Latest requests to lab ${name} (this lab's only)`, colTime: 'Time', colMode: 'Mode', colScenario: 'Scenario',
    colStatus: 'Status', colAttempts: 'Attempts', colElapsed: 'Elapsed', scenario: 'Scenario', run: 'Run',
    legacy: 'Legacy: aggressive retries', resilient: 'Resilient: backoff, circuit breaker and fallback',
    policyLegacy: (p, f) => `timeout ${f.ms(p.timeout_ms)} × ${f.count(p.max_attempts, 'attempt')}, no wait, no breaker, no fallback`,
    policyResilient: (p, b, f) => `timeout ${f.ms(p.timeout_ms)} × ${f.count(p.max_attempts, 'attempt')}, wait ${f.ms(p.backoff_base_ms)} × 2^(n−1) + ${f.num(p.jitter_min_ms)}–${f.ms(p.jitter_max_ms)}, breaker: ${f.num(b.failure_threshold)} failures / ${f.num(b.open_duration_s)} s, fallback`,
    status: { completed: 'completed', degraded: 'degraded', failed: 'failed' },
    quote: 'quote', source: { live: 'live', fallback: 'fallback' }, seed: 'the starter quote',
    age: s => `${s} s old`, none: '—', running: 'running…',
    serverTime: 'in the lab', clientTime: 'seen by the browser',
    answerOwn: at => `Your request (Run), ${at}`, answerOther: at => `Another request (curl, another page or a storm), ${at}`,
    answerSummary: 'without the step-by-step detail (the live stream brings it)',
    reason: {
      timeout: 'timed out', connect_error: 'connection error', http_5xx: 'carrier error (5xx)',
      http_429: 'the carrier asks to wait (429)', bad_response: 'invalid answer', circuit_open: 'breaker open',
      probe_in_flight: 'a probe is already running', not_retryable: 'not retried', shutting_down: 'the lab is stopping',
      retry_budget: 'retry budget spent', retry_quota: 'not enough retry quota', deadline: 'total deadline reached',
      seed_quote: 'starter quote', cached_quote: 'last good quote',
      throttled: 'dropped by adaptive throttling', concurrency_limit: 'adaptive concurrency limit full',
      bulkhead_full: 'bulkhead full', client_rate_limited: 'adaptive retry had no token',
      hedge_budget: 'hedge budget spent', half_open_probe: 'the half-open probe goes alone',
    },
    ev: {
      queue: () => 'queued (waiting for a worker)',
      attempt_success: n => `attempt ${n}: answered`, attempt_failed: (n, r) => `attempt ${n}: failed (${r})`,
      backoff: () => 'wait (backoff)', circuit_opened: () => 'breaker opened', short_circuit: () => 'short-circuit: carrier not called',
      half_open_probe: n => `attempt ${n}: half-open probe`, fallback_used: (n, r) => `fallback served (${r})`,
      retry_skipped: (n, r) => `retry skipped (${r})`,
      retry_after: () => 'wait the carrier asked for',
      rejected: (n, r) => `attempt ${n}: refused without calling the carrier (${r})`,
      hedge: (n, r, row, f) => `attempt ${n}: hedged call, sent at ${f.ms(row.after)}`,
      hedge_won: n => `attempt ${n}: the hedged call answered first`,
      cancelled: n => `attempt ${n}: the client left; the quote was cancelled`,
      hedge_skipped: (n, r) => `attempt ${n}: hedged call skipped (${r})`,
      token_wait: n => `attempt ${n}: wait for its token (adaptive retry)`,
      total: () => 'total in the lab (queue included)', client: () => 'seen by the browser',
    },
    counters: { requests: 'requests', successes: 'completed', degraded: 'degraded', failures: 'failed',
      attempts: 'carrier calls', retries: 'retries', fallbacks: 'fallbacks', short_circuits: 'short-circuits' },
    chartRate: 'requests/s', chartCalls: 'carrier calls/s', chartErrors: '% degraded or failed',
    chartP50: 'p50', chartP95: 'p95', chartP99: 'p99', chartLatency: 'latency per second (queue included)',
    chartTraffic: 'traffic per second', shading: 'Background: red = breaker open, amber = half-open.',
    chartMissing: 'The chart library is missing (package libjs-chart.js).',
    waterfallTitle: 'The last answer, step by step (one axis for both modes)',
    seconds: 's', carrierModeOption: m => `— carrier mode (${m}) —`,
    state: { closed: 'closed', open: 'open', half_open: 'half-open' },
    stormTitle: 'Experiment: retry storm', clients: 'Clients', durationS: 'Duration (s)', stormStart: 'Start storm',
    stormHelp: 'Many clients at once against the lab (closed loop: each waits for its answer before the next) or arrivals per second that wait for no answer (open loop, like users who keep arriving): compare the offered load, the goodput (useful answers in time), amplification (carrier calls per request), /health latency and wasted work. The last result of each policy stays in view until reset; legacy and resilient side by side.',
    stormLoad: 'Load', loadClosed: 'clients (closed loop)', loadOpen: 'arrivals per second (open loop)', ratePerS: 'Arrivals per second',
    loadSweep: 'sweep of arrivals per second (goodput curve)', sweepRates: 'Arrivals per second of each step (separated by spaces)',
    sweepCancelled: 'cancelled',
    sweepBadValue: v => `“${v}” is not a value of arrivals per second between 0.1 and 500.`,
    sweepCount: n => `A sweep has 2 to 12 values of arrivals per second, separated by spaces (there are ${n}).`,
    sweepTooLong: (n, d, max) => `${n} steps of ${d} s would send for more than ${max} s: lower each step's duration or give fewer values.`,
    sweepStepS: 'Duration of each step (s)',
    sweepTitle: 'Goodput against offered load',
    sweepHelp: 'A sweep runs one open-loop storm per value of arrivals per second, one after another, on the same lab (what a step leaves, such as an open breaker, is still there at the next). Each point is a step: the solid line counts goodput (a live quote or a fresh fallback, in time); the dashed one only the live quotes, what the carrier itself served; the grey one the ideal, every arrival with a useful answer. The knee is where goodput stops following the offered load; past it a policy holds its goodput or collapses. The last sweep of each policy and scenario stays until reset.',
    sweepGoodput: 'goodput', sweepLive: 'live quotes', sweepIdeal: 'every arrival useful',
    sweepWaiting: 'Measuring the first step…',
    sweepKeys: { rate: 'arrivals/s asked', offered: 'offered load (arrivals/s)', goodput: 'goodput/s', live: 'live/s',
      amplification: 'carrier calls per request', p99: 'p99 latency' },
    // The metastability map (metamap.js): one cell per trigger depth × offered load.
    mapTitle: 'The metastability map (simulated time)',
    mapHelp: 'A trigger: 3 s after the first call, the carrier (5 calls at a time of about 100 ms, 50 a second, behind a FIFO queue of 50 that also serves calls nobody waits for any more) loses part of its capacity for a few seconds, then comes back whole. Each cell is an open-loop storm in simulated time: does live goodput come back once the trigger ends, and how many seconds later? Change the trigger\'s length, the policy or its settings and the map is drawn again; move the depth or the load (or click a cell) to see its seconds. It is Huang et al.\'s Fig. 5 (OSDI \'22) at the lab\'s numbers.',
    mapPolicy: 'Policy', mapLength: 'Trigger length', mapDepth: 'Trigger depth', mapLoad: 'Offered load',
    mapSettings: 'Policy settings (optional)',
    mapLoadValue: (l, f) => `${f.num(l * 100)} % of capacity (${f.num(l * 50, 1)} arrivals/s)`,
    mapCorner: 'trigger \\ load',
    mapCell: (p, f) => (!p ? '…' : p.recovered_after_s == null ? 'never' : `${f.num(p.recovered_after_s)} s`),
    mapSentence: (s, p, f) => {
      const what = `With ${s.policy}, a trigger of −${f.num(s.depth * 100)} % for ${f.num(s.lengthS)} s under a load of ${f.num(s.load * 100)} % of capacity (${f.num(s.load * 50, 1)} arrivals/s)`;
      if (!p) return `${what}: simulating…`;
      const calls = `Carrier calls per request: ${f.ratio(p.calls_per_quote)}.`;
      if (p.recovered_after_s == null) return `${what} never recovers: in the ${f.num(p.window_s)} s after the trigger there are never 2 seconds in a row with 90 % live goodput. ${calls}`;
      return `${what} recovers ${p.recovered_after_s === 0 ? 'as soon as the trigger ends' : `${f.num(p.recovered_after_s)} s after the trigger ends`}. ${calls}`;
    },
    mapBound: (b, worst, f) => `Loads in bold: below Theorem 2's bound (capacity ÷ ${f.count(worst, 'call')} per request at worst = ${f.num(b * 100)} % of capacity): there no trigger can keep the system down.`,
    mapProgress: (done, all, busy) => `Simulating: ${done} of ${all} cells${busy ? ' (the lab\'s line of simulations is full: asked again in a few seconds)' : ''}…`,
    mapProblem: m => `The lab refused the map: ${m}`,
    mapUnreachable: 'the lab did not answer',
    mapArrivals: 'arrivals per second', mapUseful: 'live goodput per second', mapSecond: 'second of the storm',
    mapPerSecond: 'per second', mapChart: 'Arrivals and live goodput per second of the chosen cell, the trigger shaded',
    // The knee as bench/goodput_curve.py reads it (sweep.js kneeOf).
    sweepKnee: (k, f) => {
      const rps = v => `${f.num(v, 1)} arrivals/s`;
      if (k.peak === 0) return `No load measured got any goodput (up to ${rps(k.topRps)}).`;
      if (k.kneeRps === k.topRps) return `No knee: goodput follows the offered load up to the highest measured (${rps(k.topRps)}: goodput ${f.num(k.last, 1)}/s).`;
      const where = k.kneeRps == null ? 'Not even the lowest load measured gets 90 % goodput' : `Knee at ${rps(k.kneeRps)}`;
      return `${where}; past it ${k.collapses ? 'goodput collapses' : 'goodput holds'}: ${f.num(k.last, 1)}/s at the highest load (${rps(k.topRps)}), its best ${f.num(k.peak, 1)}/s.`;
    },
    stormPolicy: 'Policy', stormOverrides: 'Overrides (optional)', noBreaker: 'without breaker',
    stormLayers: 'Retry layers (1–3)',
    policyNamed: name => `Policy ${name}`, budgetOf: ratio => `retry budget ${ratio}`,
    stormRunning: 'A storm is already running.', stormNone: 'No storm yet',
    stormOf: (r, f) => `${r.scenario} · ${r.rate_per_s != null ? f.num(r.rate_per_s, 1) + ' arrivals/s' : f.count(r.clients, 'client')} · ${f.num(r.elapsed_s, 1)} s`,
    metastable: (m, f) => !m.trigger_over ? `The storm ended inside the trigger (${f.num(m.down_ms / 1000, 0)} s).`
      : m.recovered_after_trigger_s != null ? `The carrier recovered ${f.num(m.recovered_after_trigger_s, 1)} s after the trigger ended.`
      : m.calls_after_trigger === 0 ? 'No call reached the carrier after the trigger: nothing overloads it.'
      : `The carrier did not recover: ${f.num(m.overloaded_calls)} of ${f.num(m.calls_after_trigger)} calls after the trigger found it overloaded.`,
    stormKeys: { requests: 'requests', throughput: 'requests/s', p50: 'latency p50', p99: 'latency p99',
      amplification: 'carrier calls per request', health: '/health p99', wasted: 'wasted carrier calls',
      noQuote: 'no quote (503)', fallback: 'fallback quote',
      offered: 'offered load (arrivals/s)', goodput: 'goodput (useful answers in time)' },
    overloadTitle: 'Overload strategies',
    overloadHelp: "Per policy: how many requests came, how many calls it let through to the carrier, how many it refused (and why) or hedged, and its strategy's live value. The lab's own counts, read every second while something happens.",
    overloadKeys: { requests: 'requests', calls: 'calls admitted (to the carrier)', rejected: 'refused without calling the carrier',
      hedgeSent: 'hedged calls sent', hedgeWon: 'hedged calls that answered first', hedgeSkipped: 'skipped: hedge budget spent' },
    rejectedReason: { client_rate_limited: 'no adaptive retry token' },
    overloadNone: 'No requests yet: start a storm against one of these policies.',
    overloadAnswerTitle: 'The last answer of one of these policies, step by step',
    overloadAnswerOf: (policy, at) => `Policy ${policy}, ${at}`,
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
    /// A rate: "1,5/s".
    perSecond(n, digits = 0) { return `${num(n, digits)}/s`; },
    /// "1 intento", "2 intentos", "1.234 solicitudes".
    count(n, word) { return `${num(n)} ${W[lang][word][plural.select(Number(n)) === 'one' ? 'one' : 'other']}`; },
    word(n, word) { return W[lang][word][plural.select(Number(n)) === 'one' ? 'one' : 'other']; },
    time(d) { return new Date(d).toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }); },
  };
}

/// The page's language: `?lang=en|es` first, then the reader's last choice on these pages
/// (the language buttons), then the browser's. The course is Spanish: every page speaks
/// Spanish unless English is asked for (`?lang=en`, the button, or an English browser).
export function pickLanguage(search = '', stored = null, browser = '') {
  const asked = new URLSearchParams(search).get('lang');
  return (asked || stored || browser || 'es').toLowerCase().startsWith('en') ? 'en' : 'es';
}

/// A scenario as a choice in a list: its name (what a lesson's curl sends) and, in the page's
/// language, its title (the description up to its ':' or '(': "provider_down — Proveedor caído").
export function scenarioTitle(scenario, lang) {
  const text = scenario.description?.[lang] || '';
  const title = text.split(':')[0].split(' (')[0].trim();
  return title ? `${scenario.name} — ${title}` : scenario.name;
}
