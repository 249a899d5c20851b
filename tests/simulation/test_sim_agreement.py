#!/usr/bin/env python3
"""The simulation agrees with the live lab: every line of docs/amplification.md's policies
table (recorded live by `python3 bench/amplification.py`, each line's storm command beside its
figure) is run again as `quote-lab simulate` with the same flags and seed 1, and its carrier
calls per request must be within 10 % of the live figure or 0.05, whichever is larger
(docs/simulation.md says why a line may differ at all). A second run with the same seed must
print the same JSON, byte for byte.
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
sys.exit(1 if failures else 0)
