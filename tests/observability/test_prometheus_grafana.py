#!/usr/bin/env python3
"""Real Prometheus against a real lab: every PromQL expression of the Grafana dashboard is
evaluated through Prometheus's HTTP API after driving traffic through both modes, and the
answers must show the course's comparison. Also checks the exposition and the Prometheus
config with promtool, the dashboard's structure, and the image's commands.

Usage: test_prometheus_grafana.py QUOTE_LAB_BINARY SOURCE_DIR   (exit 0 = all checks hold)
Starts everything on 127.0.0.1 with temporary folders and stops it all at the end."""
import concurrent.futures
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from poll import eventually  # noqa: E402

BINARY, SOURCE = sys.argv[1], sys.argv[2]
OBS = os.path.join(SOURCE, "observability")
failures = []
checks = 0


def check(name, ok, detail=""):
    global checks
    checks += 1
    if not ok:
        failures.append(name)
        print(f"FAIL {name}: {detail}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, timeout=30):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def wait_until(fn, seconds, what):
    if not eventually(fn, seconds):
        raise SystemExit(f"timed out waiting for {what}")


def promql(prom, expr):
    status, body = get(f"http://127.0.0.1:{prom}/api/v1/query?" + urllib.parse.urlencode({"query": expr}))
    data = json.loads(body)
    return status, data


def values(data):
    """{frozenset(labels): value} of an instant vector answer."""
    out = {}
    for r in data.get("data", {}).get("result", []):
        out[frozenset(r["metric"].items())] = float(r["value"][1])
    return out


def by(data, **labels):
    return [v for k, v in values(data).items() if all((n, l) in k for n, l in labels.items())]


tmp = tempfile.mkdtemp(prefix="quote-lab-prom-")
procs = []
finished = False  # a wait_until timeout ends the script early: show the logs then too
try:
    # --- static checks: promtool on the config, dashboard structure, the image's commands
    r = subprocess.run(["promtool", "check", "config", os.path.join(OBS, "prometheus.yml")], capture_output=True, text=True)
    check("promtool check config", r.returncode == 0, r.stdout + r.stderr)

    dash = json.load(open(os.path.join(OBS, "grafana", "dashboards", "quote-lab.json")))
    ds_yaml = open(os.path.join(OBS, "grafana", "provisioning", "datasources", "prometheus.yml")).read()
    ds_uid = re.search(r"^\s*uid:\s*([\w-]+)", ds_yaml, re.M).group(1)
    check("dashboard title", dash.get("title") == "Quote lab — legacy vs resilient", dash.get("title"))
    panels = dash["panels"]
    exprs = []
    for p in panels:
        check(f"panel '{p['title']}' uses the provisioned data source",
              p.get("datasource", {}).get("uid") == ds_uid and all(t.get("datasource", {}).get("uid") == ds_uid for t in p["targets"]),
              json.dumps(p.get("datasource")))
        check(f"panel '{p['title']}' has a description", len(p.get("description", "")) > 30, p.get("description"))
        exprs += [(p["title"], t["expr"]) for t in p["targets"]]
    dash_yaml = open(os.path.join(OBS, "grafana", "provisioning", "dashboards", "quote-lab.yml")).read()
    check("dashboard provider points at the mounted folder", "/var/lib/grafana/dashboards" in dash_yaml)

    compose = open(os.path.join(SOURCE, "compose.yml")).read()
    dockerfile = open(os.path.join(SOURCE, "Dockerfile")).read()
    check("Dockerfile builds with the README's scripts",
          "bash .ci/install-deps" in dockerfile and "bash .ci/build build" in dockerfile
          and "bash .ci/build build" in open(os.path.join(SOURCE, ".ci", "up")).read(), dockerfile)
    check("Dockerfile is Debian bookworm", re.search(r"^FROM debian:bookworm", dockerfile, re.M) is not None)
    for svc in ("lab:", "prometheus:", "grafana:"):
        check(f"compose service {svc}", f"\n  {svc}" in compose)
    check("compose publishes 8080 and 834", '"8080:8080"' in compose and '"834:8080"' in compose)
    check("compose has a healthcheck per service", compose.count("healthcheck:") == 3)
    check("grafana anonymous read-only", "GF_AUTH_ANONYMOUS_ENABLED: \"true\"" in compose and "GF_AUTH_ANONYMOUS_ORG_ROLE: Viewer" in compose)
    # The lab's command in compose and in the Dockerfile must be one the binary accepts.
    for where, text in (("compose", compose), ("Dockerfile", dockerfile)):
        m = re.search(r'\["build/quote-lab",([^\]]*)\]', text, re.S)
        args = json.loads("[" + m.group(1) + "]") if m else []
        args = [a.replace("/var/lib/quote-lab/state.json", os.path.join(tmp, "check-state.json")) for a in args]
        r = subprocess.run([BINARY] + args + ["--check"], capture_output=True, text=True, timeout=20)
        check(f"{where} lab command is valid", m is not None and r.returncode == 0, (r.stdout + r.stderr)[-400:])

    # --- a real lab and a real Prometheus scraping it every second
    lab_port, carrier_port, prom_port = free_port(), free_port(), free_port()
    lab_log = open(os.path.join(tmp, "lab.log"), "wb")
    procs.append(subprocess.Popen([BINARY, "serve", "--port", str(lab_port), "--carrier-port", str(carrier_port),
                                   "--state-file", os.path.join(tmp, "state.json"), "--workers", "64",
                                   "--carrier-workers", "64"], stdout=lab_log, stderr=subprocess.STDOUT))
    lab = f"http://127.0.0.1:{lab_port}"
    wait_until(lambda: get(lab + "/health", 1)[0] == 200, 20, "the lab")

    status, exposition = get(lab + "/metrics-prometheus")
    r = subprocess.run(["promtool", "check", "metrics"], input=exposition, capture_output=True)
    check("promtool check metrics", r.returncode == 0, (r.stdout + r.stderr).decode()[-800:])
    scraped = get(lab + "/metrics", 5)
    req = urllib.request.Request(lab + "/metrics", headers={"Accept": "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"})
    with urllib.request.urlopen(req) as resp:
        check("/metrics negotiates Prometheus text", resp.headers["Content-Type"].startswith("text/plain"), resp.headers["Content-Type"])
    for line in exposition.decode().splitlines():
        if line.startswith("# HELP "):
            name, help_text = line[7:].split(" ", 1)
            check(f"HELP of {name} is a sentence", len(help_text) > 25, help_text)

    config = os.path.join(tmp, "prometheus.yml")
    with open(config, "w") as f:
        f.write(f"""global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: quote-lab
    metrics_path: /metrics-prometheus
    static_configs:
      - targets: ["127.0.0.1:{lab_port}"]
""")
    prom_log = open(os.path.join(tmp, "prometheus.log"), "wb")
    procs.append(subprocess.Popen(["prometheus", f"--config.file={config}", f"--storage.tsdb.path={tmp}/data",
                                   f"--web.listen-address=127.0.0.1:{prom_port}"],
                                  stdout=prom_log, stderr=subprocess.STDOUT))
    wait_until(lambda: get(f"http://127.0.0.1:{prom_port}/-/ready", 1)[0] == 200, 30, "Prometheus")
    wait_until(lambda: values(promql(prom_port, 'up{job="quote-lab"}')[1]) != {}, 15, "the first scrape")

    # --- traffic: a legacy storm on provider_down, resilient on flaky then provider_down
    def call(path):
        return get(lab + path, 30)[0]

    with concurrent.futures.ThreadPoolExecutor(max_workers=24) as pool:
        futures = [pool.submit(call, "/quote-resilient?scenario=flaky_provider") for _ in range(3)]
        for f in futures:
            f.result()
        futures = [pool.submit(call, "/quote-legacy?scenario=provider_down") for _ in range(24)]
        futures += [pool.submit(call, "/quote-resilient?scenario=provider_down") for _ in range(3)]
        futures += [pool.submit(call, "/quote-legacy?scenario=ok") for _ in range(4)]
        for f in futures:
            f.result()
        for _ in range(40):  # the breaker is open: short circuits
            call("/quote-resilient?scenario=provider_down")
        call("/quote-legacy?scenario=nope")  # one 400

    def concrete(expr):
        return expr.replace("$__rate_interval", "1m").replace("$__range", "5m")

    # Prometheus has scraped all of that traffic (46 resilient flows), and the series the
    # last request created (the 400) twice, so that every rate() has its two samples.
    def scraped_everything():
        total = by(promql(prom_port, 'sum(quote_lab_quote_requests_total{mode="resilient"})')[1])
        last = by(promql(prom_port, 'count_over_time(quote_lab_http_requests_total{route="/quote-legacy",code="400"}[1m])')[1])
        return total == [46.0] and last and last[0] >= 2 and all(values(promql(prom_port, concrete(e))[1]) for _, e in exprs)
    eventually(scraped_everything, 20)

    # --- every dashboard expression returns data
    answers = {}
    for title, expr in exprs:
        status, data = promql(prom_port, concrete(expr))
        answers[expr] = data
        check(f"query of '{title}' runs", status == 200 and data.get("status") == "success", f"{expr}: {data.get('error')}")
        check(f"query of '{title}' returns data", len(values(data)) > 0, expr)

    def answer(fragment):
        return next(d for e, d in answers.items() if fragment in e)

    # --- and the data tells the course's story
    legacy_p95 = by(answer('histogram_quantile(0.95, sum by (le) (rate(quote_lab_quote_duration_seconds_bucket{mode="legacy"}')) or [0]
    resilient_p95 = by(answer('histogram_quantile(0.95, sum by (le) (rate(quote_lab_quote_duration_seconds_bucket{mode="resilient"}')) or [9]
    check("legacy p95 above 1.4 s", legacy_p95[0] > 1.4, legacy_p95)
    check("resilient p95 below 0.6 s", resilient_p95[0] < 0.6, resilient_p95)
    per_scenario = answer("sum by (le, mode, scenario)")
    down_legacy = by(per_scenario, mode="legacy", scenario="provider_down")
    check("legacy provider_down p95 above 1.4 s", down_legacy and down_legacy[0] > 1.4, down_legacy)
    amplification = answer('outcome!="short_circuit"')
    legacy_amp = by(amplification, mode="legacy")
    resilient_amp = by(amplification, mode="resilient")
    # 24 provider_down requests make 4 calls each; the 4 ok ones make 1, or 4 when the storm
    # has filled the carrier (its hung calls hold every worker): between 3.6 and 4.
    check("carrier calls per legacy request near 4", legacy_amp and 3.2 <= legacy_amp[0] <= 4.2, legacy_amp)
    check("resilient sends far fewer calls per request", resilient_amp and resilient_amp[0] < 1.0, resilient_amp)
    print(f"measured: legacy p95 {legacy_p95[0]:.3f} s, resilient p95 {resilient_p95[0]:.3f} s, "
          f"carrier calls per request legacy {legacy_amp and legacy_amp[0]:.2f}, resilient {resilient_amp and resilient_amp[0]:.2f}")
    state = values(answer("quote_lab_breaker_state"))
    check("breaker shows open", state.get(frozenset({("state", "open")})) == 1.0, state)
    shorts = by(answer('outcome="short_circuit"'), mode="resilient")
    check("short-circuits counted", shorts and shorts[0] > 0, shorts)
    fallbacks = [v for k, v in values(answer("quote_lab_fallbacks_total")).items() if ("mode", "resilient") in k]
    check("fallbacks counted", fallbacks and fallbacks[0] > 0, fallbacks)
    mix = answer("sum by (mode, status)")
    check("legacy failures in the outcome mix", by(mix, mode="legacy", status="failed"), values(mix))
    http = answer("quote_lab_http_requests_total")
    check("a 400 appears by route template", by(http, route="/quote-legacy", code="400"), values(http))
    transitions = answer("quote_lab_breaker_transitions_total")
    check("closed -> open transition counted", by(transitions, **{"from": "closed", "to": "open"}), values(transitions))
    finished = True
finally:
    for p in reversed(procs):
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
    if failures or not finished:
        for name in ("lab.log", "prometheus.log"):
            path = os.path.join(tmp, name)
            if os.path.exists(path):
                print(f"--- {name} (tail)\n" + open(path, errors="replace").read()[-6000:])
    shutil.rmtree(tmp, ignore_errors=True)

print(f"{checks - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
