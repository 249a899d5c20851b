#!/usr/bin/env python3
"""A class of 30 asks the lab for simulations at once (GET /experiments/simulate), on a lab
started at its default settings: every student gets the report within 2 s of asking, the same
report as asked alone (the same seed), and /health, polled all along from a process of its
own, keeps its p99 under
50 ms: the simulations run on one thread of their own, never on the quotes' workers. Each
student asks for her own lab with her key, as the 30 share this machine's address.
Usage: test_class_simulates.py <quote-lab binary>"""
import concurrent.futures
import pathlib
import sys
import threading
import time
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures  # noqa: E402
from class_load import HealthPoller, claim_students, p99  # noqa: E402
from lab_http import serving  # noqa: E402

binary = sys.argv[1]
STUDENTS = 30


def get(port, path, timeout=30, key=None):
    started = time.monotonic()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"X-Lab-Key": key} if key else {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.read(), time.monotonic() - started


def simulation(i):
    # A design's storm of the challenge's size: 500 quotes on tail_latency, each student's seed,
    # asked for her own lab (with her key, her share of the line: the 30 ask from one machine).
    return f"/experiments/simulate?policy=throttled&scenario=tail_latency&clients=10&requests=500&seed={i}&lab=s{i:02d}"


with serving(binary) as port:
    keys = claim_students(port, STUDENTS)
    alone = {i: get(port, simulation(i), key=keys[i])[1] for i in (0, 29)}
    health = HealthPoller(port)
    time.sleep(0.2)
    barrier = threading.Barrier(STUDENTS)

    def student(i):
        barrier.wait()
        return i, get(port, simulation(i), key=keys[i])

    with concurrent.futures.ThreadPoolExecutor(STUDENTS) as pool:
        answers = list(pool.map(student, range(STUDENTS)))
    time.sleep(0.2)
    health_ms = health.stop()

    statuses = [a[1][0] for a in answers]
    check(statuses == [200] * STUDENTS, f"every student's simulation answered 200: {statuses}")
    slowest = max(a[1][2] for a in answers)
    check(slowest < 2.0, f"every student had the report within 2 s of asking (slowest {slowest:.2f} s)")
    for i in (0, 29):
        check(dict(answers)[i][1] == alone[i], f"student {i}'s report is the one asked alone (the same seed)")
    check(len(health_ms) >= 10 and p99(health_ms) < 50,
          f"/health's p99 while the class simulated: {p99(health_ms):.1f} ms over {len(health_ms)} polls (under 50 ms)")
sys.exit(1 if failures else 0)
