"""The servers the Python tests start, each in one place: a real `quote-lab serve` (`Lab`,
or `serving()` for a port only) and Debian's redis-server (`RedisServer`), with the lab
asked over HTTP and every log kept for a failure's report.

A lab binds port 0 (its embedded carrier too) and the test reads the port the lab reports
in its log, as the C++ twin does (support/lab_process.hpp): no port is chosen before the lab
binds it, so no other process can take it in between. Redis cannot do that (see
checks.picked_port)."""
import contextlib
import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import tempfile
import urllib.error
import urllib.request

from checks import fail_if_unbound, picked_port
from poll import eventually

LISTENING = re.compile(r"quote-lab listening on http://127\.0\.0\.1:(\d+)")
EMBEDDED_CARRIER = re.compile(r"carrier: http://127\.0\.0\.1:(\d+) \(embedded")
# Longest a lab may take from exec to answering /health: ~0.1 s optimised, ~1-2 s under
# ThreadSanitizer; 30 s leaves room for a loaded 2-core machine and costs nothing when the
# lab is up sooner (it is polled every 20 ms).
START_S = 30


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
    """Whether GET /health answered 200 within `seconds` (a `Lab` already waited for it)."""
    return bool(eventually(lambda: request(port, "/health", timeout=2)[0] == 200, seconds))


class LabDidNotStart(Exception):
    """The lab exited or did not answer /health in START_S; the message holds its log."""


class Lab:
    """A running `quote-lab serve --port 0 --carrier-port 0 --state-file FOLDER/NAME.json ARGS`
    (no `--carrier-port` when ARGS name a `--carrier-url` or a port of their own). `port` and
    `carrier_port` (None without an embedded carrier) are the ones the lab reported; `url` is
    its address. Its output goes to FOLDER/NAME.log, kept across `stop()` and `start()` (a
    restart binds a new port). Raises LabDidNotStart if it does not come up."""

    def __init__(self, binary, folder, name="lab", args=()):
        self.binary, self.name, self.args = binary, name, list(args)
        self.folder = pathlib.Path(folder)
        self.log_path = self.folder / f"{name}.log"
        self.state_file = self.folder / f"{name}.json"
        self.log_path.write_text("")
        self.proc, self.port, self.carrier_port = None, None, None
        self.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        argv = [self.binary, "serve", "--port", "0", "--state-file", str(self.state_file)]
        embedded = "--carrier-url" not in self.args
        if embedded and "--carrier-port" not in self.args:
            argv += ["--carrier-port", "0"]
        offset = self.log_path.stat().st_size  # a restart reads only its own lines
        with open(self.log_path, "a") as log:
            self.proc = subprocess.Popen(argv + self.args, stdout=log, stderr=subprocess.STDOUT)
        self.port = self.carrier_port = None

        def up():
            if self.proc.poll() is not None:
                raise LabDidNotStart(f"{self.name} exited ({self.proc.returncode}) at start:\n{self.log()[-3000:]}")
            text = self.log_path.read_bytes()[offset:].decode(errors="replace")
            listening = LISTENING.search(text)
            if not listening:
                return False
            self.port = int(listening.group(1))
            carrier = EMBEDDED_CARRIER.search(text)
            if embedded and not carrier:
                return False  # logged right after the listening line
            self.carrier_port = int(carrier.group(1)) if carrier else None
            return request(self.port, "/health", timeout=2)[0] == 200

        if not eventually(up, START_S, every=0.02):
            self.stop()
            raise LabDidNotStart(f"{self.name} did not answer /health in {START_S} s:\n{self.log()[-3000:]}")

    def stop(self, timeout=20):
        """SIGTERM, then SIGKILL after `timeout` s; the exit code (None if it was not running)."""
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.terminate()
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()

    def request(self, path, method="GET", timeout=30):
        """(status, parsed JSON body or None) of one request to this lab."""
        return request(self.port, path, method, timeout)

    def log(self):
        return self.log_path.read_text(errors="replace")


