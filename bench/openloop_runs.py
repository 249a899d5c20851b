"""Open-loop runs for bench/goodput.py and bench/metastability_map.py: each run is one
`quote-lab storm --rate R` against a lab of its own (a fresh `quote-lab serve` with the run's
generated carrier scenario), so no run inherits another's queue, breaker or abandoned calls;
`parallel` runs at once. With `simulated`, each run is `quote-lab simulate` with the same
flags and the same lab settings instead (docs/simulation.md): no lab, simulated time."""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass

from labrun import Lab

# The lab's own queue must not be the bottleneck: a legacy quote that times out 4 times holds a
# lab worker 1.44 s, so at 100 rps about 150 quotes are in the lab at once (16 workers by
# default). The carrier's workers hold its calls, the queued ones included.
SERVE_ARGS = ("--workers", "256", "--carrier-workers", "512", "--max-connections", "1024", "--max-labs", "8")
# At most this many quotes of one storm in flight; arrivals beyond it are counted, not sent.
MAX_IN_FLIGHT = 400


@dataclass(frozen=True)
class Job:
    key: object         # the caller's name for the run
    scenario: dict      # the carrier, as a scenario file
    storm_args: tuple   # after `quote-lab storm --target URL --json --settle-s 1`


def run_job(binary, job):
    """The storm's JSON; exits the bench, with the storm's words, if it failed."""
    with Lab(binary, SERVE_ARGS, [job.scenario]) as lab:
        code, result, err = lab.storm(["--scenario", job.scenario["name"], "--max-in-flight", str(MAX_IN_FLIGHT),
                                       *job.storm_args])
    if code != 0 or result is None:
        sys.exit(f"storm {job.key} failed ({code}): {err}")
    return result


def parse_with_sim(parser, doc_name):
    """`parser`'s arguments with --sim added: each run in simulated time, the document (`--out`,
    default docs/`doc_name`) then docs/NAME.sim.md unless --out says otherwise."""
    parser.add_argument("--sim", action="store_true",
                        help="each run in simulated time (quote-lab simulate, docs/simulation.md): the document "
                             f"goes to docs/{doc_name.replace('.md', '.sim.md')} unless --out says otherwise")
    args = parser.parse_args()
    if args.sim and args.out == parser.get_default("out"):
        args.out = os.path.join(os.path.dirname(args.out), doc_name.replace(".md", ".sim.md"))
    return args


# What `simulate` takes of SERVE_ARGS: the lab's workers and the carrier's threads.
SIMULATED_LAB_ARGS = ("--workers", SERVE_ARGS[1], "--carrier-workers", SERVE_ARGS[3])


def simulate_job(binary, job):
    """The same run in simulated time: `quote-lab simulate` with the job's flags (its --mode as
    --policy; seed 1 unless it names one), its scenario beside the repository's."""
    args = ["--policy" if a == "--mode" else a for a in job.storm_args]
    if "--seed" not in args:
        args += ["--seed", "1"]
    with tempfile.TemporaryDirectory(prefix="quote-lab-sim-") as folder:
        scenarios = Lab.scenario_folder(folder, [job.scenario])
        out = subprocess.run([binary, "simulate", "--json", "--scenarios-dir", scenarios, *SIMULATED_LAB_ARGS,
                              "--scenario", job.scenario["name"], "--max-in-flight", str(MAX_IN_FLIGHT), *args],
                             capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        sys.exit(f"simulate {job.key} failed ({out.returncode}): {out.stderr.strip()}")
    return json.loads(out.stdout)


def run_jobs(binary, jobs, parallel, on_result, simulated=False):
    """Runs every job, `parallel` at a time; `on_result(job, result)` as each ends (under a
    lock: it may print and collect). Returns the seconds it took."""
    started, lock = time.monotonic(), threading.Lock()

    def one(job):
        result = simulate_job(binary, job) if simulated else run_job(binary, job)
        with lock:
            on_result(job, result)

    with concurrent.futures.ThreadPoolExecutor(max_workers=parallel) as pool:
        for future in [pool.submit(one, j) for j in jobs]:
            future.result()
    return time.monotonic() - started


def timeline_series(result):
    """(arrivals, goodput) per second of arrival, from the storm's `timeline`."""
    seconds = result["timeline"]
    return [s["arrivals"] for s in seconds], [s["useful"] for s in seconds]
