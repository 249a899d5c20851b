#!/usr/bin/env python3
"""The goodput curves in simulated time agree with the live ones: `bench/goodput.py --sim` (the
same runs as docs/goodput.md's, as `quote-lab simulate`) writes its document, and each policy's
knee on each carrier queue, for goodput and for live quotes, must be within 10 % of the live
document's (recorded by `python3 bench/goodput.py`), with the same verdict past it (collapses or
holds) and the same "no knee".

One cell differs, and docs/simulation.md says why: resilient's live quotes behind a FIFO queue
(live 37.5 rps, simulated 25), where the knee is when its breaker first opens, which depends
on when the first calls time out. It is checked to differ no more than that, so a new
difference, or this one growing, fails.
Usage: test_curves_agree.py <python3 with matplotlib> <quote-lab binary> <project dir> <out.md>"""
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures  # noqa: E402

python, binary, project, out = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]), pathlib.Path(sys.argv[4])
# (policy, queue, column) -> (live knee, simulated knee): the documented difference.
KNOWN = {("resilient", "fifo", "live quotes"): (37.5, 25.0)}


def knees(text):
    """{(policy, queue, column): (knee rps or None, collapses)} from a goodput document's knee table."""
    table = text.split("## El codo de cada política", 1)[1].split("\n## ", 1)[0]
    found = {}
    for policy, queue, *cells in re.findall(r"^\| (\w+) \| (\w+) \| ([^|]+) \| ([^|]+) \|$", table, re.M):
        for column, cell in zip(("goodput", "live quotes"), cells):
            knee = re.search(r"knee at ([0-9.]+) rps", cell)
            found[(policy, queue, column)] = (float(knee.group(1)) if knee else None, "**collapses**" in cell)
    return found


run = subprocess.run([python, str(project / "bench" / "goodput.py"), "--sim", "--parallel", "2", "--binary", binary,
                      "--out", str(out)], capture_output=True, text=True, timeout=120)
check(run.returncode == 0, f"bench/goodput.py --sim exits 0 (got {run.returncode}: {run.stderr.strip()[-400:]})")
live = knees((project / "docs" / "goodput.md").read_text(encoding="utf-8"))
simulated = knees(out.read_text(encoding="utf-8")) if out.exists() else {}
check(len(live) >= 18 and set(simulated) == set(live),
      f"both documents have the same {len(live)} knees (policy × queue × goodput or live quotes)")
for cell, (live_knee, live_collapses) in sorted(live.items()):
    sim_knee, sim_collapses = simulated.get(cell, (None, None))
    name = " ".join(cell)
    if cell in KNOWN:
        check((live_knee, sim_knee) == KNOWN[cell], f"{name}: the documented difference, no more "
                                                    f"(live {live_knee}, simulated {sim_knee} rps)")
    elif live_knee is None or sim_knee is None:
        check(live_knee == sim_knee, f"{name}: no knee in both (live {live_knee}, simulated {sim_knee})")
    else:
        check(abs(sim_knee - live_knee) <= 0.1 * live_knee,
              f"{name}: knee at {sim_knee} rps simulated, {live_knee} live (within 10 %)")
    check(sim_collapses == live_collapses, f"{name}: {'collapses' if live_collapses else 'holds'} past it in both")
sys.exit(1 if failures else 0)
