#!/usr/bin/env python3
"""`quote-lab simulate` as a user runs it: a policy of their own from a file, the report, and a
refusal that names what is at fault (exit 2 for the command's flags, 1 for a policies file the
lab refuses, each problem on stderr).
Usage: test_simulate_cli.py <quote-lab binary> <project dir>"""
import json
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures  # noqa: E402

binary, project = sys.argv[1], pathlib.Path(sys.argv[2])


def simulate(*args):
    return subprocess.run([binary, "simulate", *args], capture_output=True, text=True, timeout=60, cwd=project)


with tempfile.TemporaryDirectory() as folder:
    one = pathlib.Path(folder) / "mine.json"
    one.write_text(json.dumps({"mine": {"pipeline": [
        {"strategy": "fallback"}, {"strategy": "retry", "max_attempts": 3, "backoff_base_ms": 0, "backoff_max_ms": 0,
                                   "jitter": "none"},
        {"strategy": "timeout", "timeout_ms": 200}]}}))
    run = simulate("--policy", str(one), "--scenario", "provider_down", "--clients", "5", "--requests", "50",
                   "--seed", "1", "--json")
    check(run.returncode == 0, f"a file with one policy of its own is simulated (exit {run.returncode}: {run.stderr.strip()})")
    if run.returncode == 0:
        report = json.loads(run.stdout)
        check(report["mode"] == "mine", f"the report names the file's policy: {report['mode']}")
        check(report["amplification"] == 3, f"its 3 attempts against a carrier that never answers: {report['amplification']}")
        check(report["status_counts"] == {"degraded": 50}, f"its fallback answers: {report['status_counts']}")
        check(report["target"] == "simulated" and report["health_latency_ms"]["samples"] == 0,
              "the report says it was simulated, with no /health measured")

    run = simulate("--scorecard", "--policy", str(one), "--json")
    check(run.returncode == 0, f"a design's scorecard (exit {run.returncode}: {run.stderr.strip()})")
    if run.returncode == 0:
        card = json.loads(run.stdout)
        check(card["policy"] == "mine" and [r["run"] for r in card["runs"]] ==
              ["provider_down", "tail_latency", "rate_limited", "capacity_drop", "overloaded_fifo"],
              f"the five runs of the battery, in order: {[r['run'] for r in card['runs']]}")
        check(card["against"] == {"legacy": 0.0, "resilient": 41.8}, f"beside legacy's and resilient's scores: {card['against']}")
        check(card["runs"][0]["calls_per_quote"] == 3 and card["runs"][0]["legacy"]["calls_per_quote"] == 4,
              "each run's figures beside legacy's")
    run = simulate("--scorecard", "--policy", "throttled")
    check(run.returncode == 0 and run.stdout.startswith("scorecard of throttled: ") and "recovered after the trigger" in run.stdout,
          f"the text scorecard: {run.stdout[:80]!r}")
    run = simulate("--scorecard", "--policy", "throttled", "--scenario", "ok")
    check(run.returncode == 2 and "--scenario does not apply to --scorecard" in run.stderr,
          f"a load flag with --scorecard is refused: {run.stderr.strip()}")

    bad = pathlib.Path(folder) / "bad.json"
    bad.write_text(json.dumps({"mine": {"pipeline": [{"strategy": "timeout", "timeout_ms": 200},
                                                     {"strategy": "retry", "max_attempts": 3}]}}))
    run = simulate("--policy", str(bad), "--scenario", "provider_down", "--seed", "1")
    check(run.returncode == 1 and "retry" in run.stderr and "timeout" in run.stderr,
          f"a misordered pipeline is refused naming the strategies at fault (exit {run.returncode}: {run.stderr.strip()})")

run = simulate("--policy", "resilent", "--scenario", "provider_dwn", "--seed", "1")
check(run.returncode == 2, f"an unknown policy and scenario: exit 2 (got {run.returncode})")
check("did you mean 'resilient'?" in run.stderr and "did you mean 'provider_down'?" in run.stderr,
      f"each named with the nearest: {run.stderr.strip()}")
run = simulate("--policy", "legacy", "--scenario", "provider_down")
check(run.returncode == 2 and "--seed" in run.stderr, f"no seed: exit 2 naming --seed ({run.stderr.strip()})")
run = simulate("--policy", "legacy", "--scenario", "provider_down", "--seed", "1", "--clients", "5", "--rate", "10")
check(run.returncode == 2 and "exclude each other" in run.stderr, f"--rate with --clients: {run.stderr.strip()}")
run = simulate("--policy", "legacy", "--scenario", "provider_down", "--seed", "1", "--param", "max_attempts=99")
check(run.returncode == 2 and "max_attempts must be an integer between 1 and 10 (got '99')" in run.stderr,
      f"an override out of range names its range: {run.stderr.strip()}")
run = simulate("--policy", "legacy", "--scenario", "provider_down", "--seed", "1", "--requests", "0")
check(run.returncode == 2 and "--requests must be between 1 and 1000000" in run.stderr,
      f"--requests 0 is refused, not run as the default duration: {run.stderr.strip()}")
run = simulate("--policy", "legacy", "--scenario", "provider_down", "--seed", "-1")
check(run.returncode == 2 and "--seed must be a whole number" in run.stderr, f"a negative seed: {run.stderr.strip()}")
run = simulate("--policy", "legacy", "--scenario", "provider_down", "--seed", "1", "--rate", "2000", "--duration", "3600")
check(run.returncode == 2 and "--rate × --duration must be at most 1000000" in run.stderr,
      f"an open loop beyond the bound is refused before it runs: {run.stderr.strip()}")
run = simulate("--policy", "resilient", "--scenario", "provider_down", "--seed", "1", "--clients", "50",
               "--duration", "3600")
check(run.returncode == 1 and "reached 1000000 quotes before its duration ended" in run.stderr,
      f"a closed loop that would outgrow the bound stops with an error: {run.stderr.strip()}")
run = simulate("--policy", str((project / "docs").resolve()), "--scenario", "provider_down", "--seed", "1")
check(run.returncode == 1 and "is a folder, not a policies file" in run.stderr, f"a folder as --policy: {run.stderr.strip()}")
sys.exit(1 if failures else 0)
