#!/usr/bin/env python3
"""Many replicas, one breaker, with real components: Debian's redis-server and
three `quote-lab serve` processes on 127.0.0.1 and free ports, sharing one carrier (the
embedded one of replica 1) and one Redis. Checks: a malformed or unreachable
--state-backend or a wrong Redis password stops start-up (exit 1); a breaker opened through one replica is open on
the others; after the cooldown 20 concurrent requests over the three replicas make exactly
one carrier call; a restarted replica keeps the shared state; Redis killed in the middle of
a storm: every quote still answers in its usual time and /dependency/state says unhealthy;
Redis back: healthy again within 5 s; a breaker opened by one replica right before Redis is
killed is open on all three within 10 s of its return.
Usage: test_redis_replicas.py <quote-lab binary>"""
import concurrent.futures
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures, refused_port  # noqa: E402
from lab_http import Lab, RedisServer  # noqa: E402
from poll import eventually  # noqa: E402

BINARY = sys.argv[1]
COOLDOWN_S = 2  # --open-duration-s: a policy number a teacher sets, short so the test is short
# The resilient timeout for this test (default 220 ms): an `ok` call (115-150 ms) then
# cannot time out however loaded the machine (a sanitizer build on 2 busy cores missed the
# 70 ms margin), so a probe that should close the breaker does. The failures that open it
# are carrier 503s (server_errors, 20-40 ms), which no timeout decides.
POLICIES = {"resilient": {"timeout_ms": 2000}}
# Rounding of cooldown_left_ms and the two clocks (ours, the lab's) in one comparison.
CLOCK_SLACK_S = 0.05


def get(port, path, timeout=10):
    """(status, parsed JSON body) of GET http://127.0.0.1:port/path."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


class Replica(Lab):
    """A `Lab` on the shared Redis with the test's cooldown and policies."""

    def __init__(self, name, folder, args):
        # The Redis bound is 250 ms, not the default 50: ctest runs this beside Chromium and
        # other labs on two cores, where a healthy Redis round trip can take over 50 ms and
        # the replica then rightly decides alone for a moment. This test proves the sharing;
        # a Redis that stops answering is bounded in test_redis_breaker_store.cpp.
        super().__init__(BINARY, folder, name, ["--open-duration-s", str(COOLDOWN_S),
                                                "--state-backend-timeout-ms", "250",
                                                "--policies", str(folder / "policies.json")] + args)

    def state(self):
        return get(self.port, "/dependency/state")[1]


def find(value, key):
    """The first value of `key` anywhere in a JSON document."""
    if isinstance(value, dict):
        if key in value:
            return value[key]
        value = list(value.values())
    if isinstance(value, list):
        for v in value:
            found = find(v, key)
            if found is not None:
                return found
    return None


def start_up_errors(redis_port, nobody):
    """Malformed or unreachable --state-backend: exit 1 and one clear sentence. `nobody`
    is a port that refuses connections."""
    cases = [
        ("redis://", "the port is missing"),
        ("redis://127.0.0.1:99999", "not a number 1-65535"),
        (f"redis://127.0.0.1:{redis_port}/zero", "is not a number 0-65535"),
        ("http://127.0.0.1:6379", "scheme 'http' is not supported"),
        (f"redis://127.0.0.1:{nobody}", f"cannot reach Redis at redis://127.0.0.1:{nobody}/0: Connection refused"),
    ]
    for url, says in cases:
        r = subprocess.run([BINARY, "serve", "--port", "0", "--carrier-port", "0", "--state-file",
                            os.devnull + ".none", "--state-backend", url], capture_output=True, text=True, timeout=30)
        out = r.stdout + r.stderr
        check(r.returncode == 1 and says in out, f"--state-backend {url}: exit 1 saying '{says}' "
                                                 f"(got {r.returncode}: {out.strip()[-200:]})")
    r = subprocess.run([BINARY, "serve", "--check", "--state-backend", "redis://127.0.0.1:6379/2"],
                       capture_output=True, text=True, timeout=30, env=dict(os.environ, STATE_BACKEND="file"))
    check(r.returncode == 0, "serve --check accepts a well-formed redis:// URL")
    r = subprocess.run([BINARY, "serve", "--check"], capture_output=True, text=True, timeout=30,
                       env=dict(os.environ, STATE_BACKEND="redis://:1"))
    check(r.returncode == 1 and "the host is missing" in r.stdout + r.stderr, "env STATE_BACKEND is validated too")


