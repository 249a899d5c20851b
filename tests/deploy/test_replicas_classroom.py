#!/usr/bin/env python3
"""One classroom across three replicas: deploy/replicas/run --backend redis (one carrier,
three `quote-lab serve` sharing Redis, HAProxy round robin), used as a class uses it.
- ana's page holds its live stream (/events?lab=ana) on one replica through the proxy; her
  6 quotes, dealt to all three replicas, each reach it within 1 s of their answer;
- /diagnostics/summary?lab=ana and /class give the same counts on every replica;
- a replica killed and restarted after the class's entries left the Redis stream starts from
  the labs' snapshots: it gives the same counts as the others;
- a carrier mode, then a reset, sent to one replica holds on all three within 1 s;
- one storm per lab for the whole class: ana's storm started on replica 1 is refused on
  replica 2 (409) until a reset on replica 3 stops it.
Usage: test_replicas_classroom.py <quote-lab binary> <source dir>"""
import http.client
import json
import pathlib
import sys
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures  # noqa: E402
from poll import eventually  # noqa: E402
from replicas_run import Fleet, get_json, gone, pid_of, redis_command, request, replicas  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402

BINARY, ROOT = sys.argv[1], pathlib.Path(sys.argv[2])
STREAM_BOUND_S = 1.0   # the bound for an event to reach a page on another replica
SETTING_BOUND_S = 1.0  # ... and for a mode or reset to hold on every replica


class Stream:
    """An open /events stream: every event as (arrival time, type, data), read on a thread
    (http.client undoes the chunked encoding)."""

    def __init__(self, port, path):
        self.events = []
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.connection.request("GET", path, headers={"Host": "127.0.0.1", "Accept": "text/event-stream"})
        self.response = self.connection.getresponse()
        self.status, self.replica = self.response.status, self.response.getheader("X-Quote-Lab-Replica")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        kind = None
        try:
            for raw in iter(self.response.readline, b""):
                line = raw.decode(errors="replace").rstrip("\r\n")
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: ") and kind:
                    self.events.append((time.monotonic(), kind, line[6:]))
                    kind = None
        except (OSError, ValueError, http.client.HTTPException):
            return

    def close(self):
        self.connection.close()


def settled(read, holds, seconds, every=0.05):
    """Reads until `holds` the reading or `seconds` pass; returns the last reading, which the
    caller checks once (never read again after a miss)."""
    last = {}

    def attempt():
        last["seen"] = read()
        return holds(last["seen"])

    eventually(attempt, seconds, every=every)
    return last["seen"]


def quotes(events):
    return {json.loads(data)["request_id"]: at for at, kind, data in events if kind == "quote"}


def counts(port):
    """ana's requests per mode, and /class's (name, requests, carrier calls, mode) rows, on one replica."""
    _, diagnostics = get_json(port, "/diagnostics/summary?lab=ana")
    _, klass = get_json(port, "/class")
    modes = {mode: v["requests"] for mode, v in diagnostics["modes"].items()}
    rows = sorted((r["name"], r["requests"], r["carrier_calls"], r["carrier_mode"]) for r in klass["labs"])
    return modes, rows, diagnostics["carrier_mode"]


