"""Reading a goodput-vs-offered-load curve: where its knee is, whether it collapses past it,
and how two carrier disciplines compare at one load. Pure functions (no lab, no I/O), tested
by tests/experiments/test_bench_goodput_curve.py.

A curve is a list of (offered_rps, goodput_rps), one per open-loop run, in any order."""
from dataclasses import dataclass

# Goodput that keeps within this share of the offered load is still tracking it.
TRACKS = 0.9
# Goodput at the highest offered load below this share of the curve's peak has collapsed.
COLLAPSED = 0.5


@dataclass(frozen=True)
class Knee:
    knee_rps: float | None     # the highest offered rate up to which goodput tracked it; None: never did
    peak_goodput_rps: float
    last_goodput_rps: float    # at the highest offered rate
    collapses: bool            # past the knee, goodput fell below COLLAPSED of its peak
    top_rps: float = 0         # the highest offered rate run


def knee(curve):
    """The curve's knee: the highest offered rate up to which every run's goodput was at least
    TRACKS of what was offered; whether goodput at the highest offered rate fell below
    COLLAPSED of the peak (a collapse, the congestion-collapse shape) or held (it saturates)."""
    points = sorted(curve)
    knee_rps = None
    for offered, goodput in points:
        if goodput < TRACKS * offered:
            break
        knee_rps = offered
    peak = max((g for _, g in points), default=0.0)
    last = points[-1][1] if points else 0.0
    top = points[-1][0] if points else 0.0
    return Knee(knee_rps, peak, last, peak > 0 and last < COLLAPSED * peak, top)


def goodput_at(curve, offered_rps):
    """The goodput of the run offered `offered_rps` (exactly one run must have it)."""
    found = [g for o, g in curve if abs(o - offered_rps) < 1e-9]
    if len(found) != 1:
        raise ValueError(f"{len(found)} runs at {offered_rps} rps")
    return found[0]


def beats(curves, policy, at_rps, better=("codel", "lifo"), than="fifo", factor=2.0):
    """Whether some discipline of `better` kept the carrier's goodput at least `factor` × that
    of `than` at `at_rps` for `policy`: (holds, the best discipline, its goodput, `than`'s).
    `curves` maps (policy, discipline) → curve."""
    base = goodput_at(curves[(policy, than)], at_rps)
    best = max(better, key=lambda d: goodput_at(curves[(policy, d)], at_rps))
    got = goodput_at(curves[(policy, best)], at_rps)
    return got >= factor * base and got > 0, best, got, base


def describe_knee(k, capacity_rps):
    """"knee at 50 rps (1.0× capacity); collapses past it: 2 rps at the highest load, peak 48"."""
    if k.knee_rps is None:
        where = "no knee: goodput never tracked the offered load"
    elif k.knee_rps == k.top_rps:
        return f"no knee: tracks the offered load up to the highest rate run ({k.top_rps:g} rps, {k.last_goodput_rps:.1f} rps of goodput)"
    else:
        where = f"knee at {k.knee_rps:g} rps ({k.knee_rps / capacity_rps:.2g}× capacity)"
    shape = "**collapses** past it" if k.collapses else "holds past it"
    return f"{where}; {shape}: {k.last_goodput_rps:.1f} rps at the highest load, peak {k.peak_goodput_rps:.1f}"
