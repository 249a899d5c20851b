#!/usr/bin/env python3
"""Writes docs/metastability-map.md and docs/metastability-map.png: after a trigger (the
carrier loses part of its capacity for a while), does each policy recover under open-loop
load, and after how many seconds? Trigger depth × trigger length × offered load, per policy.

    python3 bench/metastability_map.py [--binary build/quote-lab] [--out docs/metastability-map.md]
                                       [--quick | --smoke] [--parallel N]

One `quote-lab storm --rate R --arrivals uniform` per point, each against a lab of its own
whose generated carrier (bench/overload_scenarios.py) serves CAPACITY calls at once in about
SERVICE_MS behind a FIFO queue that serves abandoned calls too (the retries' waste is the
sustaining effect), and loses `depth` of its capacity for `length` seconds from AFTER_S after
the first call. Recovery is judged on the storm's timeline (bench/recovery.py) with live
quotes only as goodput (`--fallback-max-age-s 0`: a fallback hides whether the carrier came
back). It checks Huang et al.'s Fig. 5 shape, Theorem 2 and Bronson et al.'s capacity ÷ 2,
and exits 1 naming every check that failed.

--quick: the four Fig. 5 rows, one run per policy below its Theorem 2 bound and one retry past
capacity ÷ 2: about 2 minutes, the same checks. --smoke: two short runs, no
checks (the script never rots). The image needs matplotlib: run it with Debian's python3 and
python3-matplotlib."""
import argparse
import itertools
import os
import sys

from labrun import ROOT, machine, write_doc
from map_doc import MapReport, map_doc
from map_grid import Fig5, Point, check_bronson, check_fig5, check_theorem2, describe, grid
from openloop_runs import MAX_IN_FLIGHT, SERVE_ARGS, Job, parse_with_sim, run_jobs, timeline_series
from overload_policies import ADAPTIVE_LIMIT, LEGACY, ONE_RETRY, RESILIENT, THROTTLED
from overload_scenarios import Carrier, Trigger, scenario
from recovery import Judgement, recovered_after_s

CARRIER = Carrier(capacity=5, service_ms=100, queue_max=50)
POLICIES = (LEGACY, ONE_RETRY, RESILIENT, THROTTLED, ADAPTIVE_LIMIT)
BY_KEY = {p.key: p for p in POLICIES}
AFTER_S = 3
WINDOW_S = 20
# The resilient breaker stays open 30 s: its window must see the half-open probe.
WINDOW_S_FOR = {RESILIENT.key: 40}
JUDGEMENT = Judgement(share=0.9, run_s=2)
DEADLINE_MS = 2000

FIG5 = Fig5(Point(LEGACY.key, 0.6, 4, 0.45), shallower_depth=0.4, shorter_length_s=1, lighter_load=0.3)
DEPTHS = (0.4, 0.6, 0.8, 1.0)
LENGTHS_S = (1, 4)
LOADS = (0.15, 0.3, 0.45, 0.6)
# Arrivals every 1/R s: the map's borders are then the trigger's and the load's. Poisson
# arrivals blur them (a burst during the trigger tips a point a metronome does not): the full
# run repeats Fig. 5's rows with Poisson arrivals to show how much.
ARRIVALS = "uniform"
POISSON_SEEDS = (1, 2, 3)


def quick_points():
    """Fig. 5's rows; each policy below its Theorem 2 bound (legacy at 15 %, the two-attempt
    policies at 30 %) through the deepest trigger, an outage as long as the critical one, which
    every policy's retries turn into a backlog; and one retry past capacity ÷ 2 (60 %)."""
    c = FIG5.critical
    below = [Point(p.key, 1.0, c.length_s, 0.15 if p.worst_amplification > 2 else 0.3) for p in POLICIES]
    bronson = [Point(ONE_RETRY.key, c.depth, c.length_s, 0.6)]
    return list(dict.fromkeys([p for _, p in FIG5.rows()] + below + bronson))


