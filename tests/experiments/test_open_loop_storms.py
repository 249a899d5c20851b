#!/usr/bin/env python3
"""Open-loop storms (`quote-lab storm --rate R`) on a real `quote-lab serve`, as a user runs
them, against what their issue asks:
- `--rate 200 --duration 10` on a fast route offers 200 ± 5 % arrivals a second and reports
  it. The route: `resilient` on `carrier_offline` — its breaker opens after two refused
  calls and every later quote is its fallback in well under a millisecond. `ok` is not fast
  enough here: its quotes take 115-150 ms, so 200 a second need about 27 of the lab's 16
  workers (Little's law, 200 × 0.133 s) and would queue. `--seed 25` fixes the Poisson
  draws (its schedule has 2,000 arrivals in 10 s), so what is checked is the dispatcher,
  not the luck of a draw (the mean rate over many draws is a fast test).
- against a carrier whose capacity is below the offered load (`--carrier-workers 5`: 5 calls
  of 115-150 ms at a time, about 38 a second; the lab's other flags at their defaults),
  legacy's goodput falls to about nothing under an open loop of 100 arrivals a second while
  a closed loop at the storm's defaults (10 clients) keeps it. The closed loop offers what
  the carrier serves: 10 calls on 5 workers wait at most one call (≤ 300 ms, under legacy's
  360 ms timeout). The open loop does not slow down: 16 lab workers' calls on 5 carrier
  workers wait past the timeout, legacy retries 4 times, the abandoned calls stay queued at
  the carrier, and up to 100 requests wait for the lab's workers, seconds past the 2 s
  goodput deadline.
- the command line refuses --rate with --clients naming both, and open-loop flags without
  --rate.
Each storm runs once; a check that misses fails (no second try). About 45 s.
Usage: test_open_loop_storms.py <quote-lab binary>"""
import json
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures  # noqa: E402
from lab_http import running_lab  # noqa: E402

BINARY = sys.argv[1]


def storm(url, *args):
    """The --json result of one storm (None when it printed none)."""
    try:
        out = subprocess.run([BINARY, "storm", "--target", url, "--json", "--settle-s", "0", *args], capture_output=True,
                             text=True, timeout=90)
    except subprocess.TimeoutExpired:  # e.g. a dispatcher that waits for answers still owes its arrivals
        print(f"     the storm {args} did not end within 90 s")
        return None
    try:
        return json.loads(out.stdout)
    except ValueError:
        print(out.stderr[-2000:])
        return None


def refused(*args):
    """(exit code, stderr) of a storm the command line refuses before any request."""
    out = subprocess.run([BINARY, "storm", *args], capture_output=True, text=True, timeout=30)
    return out.returncode, out.stderr


def seconds(result, first, last):
    """Sum of the timeline's seconds first..last-1: (arrivals, useful)."""
    chosen = result["timeline"][first:last]
    return sum(s["arrivals"] for s in chosen), sum(s["useful"] for s in chosen)


code, err = refused("--rate", "10", "--clients", "5")
check(code == 2 and "--rate and --clients exclude each other" in err, f"--rate with --clients: exit {code}, {err.strip()}")
code, err = refused("--max-in-flight", "5")
check(code == 2 and "--max-in-flight applies to --rate only" in err, f"--max-in-flight alone: exit {code}, {err.strip()}")
code, err = refused("--rate", "5000")
check(code == 2 and "--rate must be between 0.1 and 2000 arrivals per second" in err, f"--rate 5000: exit {code}")

with running_lab(BINARY, log_tail_on=lambda: bool(failures)) as lab:
    fast = storm(lab.url, "--mode", "resilient", "--scenario", "carrier_offline", "--rate", "200", "--duration", "10",
                 "--seed", "25")
if fast:
    sent = fast["arrivals"] - fast["arrivals_not_sent"]
    print(f"     rate 200: {fast['arrivals']} arrivals in {fast['arrival_window_s']} s, {fast['arrivals_not_sent']} not "
          f"sent, dispatch lag p99 {fast['dispatch_lag_ms']['p99']} ms, latency p99 {fast['latency_ms']['p99']} ms")
    check(fast["load_model"] == "open" and fast["rate_per_s"] == 200.0, "the report says: open loop, 200 asked")
    check(190 <= fast["offered_rps"] <= 210, f"offered {fast['offered_rps']} arrivals/s (200 ± 5 %)")
    check(10 <= fast["arrival_window_s"] < 10.5, f"over {fast['arrival_window_s']} s (10 asked)")
    check(190 <= sent / fast["arrival_window_s"] <= 210, f"sent {sent / fast['arrival_window_s']:.1f}/s (200 ± 5 %)")
    check(fast["goodput_ratio"] >= 0.95, f"a fast route's answers are goodput: ratio {fast['goodput_ratio']}")
    check(len(fast["timeline"]) == 10 and sum(s["arrivals"] for s in fast["timeline"]) == fast["arrivals"],
          "the timeline has the 10 seconds and adds up to the arrivals")
else:
    check(False, "the rate-200 storm reported")

CAPACITY_5 = ["--carrier-workers", "5"]
with running_lab(BINARY, CAPACITY_5, log_tail_on=lambda: bool(failures)) as lab:
    closed = storm(lab.url, "--mode", "legacy", "--scenario", "ok", "--duration", "10")
with running_lab(BINARY, CAPACITY_5, log_tail_on=lambda: bool(failures)) as lab:
    opened = storm(lab.url, "--mode", "legacy", "--scenario", "ok", "--rate", "100", "--duration", "10", "--seed", "1")
if closed and opened:
    for name, r in (("closed", closed), ("open", opened)):
        print(f"     {name}: goodput per second {[s['useful'] for s in r['timeline']]}, arrivals "
              f"{[s['arrivals'] for s in r['timeline']]}, amplification {r['amplification']}")
    c_arrivals, c_useful = seconds(closed, 5, 10)
    check(closed["load_model"] == "closed" and closed["goodput_ratio"] >= 0.9,
          f"closed loop (10 clients): goodput ratio {closed['goodput_ratio']} (at least 0.9)")
    check(c_useful >= 0.8 * c_arrivals and c_useful >= 100,
          f"...and still {c_useful} useful answers of {c_arrivals} in its last 5 s (at least 80 % and 100)")
    o_first = opened["timeline"][0]["useful"]
    o_arrivals, o_useful = seconds(opened, 5, 10)
    check(90 <= opened["offered_rps"] <= 110,
          f"open loop: {opened['offered_rps']} arrivals/s offered while the lab fell behind (100 ± 10 %)")
    check(opened["arrivals_not_sent"] > 0, f"...{opened['arrivals_not_sent']} arrivals found 100 unanswered: not sent, counted")
    check(o_first >= 5, f"...its first second had {o_first} useful answers (the carrier's 5 workers were free)")
    check(o_arrivals >= 400 and o_useful <= 0.02 * o_arrivals,
          f"...its last 5 s: {o_useful} useful answers of {o_arrivals} arrivals (at least 400 arrivals, at most 2 % "
          f"useful): goodput fell to about nothing")
    check(opened["goodput_ratio"] < 0.1, f"...goodput ratio {opened['goodput_ratio']} (under 0.1)")
else:
    check(False, "both capacity-5 storms reported")

print(f"{len(failures)} check(s) failed" if failures else "all checks passed")
sys.exit(1 if failures else 0)
