"""What the class-of-30 tests share: thirty claimed names, /health timed from a process of its
own, another student's quotes timed alone and then while the class works, and the p99 of a
list of times. A test that drives a class from many threads of one Python process would
otherwise time its own wait for the interpreter's lock, not the lab: /health is polled from a
separate process (`HealthPoller`)."""
import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request


def claim_students(port, count, prefix="s"):
    """{i: lab key} for names s00..s29 claimed on the lab at `port` (POST /claim)."""
    keys = {}
    for i in range(count):
        req = urllib.request.Request(f"http://127.0.0.1:{port}/claim?name={prefix}{i:02d}", method="POST")
        with urllib.request.urlopen(req, timeout=30) as r:
            keys[i] = json.loads(r.read())["lab_key"]
    return keys


def p99(values):
    values = sorted(values)
    return values[int(0.99 * (len(values) - 1))]


def _round_trip_ms(url, timeout):
    started = time.monotonic()
    try:
        urllib.request.urlopen(url, timeout=timeout).read()
    except urllib.error.HTTPError as e:
        e.read()
    return (time.monotonic() - started) * 1000


class OtherStudentQuotes:
    """A student of another class still on the lesson, taking quotes on her own lab (`eva`, the
    carrier's ok mode) every 20 ms while the class works: `alone_ms` first (a second of them
    before the class starts, for comparison), then `during_ms` between start() and stop()."""

    def __init__(self, port):
        self.url = f"http://127.0.0.1:{port}/quote-resilient?lab=eva&scenario=ok"
        self.alone_ms, self.during_ms = [], []
        self._done = threading.Event()
        self._thread = None
        self._run(self.alone_ms, 1.0)

    def _loop(self, into):
        while not self._done.is_set():
            into.append(_round_trip_ms(self.url, 5))
            time.sleep(0.02)

    def _run(self, into, seconds):
        thread = threading.Thread(target=self._loop, args=(into,))
        thread.start()
        time.sleep(seconds)
        self._done.set()
        thread.join()
        self._done.clear()

    def start(self):
        self._thread = threading.Thread(target=self._loop, args=(self.during_ms,))
        self._thread.start()

    def stop(self):
        self._done.set()
        self._thread.join()


_POLLER = r"""
import json, select, sys, time, urllib.request
port, out = sys.argv[1], []
while not select.select([sys.stdin], [], [], 0)[0]:
    started = time.monotonic()
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5).read()
    except Exception:
        pass
    out.append((time.monotonic() - started) * 1000)
    time.sleep(0.02)
print(json.dumps(out))
"""


class HealthPoller:
    """/health polled every 20 ms from a process of its own until stop(), which returns each
    poll's round trip in ms (a poll with no answer within 5 s counts as its wait)."""

    def __init__(self, port):
        self.proc = subprocess.Popen([sys.executable, "-c", _POLLER, str(port)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def stop(self):
        out, _ = self.proc.communicate("stop\n", timeout=30)
        return json.loads(out)
