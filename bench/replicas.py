#!/usr/bin/env python3
"""Three replicas against a carrier that is down: a breaker per replica vs one shared breaker
(issue 13), measured, as a Markdown table.

    python3 bench/replicas.py [--binary build/quote-lab] [--clients 30] [--duration-s 22]
                              [--open-duration-s 5] [--setups file,redis] [--out FILE]

Each set-up starts deploy/replicas/run (one carrier, three `quote-lab serve` on free loopback
ports, HAProxy) with `--backend file` (each replica its own breaker) or `--backend redis` (one
breaker in Debian's redis-server), then runs

    quote-lab storm --target r1 --target r2 --target r3 --mode resilient --scenario provider_down

and watches every replica's /dependency/state meanwhile. Figures (carrier calls are the calls
the replicas sent, read from their quote_lab_carrier_attempts_total without short circuits):
  * carrier calls until every replica had tripped: the failed calls the outage cost before
    the whole fleet protected the carrier;
  * probes per cooldown: carrier calls after that moment (with every breaker open, only
    half-open probes reach the carrier) over the cooldowns that ended during the storm (the
    reopenings a replica reported since).
One client per replica by default: with many clients every set-up sends its first wave of
calls before any has failed, which hides the difference in the first figure.
A set-up whose binary or machine cannot run it (no --state-backend yet, no redis-server) is
reported as skipped, not guessed."""
import argparse
import http.client
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
parser = argparse.ArgumentParser()
parser.add_argument("--binary", default=str(ROOT / "build" / "quote-lab"))
parser.add_argument("--clients", type=int, default=3, help="storm clients (default one per replica)")
parser.add_argument("--duration-s", type=float, default=22)
parser.add_argument("--open-duration-s", type=float, default=5, help="the breakers' cooldown (short, to see several)")
parser.add_argument("--setups", default="file,redis")
parser.add_argument("--out", help="also write the table to this file")
args = parser.parse_args()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(port, path, timeout=5):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request("GET", path, headers={"Accept": "application/json"})
        r = c.getresponse()
        return json.loads(r.read()) if r.status == 200 else None
    finally:
        c.close()


def carrier_calls_sent(port):
    """Calls this replica sent to the carrier (every mode, short circuits excluded)."""
    metrics = get_json(port, "/metrics")
    for family in (metrics or {}).get("metrics", []):
        if family["name"] == "quote_lab_carrier_attempts_total":
            return sum(s["value"] for s in family["samples"] if s["labels"].get("outcome") != "short_circuit")
    return 0.0


def has_redis_backend():
    out = subprocess.run([args.binary, "serve", "--help"], capture_output=True, text=True).stdout
    return "--state-backend" in out and shutil.which("redis-server") is not None


