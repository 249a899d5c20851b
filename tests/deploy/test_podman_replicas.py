#!/usr/bin/env python3
"""compose.replicas.yml with podman, offline: `bash deploy/podman/up compose.replicas.yml`
(Redis, the carrier, three replicas, HAProxy and Prometheus, built from Debian's packages by
compose.replicas.offline.yml) on loopback ports of the test's own (PROXY_PORT,
PROMETHEUS_PORT). From the host, through HAProxy: requests are dealt round robin to three
distinct replicas (X-Quote-Lab-Replica); the admin token the environment gives reaches the
replicas; one breaker for all: a provider_down quote opens it
on the replica that served it, and every replica then reports it `open`, with the same count
of openings and the same deadline (within podman_stack.DEADLINE_SPREAD_MS), from Redis; Prometheus scrapes all three replicas. `down --volumes` at the end,
always, and nothing of the test left.

Skipped (exit 77, with the reason) without podman or podman-compose, when not root, or where
podman cannot run containers (deploy/podman/up exits 69: a chroot, no cgroups).
Usage: test_podman_replicas.py <quote-lab binary> <source dir>"""
import json
import pathlib
import secrets
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures, picked_port  # noqa: E402
from podman_stack import DEADLINE_SPREAD_MS, Stack, get, get_json, one_breaker, require_podman  # noqa: E402
from poll import eventually  # noqa: E402

BINARY, ROOT = sys.argv[1], pathlib.Path(sys.argv[2])
WHAT = "compose.replicas.yml under podman"
READY_LIMIT_S = 60  # HAProxy marks a replica up after 2 checks 2 s apart; Prometheus scrapes every second


def main():
    require_podman(WHAT)
    proxy_port, prometheus_port = picked_port(), picked_port()
    token = secrets.token_hex(12)
    stack = Stack(ROOT, "compose.replicas.yml", BINARY, PROXY_PORT=f"127.0.0.1:{proxy_port}",
                  PROMETHEUS_PORT=f"127.0.0.1:{prometheus_port}", LAB_ADMIN_TOKEN=token)
    proxy, prometheus = f"http://127.0.0.1:{proxy_port}", f"http://127.0.0.1:{prometheus_port}"
    try:
        ok, _, _ = stack.up(WHAT)
        if not ok:
            return

        def replica(path="/health"):
            status, headers, body = get_json(f"{proxy}{path}")
            return status, headers.get("X-Quote-Lab-Replica"), body

        # Until HAProxy's own checks have every replica up: a round of 3 names all three.
        eventually(lambda: {replica()[1] for _ in range(3)} == {"r1", "r2", "r3"}, READY_LIMIT_S, every=0.5)
        served = [replica() for _ in range(6)]
        names = [name for _, name, _ in served]
        answered = all(status == 200 for status, _, _ in served)
        check(answered and sorted(names) == ["r1", "r1", "r2", "r2", "r3", "r3"],
              f"through HAProxy (PROXY_PORT) 6 requests are answered by three distinct replicas in turn "
              f"({names}; HTTP {[status for status, _, _ in served]})")
        if not answered:
            return

        # The replicas' token is the environment's (compose.replicas.offline.yml's spelling).
        denied = get(f"{proxy}/reset-lab", method="POST")
        allowed = get(f"{proxy}/reset-lab", method="POST", headers={"Authorization": f"Bearer {token}"})
        check((denied[0], allowed[0]) == (401, 200),
              f"LAB_ADMIN_TOKEN reaches the replicas: POST /reset-lab through HAProxy without it 401 "
              f"({denied[1].get('X-Quote-Lab-Replica')}), with it 200 ({allowed[1].get('X-Quote-Lab-Replica')}) "
              f"(got {denied[0]}, {allowed[0]})")

        # One breaker for all: the replica that serves this quote opens it in Redis.
        status, headers, replied = get(f"{proxy}/quote-resilient?scenario=provider_down")
        opener = headers.get("X-Quote-Lab-Replica")
        quote = json.loads(replied) if status is not None and replied.strip().startswith("{") else None
        check(status == 200 and quote["dependency"]["circuit_status"] == "open",
              f"a provider_down quote through HAProxy opens the breaker on {opener} "
              f"(HTTP {status}, {quote['dependency']['circuit_status'] if status == 200 else (quote or replied)})")
        states = {name: body for _, name, body in (replica("/dependency/state") for _ in range(3))}
        check(sorted(states) == ["r1", "r2", "r3"] and one_breaker(states),
              f"every replica then reports that one breaker open (one count of openings, deadlines within "
              f"{DEADLINE_SPREAD_MS} ms): " + ", ".join(
                  f"{n} {s['circuit_status']} until {s['opened_until']}, {s['open_events']} openings"
                  for n, s in sorted(states.items()) if s))
        backends = {n: s["state_backend"] for n, s in states.items()}
        check(all(b["kind"] == "redis" and b["healthy"] for b in backends.values()),
              f"the replicas share it through Redis, reachable from each (state_backend: {backends})")

        # Prometheus scrapes each replica as lab1..lab3:8080, labelled r1..r3.
        def scraped():
            _, _, answer = get_json(f"{prometheus}/api/v1/targets")
            targets = answer["data"]["activeTargets"] if answer else []
            done = [t for t in targets if not t["lastScrape"].startswith("0001")]
            return targets if len(done) == 3 else None

        targets = eventually(scraped, READY_LIMIT_S, every=0.5) or []
        health = {t["labels"].get("replica"): t["health"] for t in targets}
        check(health == {"r1": "up", "r2": "up", "r3": "up"}, f"Prometheus's three replica targets are up ({health})")
    finally:
        stack.tear_down()


if __name__ == "__main__":
    main()
    sys.exit(1 if failures else 0)