class Classroom:
    """deploy/classroom as its docs start it: `quote-lab serve ARGS` on loopback and Debian's
    HAProxy in front (deploy/haproxy.cfg), the script's children stopped with it. It answers
    as a `Lab` does: `port` and `url` are the proxy's (where students connect), `log()` both
    processes' output, FOLDER/classroom.log. The lab's state file is FOLDER/lab.json and its
    carrier an embedded one on port 0; `env` adds to the script's environment (LAB_ADMIN_TOKEN,
    as the kit sets it). Raises LabDidNotStart if /health does not answer
    through the proxy in START_S."""

    def __init__(self, binary, folder, source_dir, args=(), env=None):
        folder = pathlib.Path(folder)
        self.log_path = folder / "classroom.log"
        # Picked: HAProxy binds what its config names (checks.picked_port).
        self.port, lab_port = picked_port(), picked_port()
        env = dict(os.environ, PUBLIC_BIND=f"127.0.0.1:{self.port}", LAB_ADDR=f"127.0.0.1:{lab_port}",
                   QUOTE_LAB_BINARY=binary, **(env or {}))
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen([str(pathlib.Path(source_dir) / "deploy" / "classroom"), "--carrier-port", "0",
                                          "--state-file", str(folder / "lab.json"), *args],
                                         env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

        def up():
            if self.proc.poll() is not None:
                raise LabDidNotStart(f"deploy/classroom exited ({self.proc.returncode}) at start:\n{self.log()[-3000:]}")
            try:
                return request(self.port, "/health", timeout=2)[0] == 200
            except OSError:
                return False

        if not eventually(up, START_S, every=0.05):
            self.stop()
            fail_if_unbound("deploy/classroom (HAProxy or the lab)", self.log(), self.port, lab_port)
            raise LabDidNotStart(f"deploy/classroom did not answer /health in {START_S} s:\n{self.log()[-3000:]}")

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def stop(self, timeout=20):
        """SIGTERM to the script (it stops HAProxy and the lab), SIGKILL to all after `timeout` s."""
        if self.proc.poll() is not None:
            return self.proc.returncode
        self.proc.terminate()
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            return self.proc.wait()

    def request(self, path, method="GET", timeout=30):
        """(status, parsed JSON body or None) of one request through the proxy."""
        return request(self.port, path, method, timeout)

    def log(self):
        return self.log_path.read_text(errors="replace")


@contextlib.contextmanager
def running_lab(binary, args=(), log_tail_on=lambda: False):
    """A `Lab` in its own temporary folder, stopped on exit; prints the log's tail at the
    end when `log_tail_on()`."""
    with tempfile.TemporaryDirectory() as tmp:
        lab = Lab(binary, tmp, args=args)
        try:
            yield lab
        finally:
            lab.stop()
            if log_tail_on():
                print(f"--- {lab.name} log (tail)\n{lab.log()[-3000:]}")


@contextlib.contextmanager
def serving(binary, log_tail_on=lambda: False, args=()):
    """The port of a `running_lab`: a lab at its default settings."""
    with running_lab(binary, args, log_tail_on) as lab:
        yield lab.port


class RedisServer:
    """Debian's redis-server on 127.0.0.1, without persistence, its log in FOLDER/redis.log.
    Its port is a `picked_port()`: `--port 0` would turn its TCP listener off. `start()` may
    be called again after `kill()` (Redis back on the same port, empty). `password`: set as
    `requirepass`, and in `url`."""

    def __init__(self, folder, password=None):
        self.port = picked_port()
        self.log_path = pathlib.Path(folder) / f"redis-{self.port}.log"
        self.folder, self.proc, self.password = folder, None, password

    @property
    def url(self):
        credentials = f":{self.password}@" if self.password else ""
        return f"redis://{credentials}127.0.0.1:{self.port}/0"

    def start(self, seconds=10):
        """Starts it and waits until it answers PING; stops the test with the reason if not."""
        with open(self.log_path, "a") as log:
            self.proc = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                                          "--save", "", "--appendonly", "no", "--dir", str(self.folder)]
                                         + (["--requirepass", self.password] if self.password else []),
                                         stdout=log, stderr=subprocess.STDOUT)
        if eventually(lambda: self.proc.poll() is not None or self.ping(), seconds) and self.ping_quietly():
            return
        log = self.log_path.read_text(errors="replace")
        fail_if_unbound("redis-server", log, self.port)
        raise SystemExit(f"FAIL redis-server did not answer PING on port {self.port} in {seconds} s:\n{log[-2000:]}")

    def ping(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
            if self.password:
                s.sendall(f"AUTH {self.password}\r\n".encode())
                if not s.recv(64).startswith(b"+OK"):
                    return False
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith(b"+PONG")

    def ping_quietly(self):
        try:
            return self.ping()
        except OSError:
            return False

    def kill(self):
        """SIGKILL: its sockets close at once, as when the server crashes."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
