"""deploy/replicas/run for the Python process tests: one carrier, three replicas and HAProxy
on picked loopback ports, started as the README does and stopped (SIGTERM, then SIGKILL of
its process group) on exit; plus what those tests ask of processes and Redis."""
import contextlib
import http.client
import json
import os
import pathlib
import signal
import socket
import subprocess
import tempfile

from checks import check, fail_if_unbound, failures, picked_port
from poll import eventually


def request(port, path, method="GET", headers=None, timeout=10):
    """(status, X-Quote-Lab-Replica header, body bytes) of one request on a fresh connection."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request(method, path, headers={"Host": "127.0.0.1", **(headers or {})})
        r = c.getresponse()
        return r.status, r.getheader("X-Quote-Lab-Replica"), r.read()
    finally:
        c.close()


def get(port, path, timeout=10):
    return request(port, path, timeout=timeout)


def get_json(port, path):
    status, _, body = request(port, path, headers={"Accept": "application/json"})
    return status, json.loads(body)


class Fleet:
    """Picked ports for one deploy/replicas/run: `public` (HAProxy), `labs` (the replicas),
    `carrier`, `redis`; `env` is what the script is given."""

    def __init__(self, binary):
        # Six distinct ports: each is released as soon as it is picked, so the kernel may
        # hand the same one out twice.
        ports = set()
        while len(ports) < 6:
            ports.add(picked_port())
        self.public, self.carrier, self.redis, *self.labs = list(ports)
        self.env = dict(os.environ, PUBLIC_BIND=f"127.0.0.1:{self.public}",
                        LAB_PORTS=" ".join(map(str, self.labs)), CARRIER_PORT=str(self.carrier),
                        REDIS_PORT=str(self.redis), QUOTE_LAB_BINARY=binary)

    def ports(self):
        return [self.public, self.carrier, self.redis, *self.labs]

    def all_up(self):
        """Every replica healthy in HAProxy's eyes: a full round of /health names all three."""
        return {get(self.public, "/health", 2)[1] for _ in range(6)} == {"r1", "r2", "r3"}


@contextlib.contextmanager
def replicas(root, fleet, backend, *serve_flags):
    """deploy/replicas/run --backend BACKEND SERVE_FLAGS on `fleet`'s ports, yielded once every
    replica answers through the proxy (checked); its log is printed when a check failed."""
    with tempfile.TemporaryDirectory() as tmp:
        log_path = pathlib.Path(tmp) / "replicas.log"
        with open(log_path, "w") as log:
            script = subprocess.Popen([str(root / "deploy" / "replicas" / "run"), "--backend", backend, *serve_flags],
                                      env=dict(fleet.env, STATE_DIR=tmp), stdout=log, stderr=subprocess.STDOUT,
                                      start_new_session=True)
            try:
                # Until all answer, or the script stopped (a port taken: start-up fails fast).
                eventually(lambda: script.poll() is not None or fleet.all_up(), 20, every=0.3)
                up = script.poll() is None and fleet.all_up()
                if not up:
                    log.flush()
                    fail_if_unbound("deploy/replicas/run", log_path.read_text(), *fleet.ports())
                check(up, f"{backend} backend: all three replicas answer /health through the proxy")
                yield script
            finally:
                script.send_signal(signal.SIGTERM)
                try:
                    script.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(script.pid, signal.SIGKILL)
                    script.wait()
        if failures:
            print(log_path.read_text())


def pid_of(pattern):
    """The pid of the one process whose command line holds `pattern`, or None (read from
    /proc: a fresh Debian has no pgrep)."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if pattern in command:
            found.append(int(entry.name))
    return found[0] if len(found) == 1 else None


def gone(pid):
    """True once `pid` has exited (no process, or a zombie with no command line)."""
    try:
        return not pathlib.Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True


def redis_command(port, *args):
    """Sends one command to Redis on `port` (RESP) and returns its first reply line."""
    payload = f"*{len(args)}\r\n" + "".join(f"${len(str(a).encode())}\r\n{a}\r\n" for a in args)
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
        s.sendall(payload.encode())
        return s.makefile("rb").readline().decode(errors="replace").rstrip("\r\n")


def redis_answers(port):
    """True when Redis on `port` answers PING."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith(b"+PONG")
    except OSError:
        return False
