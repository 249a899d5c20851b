#!/usr/bin/env python3
"""Real Prometheus against a real lab at its default settings: every PromQL expression of
the Grafana dashboard is evaluated through Prometheus's HTTP API the way Grafana asks for it
(a range query over the dashboard's time range, with Grafana's own $__interval,
$__rate_interval and $__range) after driving traffic through both modes, and the answers
must show the course's comparison. Also checks the exposition and the Prometheus config with
promtool, the dashboard's structure, and the image's commands.

Usage: test_prometheus_grafana.py QUOTE_LAB_BINARY SOURCE_DIR   (exit 0 = all checks hold)
Starts everything on 127.0.0.1 with temporary folders and stops it all at the end."""
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time
import urllib.request

from prom_stack import Checks, Stack, by, duration_s, eventually, get, series

BINARY, SOURCE = sys.argv[1], sys.argv[2]
OBS = os.path.join(SOURCE, "observability")
# Grafana's default "Max data points" is the panel's width in pixels; the test assumes the
# dashboard fills a 1920 px screen. Any width over ~260 px per panel gives the same
# $__rate_interval on the dashboard's 15 min range (4 x the scrape interval).
SCREEN_WIDTH_PX = 1920


def grafana_variables(dash, panel, target, time_interval_s):
    """{"$__range": ..., "$__interval": ..., "$__rate_interval": ...} in seconds, as Grafana
    sets them for `target` of `panel` at the dashboard's default time range.
    $__interval = time range / max data points, floored at the panel's min interval or the
    data source's `timeInterval` (Grafana rounds the quotient to a "nice" step before the
    floor; on this dashboard the floor wins either way);
    $__rate_interval = max($__interval + scrape interval, 4 * scrape interval), the scrape
    interval being the query's min step if it has one, else the data source's timeInterval:
    https://grafana.com/docs/grafana/latest/datasources/prometheus/template-variables/#use-__rate_interval
    https://grafana.com/docs/grafana/latest/panels-visualizations/query-transform-data/#query-options"""
    if dash["time"]["to"] != "now" or not dash["time"]["from"].startswith("now-"):
        raise SystemExit(f"dashboard time range {dash['time']} is not relative to now: update grafana_variables()")
    range_s = duration_s(dash["time"]["from"][len("now-"):])
    max_points = panel.get("maxDataPoints") or panel["gridPos"]["w"] / 24 * SCREEN_WIDTH_PX
    interval_s = max(range_s / max_points, duration_s(panel.get("interval") or f"{time_interval_s:g}s"))
    scrape_s = duration_s(target["interval"]) if target.get("interval") else time_interval_s
    return {"$__range": range_s, "$__interval": interval_s, "$__rate_interval": max(interval_s + scrape_s, 4 * scrape_s)}


def promql_duration(seconds):
    """A PromQL duration literal (it takes no fractions: 1.5 s is "1500ms")."""
    return f"{seconds:.0f}s" if seconds == int(seconds) else f"{round(seconds * 1000)}ms"


