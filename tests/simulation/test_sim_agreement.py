#!/usr/bin/env python3
"""The simulation agrees with the live lab: every line of docs/amplification.md's policies
table (recorded live by `python3 bench/amplification.py`, each line's storm command beside its
figure) is run again as `quote-lab simulate` with the same flags and seed 1, and its carrier
calls per request must be within 10 % of the live figure or 0.05, whichever is larger
(docs/simulation.md says why a line may differ at all). A second run with the same seed must
print the same JSON, byte for byte. Then docs/hedging-tail.md's p99 cut, within 3 points.
Usage: test_sim_agreement.py <quote-lab binary> <project dir>"""
import json
import pathlib
import re
import shlex
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures  # noqa: E402

binary, project = sys.argv[1], pathlib.Path(sys.argv[2])
doc = (project / "docs" / "amplification.md").read_text(encoding="utf-8")
table = doc.split("## Políticas lado a lado", 1)[1].split("\n## ", 1)[0]
# | what | `build/quote-lab storm ...` | expected | **0.01** (...) |
rows = re.findall(r"^\| ([^|]+) \| `build/quote-lab storm ([^`]+)` \| [^|]+ \| \*\*([0-9.]+)\*\*", table, re.M)
check(len(rows) >= 10, f"the policies table has its 10 lines (found {len(rows)})")


def simulate(storm_args):
    args = shlex.split(storm_args)
    args = ["--policy" if a == "--mode" else a for a in args]
    return subprocess.run([binary, "simulate", *args, "--seed", "1", "--json"], capture_output=True, text=True,
                          timeout=60, cwd=project)


started = time.monotonic()
for what, storm_args, live in rows:
    live = float(live)
    run = simulate(storm_args)
    check(run.returncode == 0, f"{what}: simulate exits 0 (got {run.returncode}: {run.stderr.strip()})")
    if run.returncode != 0:
        continue
    simulated = json.loads(run.stdout)["amplification"]
    allowed = max(0.05, 0.1 * live)
    check(abs(simulated - live) <= allowed,
          f"{what}: simulated {simulated:.2f} calls per request, live {live:.2f} (within {allowed:.2f})")
    again = simulate(storm_args)
    check(again.stdout == run.stdout, f"{what}: the same seed prints the same JSON")
print(f"{len(rows)} lines simulated twice in {time.monotonic() - started:.1f} s")

# Hedging's p99 cut on tail_latency: docs/hedging-tail.md's two storms (recorded live by
# `python3 bench/hedging_tail.py`, run at once against one lab with the serve flags it names),
# simulated with the same flags, the lab's workers and seed 1; the cut within 3 points.
started = time.monotonic()
doc = (project / "docs" / "hedging-tail.md").read_text(encoding="utf-8")
serve = re.search(r"`build/quote-lab serve ([^`]*)`", doc)
arms = re.findall(r"^\| ([^|]+) \| `build/quote-lab storm ([^`]+)` \| [^|]+ \| [^|]+ \| \*\*([0-9.]+)\*\* \|", doc, re.M)
live_cut = re.search(r"\*\*p99 cut: ([0-9.]+) %\*\*", doc)
check(serve and len(arms) == 2 and live_cut, "docs/hedging-tail.md has its lab, its two storms and its cut")
if serve and len(arms) == 2 and live_cut:
    p99 = []
    for what, storm_args, live in arms:
        run = simulate(f"{storm_args} {serve.group(1)}")
        check(run.returncode == 0, f"{what}: simulate exits 0 (got {run.returncode}: {run.stderr.strip()})")
        p99.append(json.loads(run.stdout)["latency_ms"]["p99"] if run.returncode == 0 else float("nan"))
        print(f"{what}: p99 {p99[-1]} ms simulated, {live} ms live")
    cut = 100 * (1 - p99[1] / p99[0])
    live_cut = float(live_cut.group(1))
    check(abs(cut - live_cut) <= 3,
          f"hedging cuts the p99 by {cut:.1f} % simulated, {live_cut:.1f} % live (within 3 points)")
    print(f"hedging's p99 cut simulated in {time.monotonic() - started:.1f} s")
sys.exit(1 if failures else 0)