def arguments():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "quote-lab"))
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "metastability-map.md"))
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true")
    size.add_argument("--smoke", action="store_true")
    parser.add_argument("--parallel", type=int, default=3, help="runs at once (each its own lab)")
    return parse_with_sim(parser, "metastability-map.md")


def window_s(point, smoke=False):
    return 3 if smoke else WINDOW_S_FOR.get(point.policy, WINDOW_S)


def job(point, index, smoke=False, arrivals=ARRIVALS, seed=1, key=None):
    trigger = Trigger(AFTER_S, point.length_s, point.depth)
    rate = point.load * CARRIER.capacity_rps()
    duration = trigger.end_s() + window_s(point, smoke)
    return Job(key or point, scenario(f"map_{index}", CARRIER, "fifo", trigger),
               (*BY_KEY[point.policy].storm_args, "--rate", f"{rate:g}", "--arrivals", arrivals, "--seed", str(seed),
                "--duration", str(duration), "--goodput-deadline-ms", str(DEADLINE_MS), "--fallback-max-age-s", "0"))


def setup_text():
    c = CARRIER
    return f"""**Set-up.** The carrier is a generated scenario: **{c.capacity} calls at a time, each served
in {c.service_ms} ms ± 10 %** (capacity **{c.capacity_rps():g} calls a second**), a FIFO queue of
{c.queue_max} calls in front of it (full, a {c.queue_wait_s():.1f} s wait; one more call is answered
503 at once) that serves every queued call even after its caller gave up: that wasted work
is the sustaining effect. **The trigger:** {AFTER_S} s after the first call, the capacity drops
by *depth* (round({c.capacity} × (1 − depth)) calls at a time; −100 %: none, an outage) for *length*
seconds, then comes back in full. Each point is one open-loop storm, `quote-lab storm --rate R --duration
{AFTER_S}+length+window --arrivals {ARRIVALS} --fallback-max-age-s 0` (an arrival every 1/R s: the map's
borders are then the trigger's and the load's, not a burst of arrivals'; at most
{MAX_IN_FLIGHT} in flight),
against a lab of its own (`quote-lab serve {' '.join(SERVE_ARGS)}`: the lab's 16 default
workers would be a queue of their own and would cap legacy's retries)."""


def judgement_text():
    j = JUDGEMENT
    return (f"**Recovered after *k* s:** second *k* after the trigger's end starts the first run of "
            f"{j.run_s} seconds in a row in which goodput (live quotes answered within {DEADLINE_MS} ms, "
            f"counted by the second they arrived) was at least {j.share:.0%} of that second's arrivals, "
            "(a collapse after that is another episode: on this shared 2-core machine a burst of other work "
            "can time calls out and open a breaker). "
            f"**Never:** no such second within the window observed after the trigger ({WINDOW_S} s; "
            f"{WINDOW_S_FOR[RESILIENT.key]} s for resilient, whose breaker stays open 30 s). *Live quotes:* "
            "the storm's goodput with `--fallback-max-age-s 0`, so a fallback quote counts only when a live "
            "quote refreshed the cache less than 0.05 s before: a fallback hides whether the carrier came back.")


def run_points(args, points, poisson_rows):
    """(outcomes: Point → seconds or None, Poisson repeats: Fig. 5's row label → [seconds or
    None per seed], seconds it took). `poisson_rows`: repeat Fig. 5's rows with Poisson arrivals."""
    outcomes, poisson = {}, {}
    jobs = [job(p, i, args.smoke) for i, p in enumerate(points)]
    if poisson_rows:
        jobs += [job(p, len(jobs) + k, arrivals="poisson", seed=seed, key=(label, seed))
                 for k, ((label, p), seed) in enumerate(itertools.product(FIG5.rows(), POISSON_SEEDS))]

    def collect(j, result):
        arrivals, goodput = timeline_series(result)
        point = j.key if isinstance(j.key, Point) else dict(FIG5.rows())[j.key[0]]
        after = recovered_after_s(goodput, arrivals, AFTER_S + point.length_s, JUDGEMENT)
        if isinstance(j.key, Point):
            outcomes[point] = after
        else:
            poisson.setdefault(j.key[0], {})[j.key[1]] = after
        print(f"{describe(point)}{'' if isinstance(j.key, Point) else f' Poisson seed {j.key[1]}'}: "
              f"{'never' if after is None else f'{after} s'}; goodput by second {goodput}", flush=True)

    took = run_jobs(args.binary, jobs, args.parallel, collect, simulated=args.sim)
    return outcomes, {label: [by_seed[s] for s in sorted(by_seed)] for label, by_seed in poisson.items()}, took


