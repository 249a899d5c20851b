#!/usr/bin/env python3
"""The live recordings the simulation is compared with still hold: their commands, run again
against a lab of today's build, give the recorded figures. Slow: these are real storms.

  amplification  every line of docs/amplification.md's policies table, its exact storm command
                 against one lab (reset before each line), within 10 % of the recorded carrier
                 calls per request or 0.05, whichever is larger (test_sim_agreement.py's bound);
                 hedged's line, which the machine's timing moves, within its budget's bounds.
                 About 70 s.
  hedging        bench/hedging_tail.py with 20,000 quotes per arm instead of the recording's
                 200,000 (about 50 s): its p99 cut within 5 points of docs/hedging-tail.md's.
                 Over 20,000 quotes the cut spreads about ±1 point (the simulation's spread over
                 seeds): 5 points is one a correct lab cannot miss, and hedging that stopped
                 working (a cut near 0) cannot pass. Its hedges cost at most 12 % more carrier
                 calls (a p90 hedge is due for 10 %).

Usage: test_live_recordings.py amplification|hedging <quote-lab binary> <project dir> <scratch dir>"""
import pathlib
import re
import shlex
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures  # noqa: E402

what, binary, project, scratch = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]), pathlib.Path(sys.argv[4])
sys.path.insert(0, str(project / "bench"))
from labrun import Lab  # noqa: E402


def amplification():
    doc = (project / "docs" / "amplification.md").read_text(encoding="utf-8")
    table = doc.split("## Políticas lado a lado", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| ([^|]+) \| `build/quote-lab storm ([^`]+)` \| [^|]+ \| \*\*([0-9.]+)\*\*", table, re.M)
    check(len(rows) >= 10, f"the policies table has its lines (found {len(rows)})")
    with Lab(binary) as lab:
        for line, storm_args, recorded in rows:
            code, result, err = lab.storm(shlex.split(storm_args))
            check(code == 0 and result is not None, f"{line}: the storm runs (exit {code}: {err})")
            if not result:
                continue
            recorded = float(recorded)
            got = result["amplification"]
            if "--mode hedged" in storm_args:
                # How many hedges go depends on how many quotes arrive while the delay is still
                # the fixed 300 ms (its first 50 samples; then every call's 1500 ms timeout is
                # the p90 and nothing is hedged), and that is the machine's timing: 1.21-1.35
                # in CI beside other storms. What holds on any machine: hedges go (over 1.05)
                # and stay within the budget, 15 % of the requests plus 1 a second over the
                # storm and the 10 s window (1 + 0.15 + (15 + 10) / 100 = 1.40).
                check(1.05 < got <= 1.40, f"{line}: {got:.2f} carrier calls per request today, {recorded:.2f} "
                                          f"recorded (hedges go, within the budget: over 1.05, at most 1.40)")
                continue
            allowed = max(0.05, 0.1 * recorded)
            check(abs(got - recorded) <= allowed,
                  f"{line}: {got:.2f} carrier calls per request today, {recorded:.2f} recorded (within {allowed:.2f})")


def hedging():
    recorded = re.search(r"\*\*p99 cut: ([0-9.]+) %\*\*",
                         (project / "docs" / "hedging-tail.md").read_text(encoding="utf-8"))
    check(recorded is not None, "docs/hedging-tail.md gives its p99 cut")
    out = scratch / "hedging-tail.md"
    run = subprocess.run([sys.executable, str(project / "bench" / "hedging_tail.py"), "--binary", binary,
                          "--requests", "20000", "--out", str(out)], capture_output=True, text=True, timeout=600)
    print(run.stdout.strip())
    check(run.returncode == 0, f"bench/hedging_tail.py exits 0 (got {run.returncode}: {run.stderr.strip()[-400:]})")
    today = re.search(r"\*\*p99 cut: ([0-9.]+) %\*\*", out.read_text(encoding="utf-8")) if out.exists() else None
    check(today is not None, "today's run gives its p99 cut")
    if recorded and today:
        check(abs(float(today.group(1)) - float(recorded.group(1))) <= 5,
              f"hedging cuts the p99 by {today.group(1)} % today, {recorded.group(1)} % recorded (within 5 points)")
        # | hedged: ... | `build/quote-lab storm ... --mode hedged ...` | p50 | p95 | **p99** | max | calls per quote |
        calls = re.search(r"--mode hedged[^`]*` \|(?: [^|]+ \|){4} ([0-9.]+) \|", out.read_text(encoding="utf-8"))
        check(calls is not None and float(calls.group(1)) <= 1.12,
              f"...for at most 12 % more carrier calls (got {calls and calls.group(1)} per quote)")


{"amplification": amplification, "hedging": hedging}[what]()
sys.exit(1 if failures else 0)
