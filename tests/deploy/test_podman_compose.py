#!/usr/bin/env python3
"""compose.yml with podman, offline: `bash deploy/podman/up compose.yml` (the images built from
Debian's packages, compose.offline.yml), on loopback ports of the test's own (LAB_PORT,
COURSE_PORT, PROMETHEUS_PORT) and a project name of its own. From the host: the lab's /health on
both published ports, bound to 127.0.0.1 only; Prometheus's target for the lab `up` (its HTTP
API); the admin token the environment gives reaches the lab; Grafana left out; the restart
policy brings back a lab whose process died; `down` then `up` keeps the lab's state volume (the
fallback quote and the open breaker's deadline). `down --volumes` at the end, always, and
nothing of the test left.

Skipped (exit 77, with the reason) without podman or podman-compose, when not root, or where
podman cannot run containers (deploy/podman/up exits 69: a chroot, no cgroups).
Usage: test_podman_compose.py <quote-lab binary> <source dir>"""
import os
import pathlib
import secrets
import signal
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures, picked_port  # noqa: E402
from podman_stack import Stack, get, get_json, require_podman  # noqa: E402
from poll import eventually  # noqa: E402

BINARY, ROOT = sys.argv[1], pathlib.Path(sys.argv[2])
WHAT = "compose.yml under podman"
START_LIMIT_S = 60  # the lab answers /health when up returns; a restart or a first scrape takes seconds


def main():
    require_podman(WHAT)
    lab_port, course_port, prometheus_port = picked_port(), picked_port(), picked_port()
    token = secrets.token_hex(12)
    stack = Stack(ROOT, "compose.yml", BINARY, LAB_PORT=f"127.0.0.1:{lab_port}",
                  COURSE_PORT=f"127.0.0.1:{course_port}", PROMETHEUS_PORT=f"127.0.0.1:{prometheus_port}",
                  LAB_ADMIN_TOKEN=token)
    lab, prometheus = f"http://127.0.0.1:{lab_port}", f"http://127.0.0.1:{prometheus_port}"
    try:
        ok, out, _ = stack.up(WHAT)
        if not ok:
            return
        check("left out: grafana" in out and not stack.podman("ps", "-a", "-q", "--filter", stack.label,
                                                               "--filter", "label=com.docker.compose.service=grafana").split(),
              "Grafana is left out, and up says so")
        status, _, body = get_json(f"{lab}/health")
        check(status == 200 and body["status"] == "ok",
              f"GET /health on the published LAB_PORT answers 200 from the host (HTTP {status}"
              + ("" if status else f": {get(f'{lab}/health')[2]}") + ")")
        if status != 200:
            return
        status, _, _ = get(f"http://127.0.0.1:{course_port}/health")
        check(status == 200, f"the course's port (COURSE_PORT) reaches the same lab (HTTP {status})")
        ports = stack.podman("port", stack.container("lab")).split("\n")
        check(sorted(p.strip() for p in ports if p.strip()) == sorted(
            [f"8080/tcp -> 127.0.0.1:{lab_port}", f"8080/tcp -> 127.0.0.1:{course_port}"]),
              f"the lab is published on the given loopback ports only ({[p for p in ports if p]})")

        # Prometheus scrapes lab:8080 every second: once it has scraped, its target is up.
        def lab_target():
            _, _, answer = get_json(f"{prometheus}/api/v1/targets")
            targets = [t for t in (answer or {"data": {"activeTargets": []}})["data"]["activeTargets"]
                       if t["labels"].get("instance") == "lab:8080"]
            return targets[0] if targets and not targets[0]["lastScrape"].startswith("0001") else None

        target = eventually(lab_target, START_LIMIT_S, every=0.5)
        check(target is not None and target["health"] == "up",
              f"Prometheus's target lab:8080 is up ({target and (target['health'], target['lastError'])})")

        # The token in the environment is the lab's: podman-compose 1.0.3 would have given the
        # lab compose.yml's `${LAB_ADMIN_TOKEN:-}` as written (the offline file spells it so it
        # does not).
        denied, _, _ = get(f"{lab}/reset-lab", method="POST")
        allowed, _, _ = get(f"{lab}/reset-lab", method="POST", headers={"Authorization": f"Bearer {token}"})
        check((denied, allowed) == (401, 200),
              f"LAB_ADMIN_TOKEN reaches the lab: POST /reset-lab without it 401, with it 200 (got {denied}, {allowed})")

        # restart: unless-stopped: the lab's process killed from the host comes back by itself.
        pid = int(stack.podman("inspect", "--format", "{{.State.Pid}}", stack.container("lab")).strip() or 0)
        if pid:
            os.kill(pid, signal.SIGKILL)
        restarted = eventually(lambda: stack.podman("inspect", "--format", "{{.RestartCount}}",
                                                    stack.container("lab")).strip() not in ("", "0")
                               and get(f"{lab}/health", timeout=2)[0] == 200, START_LIMIT_S, every=0.5)
        check(pid > 0 and bool(restarted),
              f"restart: unless-stopped: the lab killed (kill -9 of its process {pid}) is restarted and answers again")
        if not restarted:
            return

        # State across down and up: a live quote caches the fallback quote, provider_down opens
        # the breaker and serves that quote; both live in the lab-state volume.
        status, _, live = get_json(f"{lab}/quote-resilient?scenario=ok")
        status_down, _, degraded = get_json(f"{lab}/quote-resilient?scenario=provider_down")
        opened = (status, status_down) == (200, 200) and live["quote"]["source"] == "live" \
            and degraded["quote"]["source"] == "fallback" and degraded["dependency"]["circuit_status"] == "open"
        check(opened, f"a live quote, then provider_down opens the breaker and serves the fallback "
                      f"(HTTP {status}, {status_down}: " + (f"{degraded['quote']['source']}, breaker "
                      f"{degraded['dependency']['circuit_status']})" if status_down == 200 else f"{degraded})"))
        if not opened:
            return
        _, _, before = get_json(f"{lab}/dependency/state")
        time.sleep(1.0)  # the state file is written at most a few times a second
        ok, took = stack.down()
        left = stack.left()
        check(ok and not left["containers"] and f"{stack.project}_lab-state" in left["volumes"],
              f"down stops and removes the containers and keeps the lab's state volume ({took:.1f} s; {left})")
        ok, _, took = stack.up(WHAT)
        if not ok:
            return
        status, _, after = get_json(f"{lab}/dependency/state")
        if status != 200:
            check(False, f"after down and up the lab answers /dependency/state (HTTP {status})")
            return
        kept = (after["fallback_quote"] or {}).get("quote_id") == (before["fallback_quote"] or {}).get("quote_id")
        check(kept and before["fallback_quote"]["quote_id"] == live["quote"]["quote_id"],
              f"after down and up the lab has the same fallback quote ({after['fallback_quote'] and after['fallback_quote']['quote_id']})")
        # Open for 30 s from the quote: still open after a quick down and up, half-open when it
        # took longer; never closed, and with the deadline it had.
        check(after["opened_until"] == before["opened_until"] and after["circuit_status"] in ("open", "half_open"),
              f"after down and up the breaker keeps its deadline ({after['circuit_status']}, "
              f"{after['opened_until']} vs {before['opened_until']})")
    finally:
        stack.tear_down()


if __name__ == "__main__":
    main()
    sys.exit(1 if failures else 0)
