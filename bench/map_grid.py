"""The metastability map's points and the checks its document states. Pure functions (no lab,
no I/O), tested by tests/experiments/test_bench_map_grid.py.

A point is one open-loop run: a policy, a trigger (the carrier's capacity drops by `depth`,
a fraction, for `length_s` seconds) and an offered load (`load`, a fraction of the carrier's
capacity). An outcome is what bench/recovery.py judged of its run: seconds to recover after
the trigger, or None for never within the observation window."""
import itertools
from dataclasses import dataclass

from recovery import bronson_bound_rps, theorem2_bound_rps


@dataclass(frozen=True)
class Point:
    policy: str      # an overload_policies.Policy key
    depth: float     # capacity_drop: 0.8 leaves 20 % of the capacity during the trigger
    length_s: int    # the trigger's length
    load: float      # offered rate ÷ the carrier's capacity


def grid(policies, depths, lengths_s, loads):
    """Every combination, policy first, then load, depth and length (the document's order)."""
    return [Point(p, d, t, l) for p, l, d, t in itertools.product(policies, loads, depths, lengths_s)]


@dataclass(frozen=True)
class Fig5:
    """Huang et al. OSDI '22 Fig. 5's four rows for one policy: the critical trigger at the
    critical load never recovers; a shallower trigger, a shorter one and less load do."""
    critical: Point
    shallower_depth: float
    shorter_length_s: int
    lighter_load: float

    def rows(self):
        """(label, point) in the figure's order."""
        c = self.critical
        return [("a shallower trigger", Point(c.policy, self.shallower_depth, c.length_s, c.load)),
                ("the critical trigger", c),
                ("a shorter trigger", Point(c.policy, c.depth, self.shorter_length_s, c.load)),
                ("less load", Point(c.policy, c.depth, c.length_s, self.lighter_load))]


def check_fig5(fig5, outcomes):
    """The failures of Fig. 5's shape (empty: it holds), each one sentence."""
    failures = []
    for label, point in fig5.rows():
        if point not in outcomes:
            failures.append(f"Fig. 5: {label} {describe(point)} was not run")
            continue
        recovered = outcomes[point] is not None
        if label == "the critical trigger" and recovered:
            failures.append(f"Fig. 5: the critical trigger {describe(point)} recovered "
                            f"after {outcomes[point]} s; it should never recover")
        if label != "the critical trigger" and not recovered:
            failures.append(f"Fig. 5: {label} {describe(point)} never recovered; it should")
    return failures


def below_theorem2(point, policy, capacity_rps):
    """Whether the point's offered load is below the policy's Theorem 2 bound."""
    return point.load * capacity_rps < theorem2_bound_rps(capacity_rps, policy.worst_amplification)


def check_theorem2(outcomes, policies, capacity_rps):
    """Every point below its policy's Theorem 2 bound recovered: the failures, one sentence
    each, and how many points were below it."""
    below = [p for p in outcomes if below_theorem2(p, policies[p.policy], capacity_rps)]
    failures = [f"Theorem 2: {describe(p)} is below {policies[p.policy].key}'s bound "
                f"({theorem2_bound_rps(capacity_rps, policies[p.policy].worst_amplification):.1f} rps) "
                "and never recovered" for p in below if outcomes[p] is None]
    return failures, len(below)


def stability_edge(outcomes, policy_key):
    """(the highest load at which every trigger recovered with nothing lower failing, the lowest
    load at which some trigger never recovered) for one policy; either None when the runs do
    not show it."""
    loads = sorted({p.load for p in outcomes if p.policy == policy_key})
    never = [l for l in loads if any(outcomes[p] is None for p in outcomes if p.policy == policy_key and p.load == l)]
    first_never = never[0] if never else None
    stable = [l for l in loads if first_never is None or l < first_never]
    return (stable[-1] if stable else None), first_never


def check_bronson(outcomes, policy, capacity_rps, tolerance=0.15):
    """With one retry, stability ends near capacity ÷ 2: every load up to the bound less
    `tolerance` (a fraction of capacity) recovered, and some trigger at a load no higher than
    the bound plus `tolerance` never did. The failures, one sentence each."""
    bound = bronson_bound_rps(capacity_rps, policy.retries()) / capacity_rps
    stable, first_never = stability_edge(outcomes, policy.key)
    failures = []
    if first_never is not None and first_never <= bound - tolerance:
        failures.append(f"Bronson: {policy.key} never recovered at {first_never:.0%} of capacity, "
                        f"well below capacity ÷ {policy.worst_amplification} ({bound:.0%})")
    if first_never is None or first_never > bound + tolerance:
        failures.append(f"Bronson: {policy.key} recovered from every trigger up to "
                        f"{(stable or 0):.0%} of capacity, well past capacity ÷ {policy.worst_amplification} ({bound:.0%})")
    return failures


def describe(point):
    """"(legacy, −80 % for 10 s at 60 % of capacity)"."""
    return f"({point.policy}, −{point.depth:.0%} for {point.length_s} s at {point.load:.0%} of capacity)"