checks = Checks()
check = checks.check
stack = Stack(BINARY, SOURCE)
lab = stack.lab
tmp = stack.tmp
try:
    stack.start_prometheus()  # its first scrape comes ~5 s later: the static checks run meanwhile

    # --- static checks: promtool on the config, dashboard structure, the image's commands
    r = subprocess.run(["promtool", "check", "config", os.path.join(OBS, "prometheus.yml")], capture_output=True, text=True)
    check("promtool check config", r.returncode == 0, r.stdout + r.stderr)

    dash = json.load(open(os.path.join(OBS, "grafana", "dashboards", "quote-lab.json")))
    ds_yaml = open(os.path.join(OBS, "grafana", "provisioning", "datasources", "prometheus.yml")).read()
    ds_uid = re.search(r"^\s*uid:\s*([\w-]+)", ds_yaml, re.M).group(1)
    time_interval_s = duration_s(re.search(r"^\s*timeInterval:\s*(\S+)", ds_yaml, re.M).group(1))
    check("dashboard title", dash.get("title") == "Quote lab — legacy vs resilient", dash.get("title"))
    panels = dash["panels"]
    exprs = []
    for p in panels:
        check(f"panel '{p['title']}' uses the provisioned data source",
              p.get("datasource", {}).get("uid") == ds_uid and all(t.get("datasource", {}).get("uid") == ds_uid for t in p["targets"]),
              json.dumps(p.get("datasource")))
        check(f"panel '{p['title']}' has a description", len(p.get("description", "")) > 30, p.get("description"))
        exprs += [(p["title"], t["expr"], grafana_variables(dash, p, t, time_interval_s)) for t in p["targets"]]
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

    # --- the lab's exposition
    status, exposition = get(lab + "/metrics-prometheus")
    r = subprocess.run(["promtool", "check", "metrics"], input=exposition, capture_output=True)
    check("promtool check metrics", r.returncode == 0, (r.stdout + r.stderr).decode()[-800:])
    req = urllib.request.Request(lab + "/metrics", headers={"Accept": "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"})
    with urllib.request.urlopen(req) as resp:
        check("/metrics negotiates Prometheus text", resp.headers["Content-Type"].startswith("text/plain"), resp.headers["Content-Type"])
    for line in exposition.decode().splitlines():
        if line.startswith("# HELP "):
            name, help_text = line[7:].split(" ", 1)
            check(f"HELP of {name} is a sentence", len(help_text) > 25, help_text)

    stack.wait_for_first_scrape()
    job, scrape_interval_s, _ = stack.target()
    check("the data source's timeInterval is Prometheus's scrape interval", time_interval_s == scrape_interval_s,
          f"timeInterval {time_interval_s} s, scrape_interval {scrape_interval_s} s")

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

    def concrete(expr, variables):
        for name, seconds in variables.items():
            expr = expr.replace(name, promql_duration(seconds))
        return expr

    def panel_query(expr, variables):
        """What the panel shows now: its time range, a point every $__interval."""
        end = time.time()
        return stack.query_range(concrete(expr, variables), end - variables["$__range"], end, variables["$__interval"])

    # Prometheus has scraped all of that traffic (46 resilient flows), and the series the
    # last request created (the 400) twice, so that every rate() has its two samples.
    def scraped_everything():
        total = by(stack.query('sum(quote_lab_quote_requests_total{mode="resilient"})'))
        last = by(stack.query('count_over_time(quote_lab_http_requests_total{route="/quote-legacy",code="400"}[1m])'))
        return total == [46.0] and last and last[0] >= 2
    eventually(scraped_everything, 20)

    # --- every dashboard expression returns data, as Grafana asks for it
    answers = {}
    for title, expr, variables in exprs:
        data = panel_query(expr, variables)
        answers[expr] = series(data)
        check(f"query of '{title}' runs", data.get("status") == "success", f"{concrete(expr, variables)}: {data.get('error')}")
        check(f"query of '{title}' returns data", any(answers[expr].values()), concrete(expr, variables))
    rate_windows = sorted({promql_duration(v["$__rate_interval"]) for _, _, v in exprs})

    def answer(fragment, **labels):
        """The points of the series of the first query containing `fragment` that carry `labels`."""
        found = next(d for e, d in answers.items() if fragment in e)
        return [x for k, points in found.items() if all((n, l) in k for n, l in labels.items()) for x in points]

    # --- and the data tells the course's story
    legacy_p95 = answer('histogram_quantile(0.95, sum by (le) (rate(quote_lab_quote_duration_seconds_bucket{mode="legacy"}')
    resilient_p95 = answer('histogram_quantile(0.95, sum by (le) (rate(quote_lab_quote_duration_seconds_bucket{mode="resilient"}')
    check("legacy p95 reaches 1.4 s", max(legacy_p95, default=0) > 1.4, legacy_p95)
    check("resilient p95 stays below 0.6 s", max(resilient_p95, default=9) < 0.6, resilient_p95)
    down_legacy = answer("sum by (le, mode, scenario)", mode="legacy", scenario="provider_down")
    check("legacy provider_down p95 reaches 1.4 s", max(down_legacy, default=0) > 1.4, down_legacy)
    # Legacy sends 4 carrier calls per provider_down request, and 1 per ok request (4 when
    # the storm has filled the carrier: its hung calls hold every worker). Resilient sends
    # at most its 2 attempts (flaky_provider: a timeout, then the answer), and none once
    # its breaker is open: over a window as short as Grafana's these are the figures the
    # panel draws, not an average over all the traffic.
    legacy_amp = answer('outcome!="short_circuit"', mode="legacy")
    resilient_amp = answer('outcome!="short_circuit"', mode="resilient")
    check("carrier calls per legacy request reach 4", legacy_amp and 3.2 <= max(legacy_amp) <= 4.2, legacy_amp)
    check("resilient: at most 2 carrier calls per request, none once the breaker is open",
          resilient_amp and max(resilient_amp) <= 2.0 and resilient_amp[-1] == 0.0, resilient_amp)
    print(f"measured: $__rate_interval {', '.join(rate_windows)}; legacy p95 up to {max(legacy_p95, default=0):.3f} s, "
          f"resilient p95 up to {max(resilient_p95, default=0):.3f} s, carrier calls per request legacy up to "
          f"{max(legacy_amp, default=0):.2f}, resilient up to {max(resilient_amp, default=0):.2f}", flush=True)
    open_now = answer("quote_lab_breaker_state", state="open")
    check("breaker shows open", open_now and open_now[-1] == 1.0, open_now[-5:])
    shorts = answer('outcome="short_circuit"', mode="resilient")
    check("short-circuits counted", max(shorts, default=0) > 0, shorts)
    fallbacks = answer("quote_lab_fallbacks_total", mode="resilient")
    check("fallbacks counted", max(fallbacks, default=0) > 0, fallbacks)
    check("legacy failures in the outcome mix", max(answer("sum by (mode, status)", mode="legacy", status="failed"), default=0) > 0)
    check("a 400 appears by route template", answer("quote_lab_http_requests_total", route="/quote-legacy", code="400") != [])
    opens = answer("quote_lab_breaker_transitions_total", **{"from": "closed", "to": "open"})
    check("closed -> open transition counted", opens and opens[-1] >= 1, opens[-5:])
    stack.failed = bool(checks.failures)
finally:
    stack.close()
checks.exit()
