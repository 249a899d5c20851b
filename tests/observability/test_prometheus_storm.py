#!/usr/bin/env python3
"""The observability plane never starves. A real Prometheus scrapes a lab at its
default settings (no --workers) with the repository's observability/prometheus.yml while
`quote-lab storm` runs 50 legacy `provider_down` clients against it. /health must queue
behind the storm (the worker-exhaustion lesson), yet every scrape of the storm window must
succeed (`up == 1`, none missing) and take far less than the scrape timeout: scrapes do
not wait for a quote worker.

Usage: test_prometheus_storm.py QUOTE_LAB_BINARY SOURCE_DIR   (exit 0 = all checks hold)"""
import json
import math
import subprocess
import sys
import time

from prom_stack import Checks, Stack, by, eventually

BINARY, SOURCE = sys.argv[1], sys.argv[2]
STORM_CLIENTS = 50
STORM_DURATION_S = 10  # clients start requests for this long; what queued behind the workers drains after

checks = Checks()
check = checks.check
stack = Stack(BINARY, SOURCE)
try:
    prom = stack.start_prometheus()
    prom.wait_for_first_scrape()
    job, interval_s, timeout_s = prom.target()
    up = f'up{{job="{job}"}}'

    started = time.time()
    storm = subprocess.run([BINARY, "storm", "--target", stack.lab, "--mode", "legacy", "--scenario", "provider_down",
                            "--clients", str(STORM_CLIENTS), "--duration", str(STORM_DURATION_S), "--settle-s", "0",
                            "--json"], capture_output=True, text=True, timeout=60)
    ended = time.time()
    result = json.loads(storm.stdout) if storm.returncode == 0 else {}
    check("the storm ran", storm.returncode == 0 and result.get("status_counts", {}).get("failed", 0) > 0,
          storm.stdout[-400:] + storm.stderr[-400:])
    # The lesson still shows: the storm holds every quote worker, so /health waits.
    health_p99_ms = (result.get("health_latency_ms") or {}).get("p99") or 0
    check("/health queues behind the storm (p99 above 500 ms)", health_p99_ms > 500, result.get("health_latency_ms"))

    # Prometheus has stored a scrape that started after the storm ended.
    eventually(lambda: (by(prom.query(f"timestamp({up})")) or [0])[0] >= ended, 5 * interval_s + 5)
    window = f"[{math.floor(ended - started)}s]"

    def at_end(expr):
        return (by(prom.query(expr, at=ended)) or [None])[0]

    samples = at_end(f"count_over_time({up}{window})")
    lowest = at_end(f"min_over_time({up}{window})")
    up_sum = at_end(f"sum_over_time({up}{window})")
    failed_scrapes = (samples or 0) - (up_sum or 0)
    slowest = at_end(f'max_over_time(scrape_duration_seconds{{job="{job}"}}{window})')
    median = at_end(f'quantile_over_time(0.5, scrape_duration_seconds{{job="{job}"}}{window})')
    expected = math.floor(ended - started) / interval_s
    check(f"a scrape every {interval_s:g} s through the storm (none missing)",
          samples is not None and samples >= expected - 1, f"{samples} samples, expected about {expected:g}")
    check("up == 1 at every scrape of the storm", lowest == 1.0, f"min(up) = {lowest}, {failed_scrapes:g} failed scrapes")
    # Under the timeout is what keeps up == 1; a sanitizer build on busy cores saw 0.32 s once.
    check(f"every scrape under the {timeout_s:g} s timeout",
          slowest is not None and slowest < timeout_s, f"max scrape {slowest} s")
    print(f"measured: storm {ended - started:.1f} s, {result.get('requests')} legacy requests, /health p99 "
          f"{health_p99_ms:.0f} ms; Prometheus (interval {interval_s:g} s, timeout {timeout_s:g} s): {samples and int(samples)} "
          f"scrapes of up, {failed_scrapes:g} failed, min(up) {lowest}, scrape duration p50 "
          f"{(median or 0) * 1000:.1f} ms, max {(slowest or 0) * 1000:.1f} ms", flush=True)
    stack.failed = bool(checks.failures)
finally:
    stack.close()
checks.exit()
