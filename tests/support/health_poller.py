"""/health polled from a process of its own: a test that drives a class from many threads of
one Python process would otherwise time its own wait for the interpreter's lock, not the lab.
`HealthPoller(port)` polls every 20 ms until stopped, then `latencies_ms` holds each poll's
round trip (a poll with no answer within 5 s counts as 5000 ms)."""
import json
import subprocess
import sys

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
    def __init__(self, port):
        self.proc = subprocess.Popen([sys.executable, "-c", _POLLER, str(port)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.latencies_ms = []

    def stop(self):
        out, _ = self.proc.communicate("stop\n", timeout=30)
        self.latencies_ms = json.loads(out)
        return self.latencies_ms

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.stop()