def password_at_start_up(folder):
    """A Redis that asks for a password (requirepass): the URL's password starts the lab, whose
    backend is healthy and whose log shows the URL without it; a wrong one stops start-up
    (exit 1) with one sentence that says AUTH refused and never repeats the password."""
    guarded = RedisServer(folder, password="correct-horse")
    guarded.start()
    try:
        wrong = f"redis://:battery-staple@127.0.0.1:{guarded.port}/0"
        r = subprocess.run([BINARY, "serve", "--port", "0", "--carrier-port", "0", "--state-file",
                            os.devnull + ".none", "--state-backend", wrong], capture_output=True, text=True, timeout=30)
        out = r.stdout + r.stderr
        check(r.returncode == 1 and "AUTH refused: WRONGPASS" in out and "battery-staple" not in out,
              f"a wrong Redis password: exit 1 saying AUTH refused, the password not repeated "
              f"(got {r.returncode}: {out.strip()[-300:]})")
        lab = Lab(BINARY, folder, "guarded", ["--state-backend", guarded.url])
        try:
            backend = get(lab.port, "/dependency/state")[1]["state_backend"]
            check(backend == {"kind": "redis", "healthy": True, "error": None},
                  f"the right password: the lab starts on that Redis, healthy (got {backend})")
            check("correct-horse" not in lab.log() and ":***@127.0.0.1" in lab.log(),
                  "the lab's log shows the Redis URL with its password masked")
        finally:
            lab.stop()
    finally:
        guarded.kill()


def state_after_cooldown(replica):
    """Reads what is left of the shared breaker's cooldown from `replica`, sleeps past it, and
    reads the state once more: the state is a function of time (SPEC), computed when asked, so
    that one read must say half_open; a sleep only ever overshoots. (first read, the monotonic
    time it was answered, second read)."""
    first = replica.state()
    answered = time.monotonic()
    left_s = first["cooldown_left_ms"] / 1000 if first["circuit_status"] == "open" else 0
    time.sleep(left_s + 2 * CLOCK_SLACK_S)
    return first, answered, replica.state()


def stop_fleet(labs, redis):
    """Stops the labs and Redis; after a failure, prints each lab's last log lines."""
    for r in labs:
        r.stop()
    redis.kill()
    if failures:
        for r in labs:
            print(f"--- {r.name} log (tail)")
            print("".join(r.log().splitlines(keepends=True)[-15:]))


def open_breaker_outlives_redis(folder):
    """A breaker opened by one replica just before Redis is killed (the others may not have
    followed it yet) is open on every replica within 10 s of Redis's return, empty: the
    replica that opened it seeds the new Redis on its own, with no quote or view reaching it,
    and an open breaker wins over a closed one whichever replica reached Redis first. The
    lab's defaults (a 30 s cooldown)."""
    redis = RedisServer(folder)
    redis.start()
    backend = ["--state-backend", redis.url]
    fleet = []
    try:
        one = Lab(BINARY, folder, "open-1", backend)
        fleet.append(one)
        carrier = ["--carrier-url", f"http://127.0.0.1:{one.carrier_port}"]
        fleet += [Lab(BINARY, folder, f"open-{n}", backend + carrier) for n in (2, 3)]
        opener = fleet[1]
        for _ in range(5):
            get(opener.port, "/quote-resilient?scenario=server_errors")
            if get(opener.port, "/dependency/state")[1]["circuit_status"] == "open":
                break
        redis.kill()  # at once: the quote that opened it was the last thing Redis heard
        before = [get(r.port, "/dependency/state")[1]["circuit_status"] for r in fleet]
        check(before[1] == "open", f"replica 2 opened the shared breaker, then Redis was killed ({before})")
        redis.start()
        back = time.monotonic()
        # Views read the store: only the opener's own view would not seed it (its breaker
        # is open there), so it is not asked until the others agree.
        others = [fleet[0], fleet[2]]
        agreed = eventually(lambda: all(get(r.port, "/dependency/state")[1]["circuit_status"] == "open"
                                        for r in others), 10, every=0.2)
        took = time.monotonic() - back
        states = [get(r.port, "/dependency/state")[1]["circuit_status"] for r in fleet]
        check(agreed and states == ["open"] * 3,
              f"Redis back empty: the breaker is open on every replica within 10 s ({states} after {took:.1f} s)")
    finally:
        stop_fleet(fleet, redis)