def checks(outcomes):
    failures = check_fig5(FIG5, outcomes)
    failures += check_theorem2(outcomes, BY_KEY, CARRIER.capacity_rps())[0]
    failures += check_bronson(outcomes, ONE_RETRY, CARRIER.capacity_rps())
    return failures


def main():
    args = arguments()
    if args.smoke:
        points = [Point(LEGACY.key, 0.6, 1, 0.15), Point(ONE_RETRY.key, 0.6, 1, 0.15)]
    elif args.quick:
        points = quick_points()
    else:
        points = list(dict.fromkeys(grid([p.key for p in POLICIES], DEPTHS, LENGTHS_S, LOADS) + quick_points()))
    full = not (args.smoke or args.quick)
    outcomes, poisson, took = run_points(args, points, poisson_rows=full)
    failures = [] if args.smoke else checks(outcomes)
    command = ("python3 bench/metastability_map.py" + (" --sim" if args.sim else "")
               + (" --quick" if args.quick else " --smoke" if args.smoke else ""))
    report = MapReport(command=command, machine=machine(), took_s=took, capacity_rps=CARRIER.capacity_rps(),
                       setup=setup_text(), judgement=judgement_text(), window_s=3 if args.smoke else WINDOW_S,
                       policies=tuple(p for p in POLICIES if any(pt.policy == p.key for pt in outcomes)),
                       outcomes=outcomes, fig5=FIG5, bronson_policy=ONE_RETRY, failures=tuple(failures),
                       image="metastability-map.sim.png" if args.sim else "metastability-map.png", poisson=poisson)
    import plots
    triggers = sorted({(p.depth, p.length_s) for p in outcomes})
    plots.draw_map(outcomes, [p.key for p in report.policies], triggers, sorted({p.load for p in outcomes}),
                   report.window_s, os.path.join(os.path.dirname(os.path.abspath(args.out)), report.image),
                   bounds={p.key: 1 / p.worst_amplification for p in report.policies})
    write_doc(args.out, map_doc(report, discussion(outcomes, poisson) if full else ""))
    print(f"{command}: {len(outcomes) + sum(map(len, poisson.values()))} runs in {took:.0f} s")
    for f in failures:
        print("FAILED " + f)
    sys.exit(1 if failures else 0)


def seconds(value):
    return "never" if value is None else f"after {value} s"


def policy_summary(outcomes, policy):
    """"recovered from 12 of 16 triggers; never at 45 % and 60 % of capacity": one policy's
    runs in a sentence."""
    mine = {p: v for p, v in outcomes.items() if p.policy == policy.key}
    if not mine:
        return ""
    never_loads = sorted({p.load for p, v in mine.items() if v is None})
    where = ("; never at " + ", ".join(f"{l:.0%}" for l in never_loads) + " of capacity") if never_loads else ""
    return f"recovered from {sum(v is not None for v in mine.values())} of {len(mine)} runs{where}"


def poisson_text(poisson):
    """"the critical trigger never, never, never; less load never, 0 s, 0 s"."""
    return "; ".join(f"{label} {', '.join('never' if v is None else f'{v} s' for v in values)}"
                     for label, values in poisson.items())


