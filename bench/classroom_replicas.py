#!/usr/bin/env python3
"""One classroom on three replicas sharing Redis: what a quote costs Redis, and what one Redis
and three replicas serve on this machine, measured (docs/replicas.md).

    python3 bench/classroom_replicas.py [--binary build/quote-lab] [--students 30]
                                        [--duration-s 20] [--think-ms 1000] [--out FILE]

Starts deploy/replicas/run --backend redis (one carrier, three `quote-lab serve`, HAProxy,
Debian's redis-server) on free loopback ports, then:
  1. Redis per quote: CONFIG RESETSTAT, 200 quotes (`ok`) through HAProxy spread over 10
     labs, INFO commandstats: every command the replicas sent, per quote, by name (the
     breaker's two scripts, the fallback quote, the class log's XADD, its XREAD polls).
  2. The class: --students students, each with a lab of their own, a page (its live stream,
     /events?lab=NAME) open through HAProxy and a quote every --think-ms (closed loop: the
     next one after the answer and the think time), for --duration-s. Reported: quotes/s,
     latency p50/p95/p99, how many of each lab's quotes its page received (the stream carries
     every quote of the lab, whichever replica served it), Redis's CPU and commands per second.
Each figure is printed as Markdown; nothing is guessed: a figure that could not be measured
says so."""
import argparse
import http.client
import json
import pathlib
import socket
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))
from replicas_run import Fleet, replicas, request  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--binary", default=str(ROOT / "build" / "quote-lab"))
parser.add_argument("--students", type=int, default=30)
parser.add_argument("--duration-s", type=float, default=20)
parser.add_argument("--think-ms", type=float, default=1000)
parser.add_argument("--out")
args = parser.parse_args()


def redis(port, *command):
    """One command in RESP over a socket (redis-cli is not on every machine): the raw reply."""
    payload = b"*%d\r\n" % len(command) + b"".join(b"$%d\r\n%s\r\n" % (len(c.encode()), c.encode()) for c in command)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(payload)
        reply = b""
        while True:
            chunk = s.recv(65536)
            reply += chunk
            if not chunk or (reply.startswith(b"$") and reply.count(b"\r\n") >= 2 and
                             len(reply) >= int(reply[1:reply.index(b"\r\n")]) + reply.index(b"\r\n") + 4) \
                    or (reply[:1] in b"+-:" and reply.endswith(b"\r\n")):
                return reply.decode(errors="replace")


def info(port, section):
    out = {}
    for line in redis(port, "INFO", section).splitlines():
        if ":" in line and not line.startswith("#"):
            k, v = line.split(":", 1)
            out[k.strip()] = v.strip()
    return out


def commandstats(port):
    calls = {}
    for k, v in info(port, "commandstats").items():
        if k.startswith("cmdstat_"):
            calls[k[8:]] = int(dict(p.split("=") for p in v.split(","))["calls"])
    return calls


def cpu_s(port):
    i = info(port, "cpu")
    return float(i["used_cpu_sys"]) + float(i["used_cpu_user"])


class Page:
    """A lab's page: its live stream through the proxy, counting quote events."""

    def __init__(self, port, lab):
        self.quotes = 0
        self.c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.c.request("GET", f"/events?lab={lab}", headers={"Accept": "text/event-stream"})
        self.r = self.c.getresponse()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        try:
            for line in iter(self.r.readline, b""):
                if line.startswith(b"event: quote"):
                    self.quotes += 1
        except (OSError, ValueError, AttributeError, http.client.HTTPException):
            pass  # closed at the end


