#!/usr/bin/env python3
"""The classroom edge: deploy/classroom starts the lab on loopback and Debian's
HAProxy 2.6 in front of it with deploy/haproxy.cfg (checked with `haproxy -c` first).
Through the proxy: 1 MB of request headers is refused with a 4xx while the lab's memory
stays flat, three pipelined requests are all answered, and a slow request head is cut.
Usage: test_haproxy.py <quote-lab binary> <source dir>"""
import os
import pathlib
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, fail_if_unbound, failures, picked_port  # noqa: E402
from poll import eventually  # noqa: E402

BINARY, ROOT = sys.argv[1], pathlib.Path(sys.argv[2])


def exchange(port, data, wait=3.0, quiet=1.0):
    """Sends raw bytes, returns everything received until close or `quiet` s of silence."""
    s = socket.create_connection(("127.0.0.1", port))
    out = b""
    try:
        s.sendall(data)
    except OSError:
        pass  # the proxy may refuse before it has read everything
    s.settimeout(quiet)
    deadline = time.time() + wait
    try:
        while time.time() < deadline:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
    except OSError:
        pass
    s.close()
    return out.decode(errors="replace")


def status_of(reply):
    return int(reply[9:12]) if reply.startswith("HTTP/1.") and len(reply) > 12 else 0


def rss_kb(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def child_named(parent, name):
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            comm = stat.read_text().split("(", 1)[1].rsplit(")", 1)[0]
        except (OSError, IndexError):
            continue
        if int(fields[1]) == parent and comm == name:
            return int(stat.parent.name)
    return None


# Picked ports: HAProxy binds what its config names, and deploy/classroom hands the lab's
# address to that config (checks.picked_port says why that is not port 0).
public, lab = picked_port(), picked_port()
env = dict(os.environ, PUBLIC_BIND=f"127.0.0.1:{public}", LAB_ADDR=f"127.0.0.1:{lab}", QUOTE_LAB_BINARY=BINARY)
checked = subprocess.run(["haproxy", "-c", "-f", str(ROOT / "deploy" / "haproxy.cfg")], env=env,
                         capture_output=True, text=True)
check(checked.returncode == 0, "haproxy -c accepts deploy/haproxy.cfg: " + checked.stdout.strip() + checked.stderr.strip())

with tempfile.TemporaryDirectory() as tmp:
    log = open(pathlib.Path(tmp) / "classroom.log", "w")
    script = subprocess.Popen([str(ROOT / "deploy" / "classroom"), "--carrier-port", "0",
                               "--state-file", str(pathlib.Path(tmp) / "state.json")],
                              env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        def healthy():
            return status_of(exchange(public, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                                      1, 0.5)) == 200

        # Until it answers, or the script stopped (a port taken: it exits when either child does).
        eventually(lambda: script.poll() is not None or healthy(), 30)
        ready = script.poll() is None and healthy()
        if not ready:
            log.flush()
            fail_if_unbound("deploy/classroom (HAProxy or the lab)", (pathlib.Path(tmp) / "classroom.log").read_text(),
                            public, lab)
        check(ready, "the lab answers /health through the proxy")
        lab_pid = child_named(script.pid, "quote-lab")
        check(lab_pid is not None, "the script started the lab")

        before = rss_kb(lab_pid)
        big = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (b"X-Padding: " + b"a" * 1000 + b"\r\n") * 1024 + b"\r\n"
        codes = [status_of(exchange(public, big)) for _ in range(4)]
        after = rss_kb(lab_pid)
        check(all(400 <= c < 500 for c in codes), f"1 MB of request headers is refused with a 4xx (got {codes})")
        check(after - before < 10 * 1024, f"the lab's memory stays flat ({before} kB -> {after} kB)")

        pipelined = exchange(public, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                                     b"GET /carrier HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                                     b"GET /incidents HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        check(pipelined.count("HTTP/1.1 200") == 3, f"three pipelined requests get three answers "
                                                      f"(got {pipelined.count('HTTP/1.1 ')})")

        slow = socket.create_connection(("127.0.0.1", public))
        slow.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        started, cut_after = time.time(), None
        while time.time() - started < 9 and cut_after is None:
            try:
                slow.sendall(b"X-Slow: 1\r\n")
                slow.settimeout(0.5)
                if slow.recv(4096) == b"":
                    cut_after = time.time() - started
            except socket.timeout:
                pass
            except OSError:
                cut_after = time.time() - started
        # HAProxy's `timeout http-request 5s` (deploy/haproxy.cfg), with 2 s for a loaded machine.
        check(cut_after is not None and cut_after < 7, f"a slow request head is cut by the proxy (after {cut_after} s)")
        check(status_of(exchange(public, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")) == 200,
              "the lab still answers")
    finally:
        script.send_signal(signal.SIGTERM)
        try:
            script.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(script.pid, signal.SIGKILL)
            script.wait()
        log.close()
        if failures:
            print((pathlib.Path(tmp) / "classroom.log").read_text())

sys.exit(1 if failures else 0)