def run_setup(backend):
    ports = [free_port() for _ in range(3)]
    env = dict(os.environ, PUBLIC_BIND=f"127.0.0.1:{free_port()}", LAB_PORTS=" ".join(map(str, ports)),
               CARRIER_PORT=str(free_port()), REDIS_PORT=str(free_port()), QUOTE_LAB_BINARY=args.binary)
    with tempfile.TemporaryDirectory() as tmp:
        env["STATE_DIR"] = tmp
        log = open(os.path.join(tmp, "replicas.log"), "w")
        proc = subprocess.Popen([str(ROOT / "deploy" / "replicas" / "run"), "--backend", backend,
                                 "--open-duration-s", str(args.open_duration_s)],
                                env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    if all(get_json(p, "/health", 1) for p in ports):
                        break
                except OSError:
                    pass
                time.sleep(0.2)
            else:
                raise SystemExit(f"{backend}: the replicas did not start; see its log:\n" + open(log.name).read())
            before = [carrier_calls_sent(p) for p in ports]
            tripped = {}  # replica index -> monotonic time its breaker was first seen open
            opens_at_trip = {}  # replica index -> its open_events then
            at_all_tripped = {}
            done = threading.Event()

            def watch():
                while not done.is_set() and len(tripped) < 3:
                    for i, p in enumerate(ports):
                        try:
                            state = get_json(p, "/dependency/state", 2) or {}
                        except OSError:
                            continue
                        if i not in tripped and state.get("open_events", 0) > 0:
                            tripped[i] = time.monotonic()
                            opens_at_trip[i] = state["open_events"]
                    time.sleep(0.01)
                if len(tripped) == 3:
                    # Every breaker is open: until the first cooldown ends no replica calls,
                    # so this read is exact even if it comes a little late.
                    at_all_tripped["calls"] = sum(carrier_calls_sent(p) for p in ports) - sum(before)
                    at_all_tripped["time"] = max(tripped.values())

            watcher = threading.Thread(target=watch)
            watcher.start()
            started = time.monotonic()
            storm = subprocess.run([args.binary, "storm", *[a for p in ports for a in ("--target", f"http://127.0.0.1:{p}")],
                                    "--mode", "resilient", "--scenario", "provider_down", "--clients", str(args.clients),
                                    "--duration", str(args.duration_s), "--settle-s", "0", "--json"],
                                   capture_output=True, text=True)
            ended = time.monotonic()
            done.set()
            watcher.join()
            if storm.returncode != 0:
                raise SystemExit(f"{backend}: quote-lab storm failed:\n{storm.stderr}")
            result = json.loads(storm.stdout)
            total = sum(carrier_calls_sent(p) for p in ports) - sum(before)
            row = {"backend": backend, "requests": result["requests"],
                   "per_target": [t["requests"] for t in result["targets"]], "carrier_calls": total,
                   "open_events": [(get_json(p, "/dependency/state") or {}).get("open_events") for p in ports]}
            if "calls" in at_all_tripped:
                row["until_tripped"] = at_all_tripped["calls"]
                row["tripped_after_s"] = at_all_tripped["time"] - started
                # With every breaker open only half-open probes reach the carrier; each failed
                # probe (the carrier hangs past the timeout) reopens its breaker, so the
                # cooldowns that ended are the reopenings since (the most any replica saw: with
                # a shared breaker every replica reports the same count).
                row["probes"] = total - at_all_tripped["calls"]
                row["cooldowns"] = max(o - opens_at_trip[i] for i, o in enumerate(row["open_events"]))
            return row
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            log.close()


rows, skipped = [], []
for backend in args.setups.split(","):
    if backend == "redis" and not has_redis_backend():
        skipped.append(f"redis: {args.binary} has no --state-backend, or redis-server is missing")
        continue
    print(f"running the {backend} set-up ({args.duration_s:g} s storm)...", file=sys.stderr)
    rows.append(run_setup(backend))

name = {"file": "a breaker per replica (`--backend file`)", "redis": "one shared breaker (`--backend redis`)"}
lines = [f"Three replicas, {args.clients} storm clients dealt round robin, `provider_down`, cooldown "
         f"{args.open_duration_s:g} s, {args.duration_s:g} s per run.", "",
         "| set-up | quote requests (r1 / r2 / r3) | carrier calls until every replica tripped | breaker openings (r1 / r2 / r3) "
         "| carrier calls after (probes) | cooldowns ended | probes per cooldown |",
         "|---|---|---|---|---|---|---|"]
for r in rows:
    per = " / ".join(map(str, r["per_target"]))
    opens = " / ".join(str(o) for o in r["open_events"])
    if "until_tripped" in r:
        ratio = f"**{r['probes'] / r['cooldowns']:.2f}**" if r["cooldowns"] else "—"
        lines.append(f"| {name[r['backend']]} | {r['requests']} ({per}) | **{r['until_tripped']:.0f}** "
                     f"(all open {r['tripped_after_s']:.2f} s in) | {opens} | {r['probes']:.0f} | {r['cooldowns']} "
                     f"| {ratio} |")
    else:
        lines.append(f"| {name[r['backend']]} | {r['requests']} ({per}) | not every replica tripped | {opens} "
                     f"| — | — | — |")
for s in skipped:
    lines.append(f"\nSkipped: {s}.")
table = "\n".join(lines) + "\n"
print(table)
if args.out:
    pathlib.Path(args.out).write_text(table)