fleet = Fleet(BINARY)
with replicas(ROOT, fleet, "redis"):
    # ana claims her name through the proxy (step 0: its answer carries her key), then quotes
    # in her lab with it and opens her page's stream.
    status, _, body = request(fleet.public, "/claim?name=ana", "POST")
    key = json.loads(body).get("lab_key")
    check(status == 201 and key, f"ana's claim through the proxy answers with her lab key ({status})")
    status, _, _ = request(fleet.public, "/quote/resilient?lab=ana&scenario=ok", headers={"X-Lab-Key": key})
    check(status == 200, f"her first quote, with her key, through the proxy ({status})")
    stream = Stream(fleet.public, "/events?lab=ana")
    check(stream.status == 200, f"ana's page opens its live stream through the proxy (on {stream.replica})")

    answered, served_by = {}, []
    for n in range(6):
        policy = "resilient" if n % 2 == 0 else "legacy"
        status, replica, body = request(fleet.public, f"/quote/{policy}?lab=ana&scenario=ok", headers={"X-Lab-Key": key})
        answered[json.loads(body)["request_id"]] = time.monotonic()
        served_by.append(replica)
    check(set(served_by) == {"r1", "r2", "r3"}, f"the 6 quotes were dealt to all three replicas ({served_by})")
    eventually(lambda: set(answered) <= set(quotes(stream.events)), STREAM_BOUND_S + 1)
    seen = quotes(stream.events)
    late = {rid: round(seen[rid] - at, 3) for rid, at in answered.items() if rid in seen and seen[rid] - at > STREAM_BOUND_S}
    check(len(set(answered) & set(seen)) == 6 and not late,
          f"ana's page received {len(set(answered) & set(seen))} of her 6 quotes, each within {STREAM_BOUND_S} s "
          f"(late: {late})")

    # Every replica tells the same story: the same counts for ana and the same class.
    seen_counts = settled(lambda: {n: counts(port) for n, port in enumerate(fleet.labs, 1)},
                          lambda c: len({json.dumps(v) for v in c.values()}) == 1, 2)
    check(len({json.dumps(c) for c in seen_counts.values()}) == 1 and seen_counts[1][0]["resilient"] == 4
          and seen_counts[1][0]["legacy"] == 3,
          f"/diagnostics/summary and /class give the same counts on every replica: {seen_counts}")

    # A long class: the stream no longer holds its early entries (here, none), and replica 2
    # is killed and restarted by the script. It starts from the labs' snapshots (written
    # within a second of a change) and tells the same story as the others.
    time.sleep(2.5)  # two snapshot rounds: the labs' snapshots hold everything above
    trimmed = redis_command(fleet.redis, "XTRIM", "quote-lab:class-log", "MAXLEN", "0")
    replica_pid = pid_of(f"serve --host 127.0.0.1 --port {fleet.labs[1]} ")
    check(replica_pid is not None and trimmed.startswith(":"), f"the stream trimmed ({trimmed}), replica 2 found")
    os.kill(replica_pid, signal.SIGKILL)
    eventually(lambda: gone(replica_pid), 5)

    def replica_2():
        try:
            return {"pid": pid_of(f"serve --host 127.0.0.1 --port {fleet.labs[1]} "), "counts": counts(fleet.labs[1])}
        except OSError:  # not listening yet
            return {"pid": None, "counts": None}

    restarted = settled(replica_2, lambda r: r["pid"] not in (None, replica_pid) and r["counts"] == seen_counts[1], 15,
                        every=0.3)
    check(restarted["counts"] == seen_counts[1],
          f"replica 2, restarted after the stream dropped the class's entries, gives the same counts: "
          f"{restarted['counts']} (the others: {seen_counts[1]})")

    # A carrier mode sent to replica 1 holds on all three within 1 s.
    status, _, _ = request(fleet.labs[0], "/carrier/mode?mode=provider_down&lab=ana", "PUT", {"X-Lab-Key": key})
    check(status == 200, f"ana sets her carrier mode on replica 1 ({status})")
    sent = time.monotonic()
    modes = settled(lambda: [counts(port)[2] for port in fleet.labs], lambda m: m == ["provider_down"] * 3,
                    SETTING_BOUND_S)
    check(modes == ["provider_down"] * 3 and time.monotonic() - sent <= SETTING_BOUND_S + 0.5,
          f"...and within {SETTING_BOUND_S} s every replica runs her lab on it: {modes}")
    statuses = [request(fleet.public, "/quote/legacy?lab=ana", headers={"X-Lab-Key": key})[0] for _ in range(3)]
    check(statuses == [503] * 3, f"her default quotes fail on all three replicas (provider_down): {statuses}")

    # A reset sent to replica 3 holds on all three within 1 s.
    status, _, _ = request(fleet.labs[2], "/reset-lab?lab=ana", "POST", {"X-Lab-Key": key})
    check(status == 200, f"ana resets her lab on replica 3 ({status})")
    sent = time.monotonic()
    after = settled(lambda: {n: counts(port)[0:3:2] for n, port in enumerate(fleet.labs, 1)},
                    lambda a: all(c == ({"legacy": 0, "resilient": 0}, "ok") for c in a.values()), SETTING_BOUND_S)
    check(all(c == ({"legacy": 0, "resilient": 0}, "ok") for c in after.values())
          and time.monotonic() - sent <= SETTING_BOUND_S + 0.5,
          f"...and within {SETTING_BOUND_S} s every replica shows it reset (no requests, mode ok): {after}")

    storm = "/experiments/storm?lab=ana&mode=resilient&clients=2&duration_s=20"
    started = [request(port, storm, "POST", {"X-Lab-Key": key})[0] for port in fleet.labs[:2]]
    check(started == [202, 409], f"ana's storm starts on replica 1 and is refused on replica 2 (one per lab): {started}")
    status, _, _ = request(fleet.labs[2], "/reset-lab?lab=ana", "POST", {"X-Lab-Key": key})
    again = request(fleet.labs[1], storm, "POST", {"X-Lab-Key": key})[0]
    check(status == 200 and again == 202, f"a reset on replica 3 stops it: replica 2 may start hers ({status}, {again})")
    # The storm runs on replica 2; replica 1 tells its status, and a cancel sent to it stops it.
    seen_there = settled(lambda: get_json(fleet.labs[0], "/experiments/storm?lab=ana")[1], lambda s: s["running"],
                         SETTING_BOUND_S)
    check(seen_there["running"] is True and (seen_there["options"] or {}).get("clients") == 2,
          f"replica 1 shows the storm replica 2 runs, with its options: {seen_there}")
    status, _, _ = request(fleet.labs[0], "/experiments/storm?lab=ana", "DELETE", {"X-Lab-Key": key})
    stopped = settled(lambda: get_json(fleet.labs[1], "/experiments/storm?lab=ana")[1], lambda s: not s["running"],
                      SETTING_BOUND_S + 2)
    check(status == 200 and not stopped["running"],
          f"a cancel sent to replica 1 stops the storm on replica 2 ({status})")
    # A storm that ended gives its lease back: another may start at once, anywhere.
    again = request(fleet.labs[2], "/experiments/storm?lab=ana&mode=resilient&clients=1&duration_s=1", "POST",
                    {"X-Lab-Key": key})[0]
    check(again == 202, f"after it, replica 3 starts a 1 s storm ({again})")
    settled(lambda: get_json(fleet.labs[2], "/experiments/storm?lab=ana")[1], lambda s: s["last_result"] is not None, 5)
    last = request(fleet.labs[0], storm, "POST", {"X-Lab-Key": key})[0]
    check(last == 202, f"the 1 s storm over, its lease is back: replica 1 starts one at once ({last})")
    request(fleet.labs[0], "/reset-lab?lab=ana", "POST", {"X-Lab-Key": key})
    stream.close()

sys.exit(1 if failures else 0)