def main():
    if not shutil.which("redis-server"):
        print("redis-server is not installed (.ci/install-deps test)")
        return 1
    folder = pathlib.Path(tempfile.mkdtemp(prefix="quote-lab-redis-"))
    (folder / "policies.json").write_text(json.dumps(POLICIES))
    redis = RedisServer(folder)
    redis.start()
    check(True, f"redis-server answers PING on port {redis.port}")
    with refused_port() as nobody:
        start_up_errors(redis.port, nobody)
    password_at_start_up(folder)

    backend = ["--state-backend", redis.url]
    replicas = []
    try:
        one = Replica("replica1", folder, backend)  # its embedded carrier serves all three
        replicas.append(one)
        carrier = ["--carrier-url", f"http://127.0.0.1:{one.carrier_port}"]
        two = Replica("replica2", folder, backend + carrier)
        replicas.append(two)
        three = Replica("replica3", folder, backend + carrier)
        replicas.append(three)
        check(True, "three replicas answer /health")
        s = two.state()
        check(s["state_backend"] == {"kind": "redis", "healthy": True, "error": None},
              f"/dependency/state reports the Redis backend healthy (got {s['state_backend']})")

        def carrier_calls():
            return find(get(one.port, "/carrier")[1], "calls_total")

        # One server_errors quote through replica 1 opens the breaker (2 failed attempts).
        status, q = get(one.port, "/quote-resilient?scenario=server_errors")
        check(q["dependency"]["circuit_status"] == "open", "a server_errors quote opens the breaker on replica 1")
        for r in (two, three):
            s = r.state()
            check(s["circuit_status"] == "open" and s["open_events"] == 1 and s["cooldown_left_ms"] > 0,
                  f"...and it is open on {r.name} (open_events {s['open_events']}, "
                  f"cooldown_left_ms {s['cooldown_left_ms']})")
        before = carrier_calls()
        status, q = get(three.port, "/quote-resilient?scenario=server_errors")
        check(q["attempts"] == 0 and carrier_calls() == before,
              f"replica 3 short-circuits: no carrier call (attempts {q['attempts']})")

        # A restarted replica keeps the shared state (its own file says closed: Redis wins).
        # The breaker is judged against its own cooldown: a restart that outlasts what is
        # left of it (ThreadSanitizer on busy cores: over 2 s) rightly finds it half_open.
        asked = time.monotonic()
        left_s = two.state()["cooldown_left_ms"] / 1000
        answered = time.monotonic()
        two.stop()
        (folder / "replica2.json").unlink(missing_ok=True)
        two.start()
        asked_again = time.monotonic()
        s = two.state()
        answered_again = time.monotonic()
        # The lab read its breaker between `asked` and `answered`, and again between
        # `asked_again` and `answered_again`.
        least, most = asked_again - answered, answered_again - asked
        may_be = ({"open"} if least < left_s + CLOCK_SLACK_S else set()) | \
                 ({"half_open"} if most > left_s - CLOCK_SLACK_S else set())
        check(s["circuit_status"] in may_be and s["open_events"] == 1,
              f"restarted replica 2 shows the shared breaker: {s['circuit_status']}, open_events {s['open_events']} "
              f"(expected {sorted(may_be)}: {left_s:.3f} s of cooldown were left, the restart took "
              f"{least:.3f}-{most:.3f} s)")
        if s["circuit_status"] == "open":
            check(s["cooldown_left_ms"] / 1000 <= left_s - least + CLOCK_SLACK_S,
                  f"...with the cooldown that was left, not a new one ({s['cooldown_left_ms']} ms)")

        # After the cooldown: 20 concurrent requests over the three replicas, one carrier call.
        _, _, after = state_after_cooldown(one)
        check(after["circuit_status"] == "half_open",
              f"the shared breaker is half_open once its cooldown has passed ({after['circuit_status']})")
        before = carrier_calls()
        barrier = threading.Barrier(20)
        answered_at = [0.0] * 20

        def one_request(i):
            barrier.wait()
            answer = get(replicas[i % 3].port, "/quote-resilient?scenario=server_errors")
            answered_at[i] = time.monotonic()
            return answer

        released = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(20) as pool:
            answers = list(pool.map(one_request, range(20)))
        probes = [i for i, (_, a) in enumerate(answers) if a["attempts"] > 0]
        calls = carrier_calls() - before
        # The probe fails and reopens the breaker for COOLDOWN_S after `released`: a request
        # answered before released + COOLDOWN_S reached the breaker while it was open again,
        # so it cannot be a second probe. All 20 are answered within ~0.1 s (under a sanitizer
        # well within 1 s); only a request slower than the cooldown could rightly probe again.
        spread = max(answered_at) - released
        check(calls == len(probes) and (len(probes) == 1 if spread < COOLDOWN_S else len(probes) >= 1),
              f"after the cooldown, 20 concurrent requests over 3 replicas make exactly one carrier call "
              f"(carrier got {calls}, requests that called: {len(probes)}; the last answer {spread:.2f} s after "
              f"the release, the probe's reopened breaker cools down for {COOLDOWN_S} s)")
        check(all(st in (200, 503) for st, _ in answers), "every one of the 20 got an answer")

        # The failed probe reopened the breaker for exactly its cooldown, after `released`:
        # read before `read_at`, what is left lies between
        # COOLDOWN_S − (read_at − released) and COOLDOWN_S (a cooldown twice as long fails),
        # and one read once it has passed says half_open.
        first, read_at, after = state_after_cooldown(one)
        left_s = first["cooldown_left_ms"] / 1000
        check(first["circuit_status"] == "open" and
              COOLDOWN_S - (read_at - released) - CLOCK_SLACK_S <= left_s <= COOLDOWN_S + CLOCK_SLACK_S
              and after["circuit_status"] == "half_open",
              f"the failed probe reopened the breaker for its {COOLDOWN_S} s cooldown ({first['circuit_status']}, "
              f"{left_s:.2f} s left, read {read_at - released:.2f} s after the release), then half_open "
              f"({after['circuit_status']})")

        # A probe that succeeds closes the shared breaker, on every replica.
        _, probe = get(one.port, "/quote-resilient?scenario=ok")
        steps = [e["event"] for e in probe.get("events", [])]
        closed = [r.state()["circuit_status"] for r in replicas]
        check("half_open_probe" in steps and "attempt_success" in steps and closed == ["closed"] * 3,
              f"an ok probe closes the shared breaker (events {steps}, replicas say {closed})")

        # Redis killed in the middle of a storm: quotes keep their usual time.
        stop = threading.Event()
        results = []  # (elapsed s, status, phase)
        phase = ["before"]

        def storm(i):
            while not stop.is_set():
                started = time.time()
                try:
                    status, _ = get(replicas[i % 3].port, "/quote-resilient?scenario=ok", timeout=10)
                except OSError:
                    status = 0
                results.append((time.time() - started, status, phase[0]))

        threads = [threading.Thread(target=storm, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        time.sleep(1.5)
        redis.kill()
        phase[0] = "redis down"
        time.sleep(2)
        stop.set()
        for t in threads:
            t.join()
        down = [r for r in results if r[2] == "redis down"]
        usual = max(e for e, _, p in results if p == "before")
        worst = max(e for e, _, _ in down)
        check(len(down) > 10 and all(st == 200 for _, st, _ in down),
              f"with Redis killed every quote still answers 200 ({len(down)} quotes)")
        # Relative to the same storm before the kill, so it holds on any machine: a quote
        # that waited on the dead Redis (a connect timeout, a blocked lock) would take
        # seconds. A lab twice as slow is caught by the lesson test (a quote may not take
        # twice its own waits), not here.
        check(worst < max(1.0, 3 * usual),
              f"...within their usual time (slowest {worst * 1000:.0f} ms; before the kill {usual * 1000:.0f} ms)")
        for r in replicas:
            sb = r.state()["state_backend"]
            check(sb["kind"] == "redis" and sb["healthy"] is False and sb["error"],
                  f"{r.name}: /dependency/state says the backend is unhealthy ({sb['error']})")
        scrape = urllib.request.Request(f"http://127.0.0.1:{one.port}/metrics", headers={"Accept": "text/plain"})
        metrics = urllib.request.urlopen(scrape, timeout=10).read().decode()
        check("quote_lab_state_backend_up 0" in metrics and "quote_lab_state_backend_errors_total" in metrics,
              "the metrics say it too (quote_lab_state_backend_up 0)")

        # Redis back (empty: no persistence): healthy again within 5 s, the breaker resynced.
        redis.start()
        back = time.monotonic()
        healthy = all(eventually(lambda r=r: r.state()["state_backend"]["healthy"], 5 - (time.monotonic() - back),
                                 every=0.05) for r in replicas)
        check(healthy, f"Redis restarted: every replica healthy again within 5 s "
                       f"({time.monotonic() - back:.1f} s)")
        status, q = get(two.port, "/quote-resilient?scenario=server_errors")
        check(three.state()["circuit_status"] == "open", "after the restart the breaker is shared again")
    finally:
        stop_fleet(replicas, redis)
    open_breaker_outlives_redis(folder)
    shutil.rmtree(folder, ignore_errors=True)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
