#!/usr/bin/env python3
"""`quote-lab herd --model occ --clients 100 --json`, as a user runs it (the article's 100
runs), reproduces the figures of ../shared/NOTES-herd-occ.md within 10 %; options of the
other model are refused. The unit test (test_herd_occ.cpp) checks 20 runs to stay fast
under the sanitizers; this one checks the command's own output.
Usage: test_herd_occ_cli.py <quote-lab binary>"""
import json
import pathlib
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures  # noqa: E402

binary = sys.argv[1]


def herd(*args):
    return subprocess.run([binary, "herd", *args], capture_output=True, text=True, timeout=300)


started = time.monotonic()
run = herd("--model", "occ", "--clients", "100", "--json")
print(f"herd --model occ --clients 100 --json: {time.monotonic() - started:.1f} s")
check(run.returncode == 0, f"exit 0 (got {run.returncode}: {run.stderr.strip()})")
rows = {r["strategy"]: r for r in json.loads(run.stdout)} if run.returncode == 0 else {}
check(list(rows) == ["none", "exponential", "full", "equal", "decorrelated"], f"the five strategies in order: {list(rows)}")
if rows:
    for r in rows.values():
        check(set(r) == {"strategy", "calls", "completion_s", "calls_vs_exponential", "completion_vs_exponential"},
              f"{r['strategy']}: calls, completion_s and the ratios to exponential")
    expected = {"full": 0.43, "equal": 0.44, "decorrelated": 0.54, "none": 1.31}
    for name, ratio in expected.items():
        got = rows[name]["calls_vs_exponential"]
        check(abs(got - ratio) <= 0.10 * ratio, f"{name}: calls {got} × exponential's, expected {ratio} ± 10 %")
    times = rows["exponential"]["completion_s"] / rows["full"]["completion_s"]
    check(abs(times - 13.1) <= 1.31, f"exponential takes {times:.1f}× full jitter's time, expected 13.1 ± 10 %")

for args, words in [
        (["--model", "occ", "--capacity", "3"], "--capacity applies to --model carrier only"),
        (["--runs", "5"], "--runs applies to --model occ only"),
        (["--model", "occ", "--clients", "1001"], "clients must be 1-1000"),
        (["--model", "nope"], "--model"),
]:
    bad = herd(*args)
    check(bad.returncode == 2 and words in bad.stderr, f"herd {' '.join(args)}: exit 2 and '{words}' (got {bad.returncode}: {bad.stderr.strip()[:120]})")

sys.exit(1 if failures else 0)