def percentile(xs, p):
    xs = sorted(xs)
    return xs[max(0, min(len(xs) - 1, int(-(-p * len(xs) // 1)) - 1))] if xs else None


def main():
    fleet = Fleet(args.binary)
    lines = []
    # The replicas as a user starts them: the serve defaults (workers, event clients).
    with replicas(ROOT, fleet, "redis"):
        keys = {}
        for n in range(max(10, args.students)):
            status, _, body = request(fleet.public, f"/quote/resilient?lab=s{n}&scenario=ok")
            keys[n] = json.loads(body).get("lab_key")
        time.sleep(0.5)  # the class log has carried the warm-up

        # 1. Redis per quote.
        redis(fleet.redis, "CONFIG", "RESETSTAT")
        n_quotes = 200
        t0 = time.monotonic()
        for i in range(n_quotes):
            request(fleet.public, f"/quote/resilient?lab=s{i % 10}&scenario=ok")
        took = time.monotonic() - t0
        time.sleep(0.5)
        stats = commandstats(fleet.redis)
        polls = stats.get("xread", 0)
        lines.append(f"### Redis per quote ({n_quotes} `ok` quotes through HAProxy, 10 labs, 3 replicas, {took:.1f} s)\n")
        lines.append("| command | calls | per quote |")
        lines.append("|---|---|---|")
        for name, calls in sorted(stats.items(), key=lambda kv: -kv[1]):
            lines.append(f"| `{name}` | {calls} | {calls / n_quotes:.2f} |")
        # Redis counts the commands a script runs too: those are not round trips.
        inside_scripts = {"hmget", "time", "hset", "expire", "pexpire", "set", "zremrangebyscore", "zcard",
                          "zadd", "zscore"}
        on_path = sum(c for k, c in stats.items()
                      if k not in inside_scripts | {"xread", "xadd", "info", "config|resetstat", "ping"})
        lines.append(f"\nRound trips on the request path (scripts and plain commands; not the commands a "
                     f"script runs, nor the class log's `xadd`/`xread`): "
                     f"**{on_path / n_quotes:.2f} round trips per quote**; class log: "
                     f"{stats.get('xadd', 0) / n_quotes:.2f} `XADD` per quote (off the request path), "
                     f"`XREAD` polls {polls / took / 3:.1f}/s per replica whatever the load.\n")

        # 2. The class.
        pages = [Page(fleet.public, f"s{n}") for n in range(args.students)]
        time.sleep(0.5)
        sent = [0] * args.students
        outcomes = {}
        latencies = []
        lock = threading.Lock()
        stop = time.monotonic() + args.duration_s
        cpu0, cmds0 = cpu_s(fleet.redis), sum(commandstats(fleet.redis).values())

        def student(n):
            while time.monotonic() < stop:
                t = time.monotonic()
                status, _, body = request(fleet.public, f"/quote/resilient?lab=s{n}&scenario=ok", timeout=30)
                try:
                    outcome = json.loads(body).get("status", str(status))
                except ValueError:
                    outcome = str(status)
                with lock:
                    latencies.append((time.monotonic() - t) * 1000)
                    sent[n] += 1 if status == 200 else 0
                    outcomes[outcome] = outcomes.get(outcome, 0) + 1
                time.sleep(args.think_ms / 1000)

        t0 = time.monotonic()
        threads = [threading.Thread(target=student, args=(n,)) for n in range(args.students)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - t0
        cpu1, cmds1 = cpu_s(fleet.redis), sum(commandstats(fleet.redis).values())
        time.sleep(1.5)  # the last entries reach the pages
        got = sum(min(p.quotes, s) for p, s in zip(pages, sent))
        total = sum(sent)
        lines.append(f"### {args.students} students, a page each, a quote every {args.think_ms:.0f} ms "
                     f"after the answer, {elapsed:.0f} s\n")
        lines.append("| figure | value |")
        lines.append("|---|---|")
        lines.append(f"| quotes answered (200) | {total} ({total / elapsed:.1f}/s) |")
        lines.append("| by status | " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())) + " |")
        lines.append(f"| latency p50 / p95 / p99 | {percentile(latencies, .5):.0f} / {percentile(latencies, .95):.0f}"
                     f" / {percentile(latencies, .99):.0f} ms |")
        lines.append(f"| quotes each page received of its lab's | {got} of {total} |")
        lines.append(f"| Redis CPU | {(cpu1 - cpu0) / elapsed * 100:.1f} % of a core "
                     f"({(cpu1 - cpu0) / max(total, 1) * 1e6:.0f} µs per quote) |")
        lines.append(f"| Redis commands | {(cmds1 - cmds0) / elapsed:.0f}/s |")
        for p in pages:
            p.c.close()
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text)


main()
