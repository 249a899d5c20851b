#!/usr/bin/env python3
"""Three replicas behind HAProxy: deploy/replicas/run starts one carrier, three
`quote-lab serve` on loopback (file backend: a breaker and a rate limit per replica) and
Debian's HAProxy 2.6 with deploy/replicas/haproxy.cfg (checked with `haproxy -c` first).
Through the proxy: requests reach all three replicas in turn; the client's address reaches
the replicas' rate limit (X-Forwarded-For, trusted because only the proxy reaches them); 50
connections sending their request head one line per second do not delay /health (p95 < 1 s).
Then with --backend redis (Debian's redis-server): the same limit is one for all three replicas;
Redis killed: every replica still answers, Redis is restarted and a breaker open before the
crash is open in it again; a replica killed: no request through the proxy is lost, and it
comes back.
Usage: test_replicas.py <quote-lab binary> <source dir>"""
import http.client
import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures  # noqa: E402
from poll import eventually  # noqa: E402
from replicas_run import Fleet, get, gone, pid_of, redis_answers, replicas  # noqa: E402

BINARY, ROOT = sys.argv[1], pathlib.Path(sys.argv[2])


def p95(samples):
    ordered = sorted(samples)
    return ordered[max(0, int(round(0.95 * len(ordered))) - 1)]


# Picked ports: HAProxy binds what its config names, and deploy/replicas/run hands the
# replicas' addresses to that config (checks.picked_port says why that is not port 0).
fleet = Fleet(BINARY)
public, labs, env = fleet.public, fleet.labs, fleet.env
checked = subprocess.run(["haproxy", "-c", "-f", str(ROOT / "deploy" / "replicas" / "haproxy.cfg")],
                         env=dict(env, LAB1_ADDR=f"127.0.0.1:{labs[0]}", LAB2_ADDR=f"127.0.0.1:{labs[1]}",
                                  LAB3_ADDR=f"127.0.0.1:{labs[2]}"),
                         capture_output=True, text=True)
check(checked.returncode == 0, "haproxy -c accepts deploy/replicas/haproxy.cfg: " + (checked.stdout + checked.stderr).strip())

with replicas(ROOT, fleet, "file", "--rate-limit", "2"):
    served = [str(get(public, "/health")[1]) for _ in range(9)]
    check(sorted(served) == ["r1"] * 3 + ["r2"] * 3 + ["r3"] * 3,
          f"9 requests are dealt round robin, 3 to each replica (got {served})")
    for n, port in enumerate(labs, 1):
        status, _, body = get(port, "/health")
        check(status == 200 and b'"quote-lab"' in body, f"replica {n} listens on 127.0.0.1:{port}")

    # --rate-limit 2 per replica (file backend: each replica counts alone): 9 quotes from
    # one client through the proxy, 3 per replica, are 6 answers and 3 refusals.
    statuses = [get(public, "/quote-resilient?scenario=ok")[0] for _ in range(9)]
    check(statuses.count(200) == 6 and statuses.count(429) == 3,
          f"a limit of 2 per replica admits 6 of 9 quotes through three replicas (got {statuses})")
    # The replicas count the client the header names: replica 1 has refused 127.0.0.1, yet
    # a request whose X-Forwarded-For names another address is admitted.
    direct = http.client.HTTPConnection("127.0.0.1", labs[0], timeout=10)
    direct.request("GET", "/quote-resilient?scenario=ok", headers={"X-Forwarded-For": "10.9.8.7"})
    other = direct.getresponse().status
    direct.close()
    check(other == 200, f"another client address (X-Forwarded-For) has its own count (got {other})")

    # 50 slow clients: each sends its request head one line per second.
    stop_slow = threading.Event()

    def slow_client():
        try:
            s = socket.create_connection(("127.0.0.1", public), timeout=10)
            s.sendall(b"GET /health HTTP/1.1\r\n")
            while not stop_slow.wait(1.0):
                s.sendall(b"X-Slow: 1\r\n")
        except OSError:
            pass  # cut by the proxy's timeout http-request: what it is for

    slow = [threading.Thread(target=slow_client, daemon=True) for _ in range(50)]
    for t in slow:
        t.start()
    time.sleep(1.0)  # let every slow head start
    health_ms, started = [], time.monotonic()
    while time.monotonic() - started < 6:
        t0 = time.monotonic()
        status, _, _ = get(public, "/health")
        if status == 200:
            health_ms.append((time.monotonic() - t0) * 1000)
        time.sleep(0.1)
    stop_slow.set()
    check(len(health_ms) >= 20, f"/health answered through the proxy while 50 heads trickled in ({len(health_ms)} answers)")
    if health_ms:
        # A bound on head-of-line blocking, not on the lab's pace (p95 ~7 ms here): a proxy
        # or lab that waited for the trickling heads would take seconds. The lab's own pace
        # is held by the lesson test (a quote may not take twice its waits).
        check(p95(health_ms) < 1000, f"/health p95 {p95(health_ms):.1f} ms < 1 s (max {max(health_ms):.1f} ms)")

