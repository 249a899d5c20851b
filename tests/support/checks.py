"""What the Python tests that start real processes share: a named check that records its
failure (the script exits 1 if any did), and ports for the servers that cannot report their
own (a lab always can: lab_http.Lab starts it on port 0)."""
import contextlib
import socket

failures = []


def check(ok, what):
    """Prints `ok` or `FAIL` with `what`; a failure is kept in `failures`."""
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


# What a server's log says when its port was taken: redis-server ("bind: Address already
# in use"), HAProxy ("cannot bind socket (Address already in use)"), quote-lab ("cannot bind
# 127.0.0.1:P (in use, ...)").
BIND_FAILURES = ("Address already in use", "cannot bind")


def picked_port():
    """A loopback port for a server that cannot tell which port it bound, so it cannot be
    started on port 0: HAProxy binds the addresses its config names, redis-server's
    `--port 0` turns TCP off instead of asking the kernel, and deploy/'s scripts hand their
    labs' ports to HAProxy's config before the labs start. Everything else (every lab,
    Prometheus) binds port 0 and reports the port in its log.

    The kernel chooses the port and the socket is closed at once, so another process can
    take it before the server binds it. That race is not retried: whoever starts the server
    calls `fail_if_unbound()` when the server does not come up, so the failure names the
    taken port instead of reading as a slow or broken server."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fail_if_unbound(what, log_text, *ports):
    """Stops the test (SystemExit) with a clear sentence when `log_text`, the log of `what`
    started on `picked_port()`s `ports`, says a port was taken; returns otherwise."""
    for line in log_text.splitlines():
        if any(words in line for words in BIND_FAILURES):
            taken = ", ".join(f"127.0.0.1:{p}" for p in ports)
            raise SystemExit(f"FAIL {what} could not bind its port ({taken}): another process took it between the "
                             f"test picking it and {what} binding it; not a fault of the lab, run the test again. "
                             f"Its log: {line.strip()}")


@contextlib.contextmanager
def refused_port():
    """A loopback port that refuses connections for as long as the block runs: bound (so no
    other process can take it) but not listening, so a connect gets ECONNREFUSED."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]
