#!/usr/bin/env python3
"""The metastability map for a class of 30: each student, her name claimed, opens the
dashboard on a lab started at its default settings and draws the map as the page does
(public/metamap.js: GET /experiments/map, 25 cells, 2 at a time with her key, the chosen cell
first, a refusal asked again after its Retry-After). Then each moves a policy's setting or the
trigger's length, six different maps among the 30, and the page draws again.

Every student has her chosen cell within 2 s and her whole map within 15 s, both times; no
cell is lost; /health, polled all along from a process of its own, keeps its p99 under 50 ms, and a student taking quotes
meanwhile sees them as fast as before. Each map's cells are the ones the lab gives one student
alone (a point is deterministic and simulated once for the class).
Usage: test_class_maps.py <quote-lab binary>"""
import concurrent.futures
import json
import pathlib
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures  # noqa: E402
from class_load import HealthPoller, OtherStudentQuotes, claim_students, p99  # noqa: E402
from lab_http import serving  # noqa: E402

binary = sys.argv[1]
STUDENTS = 30
DEPTHS = (0.2, 0.4, 0.6, 0.8, 1.0)
LOADS = (0.15, 0.3, 0.45, 0.6, 0.75)
CHOSEN = (0.6, 0.45)
IN_FLIGHT = 2  # public/metamap.js IN_FLIGHT


def call(port, path, headers=None, timeout=60):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})
    started = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"null"), dict(r.headers), time.monotonic() - started
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null"), dict(e.headers), time.monotonic() - started


def cell_order():
    """public/metamap.js cellOrder: the chosen cell first, then by distance from it."""
    di, li = DEPTHS.index(CHOSEN[0]), LOADS.index(CHOSEN[1])
    cells = [(abs(i - di) + abs(j - li), d, l) for i, d in enumerate(DEPTHS) for j, l in enumerate(LOADS)]
    return [(d, l) for _, d, l in sorted(cells, key=lambda c: c[0])]


def draw(port, student, key, settings):
    """One student's page drawing one map: {cell: verdict}, seconds to the chosen cell and to
    the whole map, and how many refusals it waited out."""
    todo = cell_order()
    lock = threading.Lock()
    cells, refused, chosen_s = {}, [0], [None]
    started = time.monotonic()

    def worker():
        while True:
            with lock:
                if not todo:
                    return
                d, l = todo.pop(0)
            query = urllib.parse.urlencode({**settings, "depth": d, "load": l, "lab": student})
            while True:
                status, body, headers, _ = call(port, f"/experiments/map?{query}", {"X-Lab-Key": key})
                if status in (429, 503):
                    with lock:
                        refused[0] += 1
                    time.sleep(float(headers.get("Retry-After") or body.get("retry_after_s") or 1))
                    continue
                break
            with lock:
                cells[(d, l)] = body["recovered_after_s"] if status == 200 else f"HTTP {status}"
                if (d, l) == CHOSEN:
                    chosen_s[0] = time.monotonic() - started

    threads = [threading.Thread(target=worker) for _ in range(IN_FLIGHT)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return cells, chosen_s[0], time.monotonic() - started, refused[0]


def moved(i):
    """Student i's second map: one attempt more or less, or a shorter trigger (six maps)."""
    return [{"policy": "legacy", "length_s": 4, "max_attempts": 1},
            {"policy": "legacy", "length_s": 4, "max_attempts": 2},
            {"policy": "legacy", "length_s": 1},
            {"policy": "resilient", "length_s": 4},
            {"policy": "throttled", "length_s": 4},
            {"policy": "legacy", "length_s": 2, "max_attempts": 3}][i % 6]


with serving(binary) as port:
    keys = claim_students(port, STUDENTS)
    other = OtherStudentQuotes(port)
    # /health from a process of its own: this one's 60 drawing threads share one interpreter lock.
    health = HealthPoller(port)
    other.start()
    time.sleep(0.2)

    def class_draws(settings_of, label):
        barrier = threading.Barrier(STUDENTS)

        def student(i):
            barrier.wait()
            return draw(port, f"s{i:02d}", keys[i], settings_of(i))

        with concurrent.futures.ThreadPoolExecutor(STUDENTS) as pool:
            maps = list(pool.map(student, range(STUDENTS)))
        complete = [len(m[0]) == 25 and not any(isinstance(v, str) for v in m[0].values()) for m in maps]
        check(all(complete), f"{label}: every student's 25 cells answered ({sum(complete)} of {STUDENTS} whole)")
        slowest_chosen = max(m[1] for m in maps)
        slowest_map = max(m[2] for m in maps)
        check(slowest_chosen < 2.0, f"{label}: every student saw her chosen cell within 2 s (slowest {slowest_chosen:.2f} s)")
        check(slowest_map < 15.0, f"{label}: every student's whole map within 15 s (slowest {slowest_map:.2f} s)")
        print(f"{label}: chosen cell slowest {slowest_chosen:.2f} s, whole map slowest {slowest_map:.2f} s, "
              f"refusals waited out {sum(m[3] for m in maps)}", flush=True)
        return maps

    default = {"policy": "legacy", "length_s": 4}
    first = class_draws(lambda i: default, "the default map")
    second = class_draws(moved, "a setting moved")
    time.sleep(0.2)
    other.stop()
    health_ms = health.stop()

    check(len(health_ms) >= 10 and p99(health_ms) < 50,
          f"/health's p99 while the class drew: {p99(health_ms):.1f} ms over {len(health_ms)} polls (under 50 ms)")
    check(len(other.during_ms) >= 10 and p99(other.during_ms) < p99(other.alone_ms) + 50,
          f"another student's quotes meanwhile: p99 {p99(other.during_ms):.1f} ms against {p99(other.alone_ms):.1f} ms alone")
    # Every student drew the same default map, Huang et al.'s critical cell never recovering.
    check(all(m[0] == first[0][0] for m in first), "the 30 default maps are one map")
    check(first[0][0][CHOSEN] is None, f"legacy's critical cell never recovers: {first[0][0][CHOSEN]}")

# The same maps from a lab of one's own, one student alone: the cells the class got.
with serving(binary) as port:
    for i in range(6):
        alone = draw(port, "solo", "", moved(i))[0]
        check(alone == second[i][0], f"map {moved(i)} alone is the one the class got")
sys.exit(1 if failures else 0)
