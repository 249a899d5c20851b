"""What the container tests share (tests/deploy/test_podman_*.py): deploy/podman/up and down
run as a user runs them, on a project name and loopback ports of the test's own, the reasons
a machine cannot run them (reported as a skip, exit 77, never as a pass), and the clean-up
that leaves no container, network or volume of the test behind."""
import datetime
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

from checks import check, failures

SKIP = 77
# deploy/podman/up's exit status when podman cannot run containers here (a chroot, no cgroups).
UNAVAILABLE = 69
# A first run on a new machine makes the debian:bookworm base (mmdebstrap) and installs
# Debian's packages into four images: minutes. Later runs take seconds (cached layers).
UP_LIMIT_S = 600
DOWN_LIMIT_S = 120
DEADLINE_SPREAD_MS = 100


def skip(what, reason):
    print(f"SKIP {what} is not checked: {reason}", flush=True)
    sys.exit(SKIP)


def require_podman(what):
    """Skips (exit 77, with the reason) where the scripts cannot run: no podman or
    podman-compose (deploy/podman/up would install them: not a test's business), not root."""
    missing = [tool for tool in ("podman", "podman-compose") if shutil.which(tool) is None]
    if missing:
        skip(what, f"{' and '.join(missing)} not installed (`bash .ci/install-deps test` installs them, "
                   "then run this test again)")
    if os.geteuid() != 0:
        skip(what, "deploy/podman/up runs podman as root (it may install and configure it): run ctest as root")


def stops_on_ctrl_c(proc, seconds=20):
    """Sends SIGINT to `proc` (`podman run` in a terminal) and whether it exits within `seconds`."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=seconds)
        return True
    except subprocess.TimeoutExpired:
        return False


def get(url, accept="application/json", timeout=10, method="GET", headers=None):
    """(status, headers, body text) of one request; status None and the reason as the body
    when nothing answered (a check then fails with that reason)."""
    req = urllib.request.Request(url, method=method, headers={"Accept": accept, **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.headers, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode("utf-8", "replace")
    except OSError as e:
        return None, {}, f"no answer from {url}: {e}"


def get_json(url, **kw):
    """get() with the body parsed; None when it is not JSON (e.g. nothing answered)."""
    status, headers, body = get(url, **kw)
    return status, headers, json.loads(body) if body.strip().startswith(("{", "[")) else None


def one_breaker(states):
    """Whether the replicas' /dependency/state answers ({name: answer}) show one open breaker:
    all open, the same count of openings, and deadlines within DEADLINE_SPREAD_MS of one
    another. Not one deadline to the millisecond: Redis hands every replica the time left,
    which each adds to its own clock when the answer arrives (the replica that opened it keeps
    its own deadline), so they differ by a round trip and the rounding to whole ms."""
    if not states or not all(states.values()):
        return False
    deadlines = [s["opened_until"] for s in states.values()]
    if not all(s["circuit_status"] == "open" for s in states.values()) or None in deadlines:
        return False
    millis = [datetime.datetime.fromisoformat(d.replace("Z", "+00:00")).timestamp() * 1000 for d in deadlines]
    return len({s["open_events"] for s in states.values()}) == 1 and max(millis) - min(millis) <= DEADLINE_SPREAD_MS


class Stack:
    """deploy/podman/up FILE and down FILE with COMPOSE_PROJECT_NAME and the given variables."""

    def __init__(self, root, file, binary, **variables):
        self.root, self.file = pathlib.Path(root), file
        self.project = f"quote-lab-test-{os.getpid()}"
        self.env = dict(os.environ, COMPOSE_PROJECT_NAME=self.project, QUOTE_LAB_BINARY=str(binary), **variables)
        self.label = f"label=io.podman.compose.project={self.project}"
        self.unavailable = False  # podman cannot run containers here: nothing to tear down

    def container(self, service):
        return f"{self.project}_{service}_1"

    def run(self, script, *args, limit):
        started = time.monotonic()
        done = subprocess.run(["bash", str(self.root / "deploy" / "podman" / script), self.file, *args],
                              env=self.env, cwd=self.root, capture_output=True, text=True, timeout=limit)
        took = time.monotonic() - started
        print(f"--- deploy/podman/{script} {self.file} {' '.join(args)} (exit {done.returncode}, {took:.1f} s)\n"
              + done.stdout + done.stderr, flush=True)
        return done, took

    def up(self, what):
        """deploy/podman/up; skips the test when podman cannot run containers here."""
        done, took = self.run("up", limit=UP_LIMIT_S)
        if done.returncode == UNAVAILABLE:
            self.unavailable = True
            skip(what, done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "podman cannot run containers")
        check(done.returncode == 0, f"bash deploy/podman/up {self.file} starts it and returns once it is healthy "
                                    f"({took:.0f} s)")
        return done.returncode == 0, done.stdout, took

    def down(self, *args):
        done, took = self.run("down", *args, limit=DOWN_LIMIT_S)
        return done.returncode == 0, took

    def podman(self, *args):
        return subprocess.run(["podman", *args], capture_output=True, text=True).stdout

    def left(self):
        """The project's containers, volumes and networks still there."""
        return {kind: self.podman(*command, "--filter", self.label).split()
                for kind, command in (("containers", ("ps", "-a", "-q")), ("volumes", ("volume", "ls", "-q")),
                                      ("networks", ("network", "ls", "-q")))}

    def print_logs(self):
        for name in self.podman("ps", "-a", "--format", "{{.Names}}", "--filter", self.label).split():
            logs = subprocess.run(["podman", "logs", "--tail", "30", name], capture_output=True, text=True)
            print(f"--- podman logs {name}\n{logs.stdout}{logs.stderr}")

    def tear_down(self):
        """Always: the logs when a check failed, then down --volumes, and nothing of the test left."""
        if self.unavailable:
            return
        if failures:
            self.print_logs()
        ok, took = self.down("--volumes")
        left = self.left()
        check(ok and not any(left.values()),
              f"down --volumes removes the test's containers, volumes and network ({took:.1f} s; left: {left})")