def discussion(outcomes, poisson):
    """What the runs show and why, with their numbers."""
    cap, c = CARRIER.capacity_rps(), FIG5.critical
    rows = dict(FIG5.rows())
    if any(p not in outcomes for p in rows.values()):
        return ""
    need = lambda p, load: p.worst_amplification * load * cap  # noqa: E731
    lines = [
        "## Qué muestran · What they show",
        "",
        f"- **Legacy's critical trigger** (−{c.depth:.0%} for {c.length_s} s at {c.load:.0%} of capacity, "
        f"{c.load * cap:g} rps) {seconds(outcomes[c])}: during the trigger the queue grows past 260 ms of work, "
        f"every call times out, and legacy sends each quote {LEGACY.worst_amplification} times: "
        f"{need(LEGACY, c.load):g} calls a second for a carrier that serves {cap:g}, all of them queued and served "
        "after their callers left. The trigger is gone; the retries' load keeps the carrier down (Bronson et al.'s "
        "sustaining effect).",
        f"- **One thing changed at a time, it recovers:** a shallower trigger {seconds(outcomes[rows['a shallower trigger']])} "
        f"(the carrier still serves the load during it), a shorter one {seconds(outcomes[rows['a shorter trigger']])} "
        f"(the queue it leaves is under legacy's timeout), less load {seconds(outcomes[rows['less load']])} "
        "(the reduced carrier still keeps up). Huang et al.'s Fig. 5 has the same shape at their numbers.",
        f"- **Legacy overall** {policy_summary(outcomes, LEGACY)}. Above its Theorem 2 bound it is *vulnerable* "
        "(Huang et al.'s word): whether it stays up depends on the trigger alone, and a deeper or longer one "
        "tips it at a lower load.",
        *([f"- **With Poisson arrivals** (the same rows, one run per seed {', '.join(map(str, POISSON_SEEDS))}): "
           f"{poisson_text(poisson)}. A burst of arrivals during the trigger is a deeper trigger: near a "
           "border the same point lands on either side. The map uses evenly spaced arrivals so that its "
           "borders are the trigger's and the load's."] if poisson else []),
        f"- **Theorem 2:** below capacity ÷ {LEGACY.worst_amplification} ({cap / LEGACY.worst_amplification:g} rps) even "
        f"legacy's worst case sends fewer calls than the carrier serves: at 15 % it needs {need(LEGACY, 0.15):g} calls a "
        "second once every call times out, so the backlog drains whatever the trigger.",
        f"- **One retry** ({ONE_RETRY.key}): {policy_summary(outcomes, ONE_RETRY)}. Its worst case is 2 calls per "
        f"quote: at 45 % that is {need(ONE_RETRY, 0.45):g} calls a second, just under {cap:g}, so the backlog drains, "
        f"slowly; at 60 % it is {need(ONE_RETRY, 0.6):g} and it never does. Stability ends near capacity ÷ 2, as "
        "Bronson et al. found for a database whose clients retry once.",
        f"- **Resilient** ({policy_summary(outcomes, RESILIENT)}): its breaker opens during the trigger and sends "
        "nothing for 30 s, so the backlog drains whatever the load, and its half-open probe finds the carrier "
        "healthy: it recovers about 30 s after the breaker opened, answering fallback quotes meanwhile (which "
        "the live goodput here does not count).",
        f"- **Throttled** ({policy_summary(outcomes, THROTTLED)}) and **adaptive_limit** "
        f"({policy_summary(outcomes, ADAPTIVE_LIMIT)}): adaptive throttling drops calls in the lab in proportion "
        "to the carrier's failures over its 10 s window, so it sends less while the carrier is down and more as "
        "it answers again; the gradient limit caps calls in flight from the round trips it measures."
        + (" Where one never recovered, what it let through still kept the carrier's queue past its 220 ms timeout."
           if any(v is None for p, v in outcomes.items() if p.policy in (THROTTLED.key, ADAPTIVE_LIMIT.key))
           else ""),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
