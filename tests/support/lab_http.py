"""A real `quote-lab serve` for the Python tests: started at its default settings on a free
port (its embedded carrier on another), asked over HTTP, stopped with its log kept for a
failure's report."""
import contextlib
import json
import pathlib
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

from checks import free_port


def request(port, path, method="GET", timeout=30):
    """(status, parsed JSON body or None)."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        body = e.read()
        try:
            return e.code, json.loads(body or b"null")
        except ValueError:
            return e.code, None


def wait_healthy(port, seconds=20):
    """Whether GET /health answered 200 within `seconds`."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if request(port, "/health", timeout=2)[0] == 200:
                return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


@contextlib.contextmanager
def serving(binary, log_tail_on=lambda: False):
    """Yields the port of a lab started with `serve --port P --carrier-port 0` and a state
    file in a temporary folder; prints the log's tail at the end when `log_tail_on()`."""
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        log_path = pathlib.Path(tmp) / "lab.log"
        with open(log_path, "w") as log:
            lab = subprocess.Popen([binary, "serve", "--port", str(port), "--carrier-port", "0", "--state-file",
                                    str(pathlib.Path(tmp) / "state.json")], stdout=log, stderr=subprocess.STDOUT)
            try:
                yield port
            finally:
                lab.terminate()
                lab.wait(timeout=20)
        if log_tail_on():
            print(log_path.read_text()[-3000:])
