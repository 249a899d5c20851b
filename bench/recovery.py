"""How the metastability map judges one open-loop run, and the two bounds it checks. Pure
functions (no lab, no I/O), tested by tests/experiments/test_bench_recovery.py.

A run is one storm's per-second timeline: the arrivals offered in each second and the goodput
(answers that were useful within the deadline) in each. The carrier's trigger ends at a whole
second; the run recovered `k` seconds after it when second `end + k` starts the first run of
`run_s` healthy seconds in a row (goodput ≥ `share` of that second's arrivals). A collapse
after that is another episode (on a shared 2-core machine a burst of other work can time out
a call and open a breaker), not a failure to recover from this trigger. A run with no such
second within the timeline never recovered (within the observation window)."""
import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Judgement:
    """The judgement's settings, stated in the document: `share` of the offered load for
    `run_s` seconds in a row."""
    share: float = 0.9
    run_s: int = 2


def healthy_seconds(goodput, arrivals, share):
    """One bool per second: goodput reached `share` of that second's arrivals (a second
    without arrivals is healthy: nothing was asked)."""
    return [g >= share * a for g, a in zip(goodput, arrivals)]


def recovered_after_s(goodput, arrivals, trigger_end_s, judgement=Judgement()):
    """Whole seconds from the trigger's end (second `trigger_end_s` of the timeline, 0-based,
    rounded up) to the first of `run_s` healthy seconds in a row, or None: never within the
    timeline."""
    healthy = healthy_seconds(goodput, arrivals, judgement.share)
    start, run = math.ceil(trigger_end_s), judgement.run_s
    return next((s - start for s in range(start, len(healthy) - run + 1) if all(healthy[s:s + run])), None)


def theorem2_bound_rps(capacity_rps, worst_amplification):
    """Below this offered load the system cannot be metastable: even when every request makes
    its worst-case number of calls (`worst_amplification`, e.g. 4 attempts for legacy) the
    carrier serves more than it is sent, so any backlog drains. Huang et al., "Metastable
    Failures in the Wild", OSDI '22, Theorem 2: capacity ÷ worst-case amplification."""
    return capacity_rps / worst_amplification


def bronson_bound_rps(capacity_rps, retries):
    """Where stability ends with `retries` retries per request: capacity ÷ (1 + retries).
    Bronson et al., "Metastable Failures in Distributed Systems", HotOS '21: a database of
    300 QPS with clients that retry once is stable only below 150 QPS."""
    return capacity_rps / (1 + retries)