# The same through Redis (--backend redis): one limit for the three replicas.
fleet = Fleet(BINARY)
public = fleet.public
with replicas(ROOT, fleet, "redis", "--rate-limit", "2"):
    statuses = [get(public, "/quote-resilient?scenario=ok")[0] for _ in range(9)]
    check(statuses.count(200) == 2 and statuses.count(429) == 7,
          f"redis backend: a limit of 2 is one limit across the three replicas (got {statuses})")


def lab_state(port):
    return json.loads(get(port, "/dependency/state")[2])


def redis_breaker_state(port):
    """The teacher's breaker as Redis holds it (the hash the replicas share), asked in RESP
    over a socket (redis-cli is not on every machine); "" if none or unreachable."""
    key = b"quote-lab:{_}:breaker"
    request = b"*3\r\n$4\r\nHGET\r\n$%d\r\n%s\r\n$5\r\nstate\r\n" % (len(key), key)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.sendall(request)
            reply = s.recv(256)
    except OSError:
        return ""
    # "$4\r\nopen\r\n", or "$-1\r\n" for no such field
    return reply.split(b"\r\n")[1].decode() if reply.startswith(b"$") and not reply.startswith(b"$-1") else ""


# Its parts die, the class goes on: Redis killed, then one replica killed.
fleet = Fleet(BINARY)
public, ports, redis_port = fleet.public, fleet.labs, fleet.redis
with replicas(ROOT, fleet, "redis"):
    status, _, body = get(public, "/quote-resilient?scenario=server_errors")
    check(json.loads(body)["dependency"]["circuit_status"] == "open",
          "redis backend: a server_errors quote through the proxy opens the shared breaker")
    check(redis_breaker_state(redis_port) == "open", "...and Redis holds it open")
    redis_pid = pid_of(f"redis-server 127.0.0.1:{redis_port}")
    check(redis_pid is not None, "deploy/replicas/run started its redis-server")
    os.kill(redis_pid, signal.SIGKILL)
    answers = []
    for _ in range(6):
        t0 = time.monotonic()
        status, replica, _ = get(public, "/quote-resilient?scenario=ok")
        answers.append((status, replica, round((time.monotonic() - t0) * 1000)))
    check(all(status == 200 and ms <= 400 for status, _, ms in answers) and
          {replica for _, replica, _ in answers} == {"r1", "r2", "r3"},
          f"Redis killed: HAProxy and all three replicas answer, each quote within 400 ms (got {answers})")
    alone = {n: lab_state(port)["state_backend"] for n, port in enumerate(ports, 1)}
    check(all(not b["healthy"] and b["error"].startswith("this replica only: ") for b in alone.values()),
          f"...and each says it decides alone: state_backend {alone}")
    restarted = eventually(lambda: pid_of(f"redis-server 127.0.0.1:{redis_port}") not in (None, redis_pid), 5)
    check(restarted, "deploy/replicas/run restarts Redis within 5 s")

    # Redis is back, empty. Each replica reconnects on its next call once its reconnect wait
    # is over (at most 2 s, ReconnectSchedule's cap) and seeds Redis from its own breaker; an
    # open one does so at least once a second (ReplicatedBreaker::kOpenResyncEvery). So: wait
    # for Redis to answer and past that cap, one quote straight to each replica, then read
    # Redis and each replica once. Whichever replica seeds first, the breaker open before the
    # crash (30 s cooldown) must be open again everywhere.
    check(eventually(lambda: redis_answers(redis_port), 5), "the restarted Redis answers")
    time.sleep(2.5)
    for port in ports:
        get(port, "/quote-resilient?scenario=ok")
    check(redis_breaker_state(redis_port) == "open", "the breaker open before the crash is open in Redis again")
    states = {n: lab_state(port) for n, port in enumerate(ports, 1)}
    check(all(s["circuit_status"] == "open" and s["state_backend"]["healthy"] for s in states.values()),
          "...and on every replica, whose backend is healthy again: "
          + ", ".join(f"r{n} {s['circuit_status']} healthy={s['state_backend']['healthy']}" for n, s in states.items()))

    replica_pid = pid_of(f"serve --host 127.0.0.1 --port {ports[1]} ")
    check(replica_pid is not None, "replica 2 runs")
    os.kill(replica_pid, signal.SIGKILL)
    check(eventually(lambda: gone(replica_pid), 5), "replica 2 is gone")
    served = [get(public, "/health") for _ in range(9)]
    check(all(status == 200 for status, _, _ in served),
          f"replica 2 killed: 9 of 9 requests through the proxy answered "
          f"(got {[(status, replica) for status, replica, _ in served]})")
    check(eventually(fleet.all_up, 10, every=0.5), "deploy/replicas/run restarts replica 2 and HAProxy sends to it again")

sys.exit(1 if failures else 0)
