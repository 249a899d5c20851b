#!/usr/bin/env python3
"""A class in one process (docs/classroom.md): N simulated dashboards, each a live /events
stream and two keep-alive connections refreshing every 0.5 s (/dependency/state and
/incidents, as the page does), while the teacher runs ok quotes one after another.
Prints one JSON line: the teacher's quote latency, the dashboards' refresh latency, how
many streams were accepted. Bounded: --seconds (default 10), at most 300 dashboards.
Usage: classroom_load.py --port P [--dashboards 30] [--seconds 10]"""
import argparse
import http.client
import json
import socket
import statistics
import threading
import time

ap = argparse.ArgumentParser()
ap.add_argument("--host", default="127.0.0.1")
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--dashboards", type=int, default=30)
ap.add_argument("--seconds", type=float, default=10)
args = ap.parse_args()
args.dashboards = min(args.dashboards, 300)
args.seconds = min(args.seconds, 60)

stop = threading.Event()
lock = threading.Lock()
refresh_ms, errors, streams_ok = [], [0], [0]


def percentile(values, p):
    if not values:
        return None
    values = sorted(values)
    return round(values[min(len(values) - 1, int(p / 100 * len(values)))], 1)


def stream():
    try:
        s = socket.create_connection((args.host, args.port), timeout=5)
        s.sendall(b"GET /events HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n" % args.host.encode())
        first = s.recv(4096)
        if not first.startswith(b"HTTP/1.1 200"):
            s.close()  # as a browser does with a refused EventSource (the page then polls)
            return
        with lock:
            streams_ok[0] += 1
        s.settimeout(0.5)
        while not stop.is_set():
            try:
                if not s.recv(65536):
                    break
            except socket.timeout:
                pass
        s.close()
    except OSError:
        with lock:
            errors[0] += 1


def refresher(path):
    conn = http.client.HTTPConnection(args.host, args.port, timeout=10)
    while not stop.is_set():
        t0 = time.perf_counter()
        try:
            conn.request("GET", path, headers={"Accept": "application/json"})
            conn.getresponse().read()
            with lock:
                refresh_ms.append((time.perf_counter() - t0) * 1000)
        except (OSError, http.client.HTTPException):
            with lock:
                errors[0] += 1
            conn.close()
            conn = http.client.HTTPConnection(args.host, args.port, timeout=10)
        stop.wait(0.5)
    conn.close()


threads = []
for _ in range(args.dashboards):
    threads.append(threading.Thread(target=stream))
    for path in ("/dependency/state", "/incidents?limit=10"):
        threads.append(threading.Thread(target=refresher, args=(path,)))
for t in threads:
    t.start()
time.sleep(1)  # every page is open
quote_ms, quote_codes = [], {}
teacher = http.client.HTTPConnection(args.host, args.port, timeout=10)
deadline = time.time() + args.seconds
while time.time() < deadline:
    t0 = time.perf_counter()
    teacher.request("GET", "/quote-resilient?scenario=ok")
    res = teacher.getresponse()
    res.read()
    quote_ms.append((time.perf_counter() - t0) * 1000)
    quote_codes[res.status] = quote_codes.get(res.status, 0) + 1
stop.set()
for t in threads:
    t.join()
print(json.dumps({
    "dashboards": args.dashboards,
    "connections": args.dashboards * 3,
    "streams_accepted": streams_ok[0],
    "teacher_quotes": len(quote_ms),
    "teacher_quote_codes": quote_codes,
    "teacher_quote_ms": {"p50": percentile(quote_ms, 50), "p95": percentile(quote_ms, 95), "max": percentile(quote_ms, 100)},
    "refreshes": len(refresh_ms),
    "refresh_ms": {"p50": percentile(refresh_ms, 50), "p95": percentile(refresh_ms, 95)},
    "errors": errors[0],
}))
