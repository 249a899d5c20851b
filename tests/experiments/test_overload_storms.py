#!/usr/bin/env python3
"""The overload policies on the real lab at its defaults, stormed as a student or an
engineer storms them (`quote-lab storm`), against the figures their issue asks:
- `throttled` against carrier_offline (every call refused): once its 10 s window has filled,
  at most 0.15 carrier calls per quote; resilient without a breaker makes exactly 2;
- `hedged` on provider_down: its hedges stay within the budget (15 % of requests + 1 a second
  over 10 s). Its p99 cut on tail_latency is tests/simulation/test_live_recordings.py's (20,000
  quotes an arm against docs/hedging-tail.md's recording);
- `bulkhead` (legacy's retries behind 4 places): a 50-client provider_down storm leaves
  /health p99 under 50 ms and resilient `ok` quotes at a p50 under 300 ms; the same storm on
  legacy takes every worker (the lesson's exhaustion: resilient's p50 over 300 ms);
- `adaptive_limit` against a carrier of 40 workers (its capacity: a call beyond them waits in
  its queue), open-loop at 400 quotes/s (about 1.3 × the ~300/s that 40 places of ~132 ms
  serve): the lab's calls in flight average within 20 % of 40 once minRTT is measured.
  Envoy's gradient settles where limit = capacity + √limit (40 + 6.8 ≈ 47, 117 %), so the
  20 % holds from a capacity of about 36 up; at 32 it would be 38.1 against a bound of 38.4,
  which a correct lab misses on a loaded machine. The lab gets 64 workers so that its own 16
  are not the limit. Measured here: 43.4–43.8 (109 %) beside two compiling helpers, 46.5 (116 %)
  in ctest beside them: the lab's own CPU time adds to minRTT and sampleRTT alike
  and lifts the ratio. With Envoy's 25 % buffer it is 56.3 (141 %).
Each storm runs once; a check that misses fails (no second try).
Usage: test_overload_storms.py <quote-lab binary>"""
import json
import pathlib
import re
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures  # noqa: E402
from lab_http import running_lab  # noqa: E402

BINARY = sys.argv[1]


def storm(url, mode, scenario, *args):
    """The --json result of one storm (None when it printed none)."""
    out = subprocess.run([BINARY, "storm", "--target", url, "--mode", mode, "--scenario", scenario, "--json",
                          "--settle-s", "1", *args], capture_output=True, text=True, timeout=300)
    try:
        return json.loads(out.stdout)
    except ValueError:
        print(out.stderr[-2000:])
        return None


def beside(fn):
    """Runs fn() on a thread; returns a function that waits for it and gives its result."""
    box = {}
    t = threading.Thread(target=lambda: box.update(r=fn()))
    t.start()
    return lambda: (t.join(), box.get("r"))[1]


with running_lab(BINARY, log_tail_on=lambda: bool(failures)) as lab:
    # throttled: the first storm fills the window; the second is what it sends once full.
    storm(lab.url, "throttled", "carrier_offline", "--clients", "10", "--duration", "10")
    full = storm(lab.url, "throttled", "carrier_offline", "--clients", "10", "--duration", "5")
    per_quote = full["carrier_calls"] / full["requests"] if full else None
    check(per_quote is not None and per_quote <= 0.15,
          f"throttled, window full: {per_quote} carrier calls per quote (at most 0.15; {full and full['requests']} quotes)")
    check(full is not None and set(full["status_counts"]) == {"degraded"}, "...and every quote served the fallback")
    plain = storm(lab.url, "resilient", "carrier_offline", "--param", "circuit_breaker=false", "--clients", "10",
                  "--requests", "200")
    check(plain is not None and plain["amplification"] == 2.0,
          f"resilient without its breaker: 2 carrier calls per quote (got {plain and plain['amplification']})")

with running_lab(BINARY, log_tail_on=lambda: bool(failures)) as lab:
    down = storm(lab.url, "hedged", "provider_down", "--clients", "12", "--duration", "10")
    if down:
        hedges = down["carrier_received"] - down["requests"]
        budget = 0.15 * down["requests"] + 1 * (down["elapsed_s"] + 10)
        check(0 < hedges <= budget, f"hedged on provider_down: {hedges} hedges for {down['requests']} quotes, within "
                                    f"the budget ({budget:.0f}: 15 % of requests + 1 a second)")
    else:
        check(False, "the provider_down storm reported")

CAPACITY = 40
with running_lab(BINARY, ["--workers", "64", "--carrier-workers", str(CAPACITY)],
                 log_tail_on=lambda: bool(failures)) as lab:
    series = re.compile(r'^quote_lab_concurrency_in_flight\{mode="adaptive_limit"\} (\S+)$', re.M)
    samples = []

    def sample_in_flight():
        started = time.monotonic()
        while time.monotonic() - started < 13:
            text = urllib.request.urlopen(lab.url + "/metrics-prometheus", timeout=10).read().decode()
            found = series.search(text)
            if found and time.monotonic() - started >= 5:  # minRTT measured, the limit grown
                samples.append(float(found.group(1)))
            time.sleep(0.1)

    sampler = beside(sample_in_flight)
    limited = storm(lab.url, "adaptive_limit", "ok", "--rate", "400", "--duration", "14")
    sampler()
    mean = sum(samples) / len(samples) if samples else None
    check(mean is not None and 0.8 * CAPACITY <= mean <= 1.2 * CAPACITY,
          f"adaptive_limit against {CAPACITY} carrier places: {mean and round(mean, 1)} calls in flight on average "
          f"(within 20 %: {0.8 * CAPACITY:.1f}–{1.2 * CAPACITY:.1f}; {len(samples)} samples)")
    check(limited is not None and limited["status_counts"].get("completed", 0) > 0,
          "...and it served live quotes, the rest refused at once (concurrency_limit) and answered by the fallback")

for mode, fenced in (("bulkhead", True), ("legacy", False)):
    with running_lab(BINARY, log_tail_on=lambda: bool(failures)) as lab:
        heavy = beside(lambda: storm(lab.url, mode, "provider_down", "--clients", "50", "--duration", "12"))
        time.sleep(2)  # the storm holds what it can hold
        others = storm(lab.url, "resilient", "ok", "--clients", "2", "--duration", "6")
        result = heavy()
        health = result and result["health_latency_ms"]["p99"]
        p50 = others and others["latency_ms"]["p50"]
        if fenced:
            check(health is not None and health < 50, f"bulkhead storm: /health p99 {health} ms (under 50)")
            check(p50 is not None and p50 < 300, f"...resilient ok quotes beside it: p50 {p50} ms (under 300)")
            check(result is not None and result["status_counts"].get("failed", 0) > 0,
                  "...the quotes beyond its 4 places are refused at once (503, bulkhead_full)")
        else:
            check(p50 is None or p50 >= 300,
                  f"the same storm on legacy takes every worker: resilient ok quotes p50 {p50} ms (300 or more)")

sys.exit(1 if failures else 0)
