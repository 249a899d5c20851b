"""What the Python tests that start real processes share: a named check that records its
failure (the script exits 1 if any did) and a free loopback port to start a server on."""
import socket

failures = []


def check(ok, what):
    """Prints `ok` or `FAIL` with `what`; a failure is kept in `failures`."""
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def free_port():
    """A TCP port free on 127.0.0.1 now (the kernel's choice)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
