#!/usr/bin/env python3
"""The class challenge at its size: 30 students, each with a name claimed and a design of
their own, post them at once to a lab started at its default settings
(POST /experiments/scorecard?lab=NAME with the key). Every student gets the scorecard within
2 s of posting; /health, polled all along from a process of its own, keeps its p99 under 50 ms, and a student taking
quotes meanwhile sees them as fast as before; GET /class then ranks the 30 designs by the
scores the students were given, and a design posted alone scores what it scored in the crowd.
Usage: test_class_designs.py <quote-lab binary>"""
import concurrent.futures
import json
import pathlib
import sys
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures  # noqa: E402
from class_load import HealthPoller, OtherStudentQuotes, claim_students, p99  # noqa: E402
from lab_http import serving  # noqa: E402

binary = sys.argv[1]
STUDENTS = 30


def call(port, path, method="GET", body=None, headers=None, timeout=30):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, data=body,
                                 headers=dict(headers or {}, **({"Content-Type": "application/json"} if body else {})))
    started = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"null"), time.monotonic() - started
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null"), time.monotonic() - started


def design(i):
    """Thirty designs as a class writes them: the course's strategies and the overload ones, in
    different orders and with different settings (a few heavy: three attempts, hedging)."""
    timeout = {"strategy": "timeout", "timeout_ms": 150 + 10 * (i % 8)}
    retry = {"strategy": "retry", "max_attempts": 1 + i % 3, "backoff_base_ms": 20 * (i % 5)}
    shapes = [
        [{"strategy": "fallback"}, retry, {"strategy": "circuit_breaker"}, timeout],
        [{"strategy": "fallback"}, retry, {"strategy": "adaptive_throttle", "k": 1.1 + 0.1 * (i % 10)}, timeout],
        [{"strategy": "fallback"}, {"strategy": "concurrency_limit", "initial_limit": 3 + i % 4}, retry, timeout],
        [{"strategy": "fallback"}, {"strategy": "bulkhead", "max_concurrent": 4 + i % 6}, retry,
         {"strategy": "circuit_breaker"}, timeout],
        [{"strategy": "fallback"}, retry, {"strategy": "hedging", "budget": {"share": 0.1}}, timeout],
        [retry, timeout],
    ]
    return json.dumps({"pipeline": shapes[i % len(shapes)]}).encode()


with serving(binary) as port:
    keys = claim_students(port, STUDENTS)
    other = OtherStudentQuotes(port)
    health = HealthPoller(port)
    other.start()
    time.sleep(0.2)
    barrier = threading.Barrier(STUDENTS)

    def student(i):
        barrier.wait()
        return call(port, f"/experiments/scorecard?lab=s{i:02d}", "POST", design(i), {"X-Lab-Key": keys[i]})

    with concurrent.futures.ThreadPoolExecutor(STUDENTS) as pool:
        answers = list(pool.map(student, range(STUDENTS)))
    time.sleep(0.2)
    other.stop()
    health_ms = health.stop()

    statuses = [a[0] for a in answers]
    check(statuses == [200] * STUDENTS, f"every student's design was scored: {statuses}")
    slowest = max(a[2] for a in answers)
    check(slowest < 2.0, f"every student had the scorecard within 2 s of posting (slowest {slowest:.2f} s)")

    check(len(health_ms) >= 10 and p99(health_ms) < 50,
          f"/health's p99 while the class posted: {p99(health_ms):.1f} ms over {len(health_ms)} polls (under 50 ms)")
    # A quote on `ok` takes the carrier's few ms; "as fast" is within 50 ms at the p99.
    check(len(other.during_ms) >= 10 and p99(other.during_ms) < p99(other.alone_ms) + 50,
          f"another student's quotes meanwhile: p99 {p99(other.during_ms):.1f} ms against {p99(other.alone_ms):.1f} ms alone")

    status, cls, _ = call(port, "/class")
    designs = cls["designs"]
    check(len(designs) == STUDENTS, f"GET /class lists the 30 designs ({len(designs)})")
    given = {f"s{i:02d}": answers[i][1]["scorecard"]["score"] for i in range(STUDENTS)}
    check(all(d["score"] == given[d["lab"]] for d in designs), "each design's score in /class is the one its student got")
    scores = [d["score"] for d in designs]
    check(scores == sorted(scores, reverse=True) and [d["place"] for d in designs] == list(range(1, STUDENTS + 1)),
          f"ranked best first, places 1-30: {scores}")
    baselines = cls["design_baselines"]
    check(baselines == {"legacy": 0.0, "resilient": 41.8}, f"the baselines beside them: {baselines}")
    # Alone, a design scores what it scored in the crowd (the battery's seeds are fixed).
    again = call(port, "/experiments/scorecard?lab=s07", "POST", design(7), {"X-Lab-Key": keys[7]})
    check(again[1]["scorecard"] == answers[7][1]["scorecard"], "a design posted alone scores as in the crowd")
    print(f"slowest {slowest:.2f} s; /health p99 {p99(health_ms):.1f} ms; quotes p99 {p99(other.during_ms):.1f} ms "
          f"(alone {p99(other.alone_ms):.1f}); best {scores[0]}, worst {scores[-1]}")
sys.exit(1 if failures else 0)
