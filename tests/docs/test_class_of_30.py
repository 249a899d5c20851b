#!/usr/bin/env python3
"""A class of 30 on one lab, started as the teacher's kit says (docs/clase/plan.md: the
defaults, `--language es` and a teacher token; here on 127.0.0.1), from step 0 to the
closing's ranking:

- 30 students follow docs/lesson.md at once (test_lesson.py's class plan): every Práctica
  step by all 30 at the same time, the teacher's demos (steps 5 and 6) by the teacher, whose
  labs (`profe-pasoN`) are projected: a live stream (/events) of each is held open, as the
  projected page holds it;
- meanwhile 4 other students keep a legacy storm running on provider_down in their own
  labs (30 clients, as step 6's), one after another for the whole class: the class's cap of 4
  student storms is full the whole time, and the teacher's storms are still admitted;
- a probe asks /health every 0.1 s, and the teacher asks a resilient `ok` quote every 0.5 s
  in a lab of their own (answered live, from the carrier, in 19 of 20).

What must hold: no refusal from the lab itself (no too_many_labs, no class_storms_busy for
anyone the cap allows, no 5xx the carrier did not cause: the lesson's expectations name every
status); every shape claim (statuses, fields, events) for every student; every range (a
number compared with < <= > >=) in at least 19 of 20 answers; the teacher's quote p50 under
300 ms and /health's p99 under 50 ms; the 4 storms each start every time (202); and at the
end GET /class ranks the 30 students (each with a place).

What the storms took from the class was the carrier's threads, not the lab's cores: four
legacy storms on provider_down held all 144 of the old default (about 34 each: a quote's
attempt and the hung one the carrier still serves), and the students' flaky_provider quotes
waited for a carrier thread past their 220 ms timeout (4-14 of 30 completed). The default is
now counted for a class (options.hpp: 354), and ten runs in a row here held every check, with
/health's p99 at 16-33 ms over about 300 probes (a probe every 0.1 s: with 120, the p99 was
the second-slowest probe, and one stall of the machine's decided it).

The same class runs through the classroom's edge with `--edge haproxy`: the lab started as
the kit's other line says (`LAB_ADMIN_TOKEN=… deploy/classroom --language es`: HAProxy in front,
deploy/haproxy.cfg), every participant, probe and projected stream going through the proxy.

Usage: test_class_of_30.py QUOTE_LAB_BINARY SOURCE_DIR [--edge haproxy]"""
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, HERE)
import lesson_checks as lc  # noqa: E402
import test_lesson  # noqa: E402
from checks import check, failures  # noqa: E402
from lab_http import Classroom  # noqa: E402

BINARY, ROOT = sys.argv[1], sys.argv[2]
THROUGH_HAPROXY = sys.argv[3:] == ["--edge", "haproxy"]
if sys.argv[3:] and not THROUGH_HAPROXY:
    raise SystemExit(__doc__)
TOKEN = "token-de-la-clase"
# The kit's start lines (plan.md), every other setting at its default:
# LAB_ADMIN_TOKEN=… bash .ci/up --host 0.0.0.0 --language es, or with HAProxy in front,
# LAB_ADMIN_TOKEN=… deploy/classroom --language es.
KIT_ARGS = ["--language", "es", "--admin-token", TOKEN]
CLASSROOM_ARGS, CLASSROOM_ENV = ["--language", "es"], {"LAB_ADMIN_TOKEN": TOKEN}
STUDENTS = 30
# Letters only (YO is a lab name's first part), and none the prefix of another plus '-'.
ROSTER = ["ana", "beto", "carla", "diego", "elena", "fabi", "gabo", "hugo", "ines", "juan", "karen", "luis",
          "maria", "nico", "olga", "pablo", "quique", "rosa", "sara", "tomas", "ursula", "vale", "walter",
          "ximena", "yago", "zoe", "abril", "bruno", "cami", "dario"]
STORMERS = ["tormenta", "rayo", "trueno", "granizo"]
STORM = "/experiments/storm?mode=legacy&scenario=provider_down&clients=30&duration_s=20&lab={name}-paso6"
HEALTH_P99_MS = 50
TEACHER_P50_MS = 300
RANGE = ("<", ">")  # a check comparing a number: a range
# Claims a timeout's margin decides, judged as the ranges are, in 19 of 20 answers: (part of
# the command, start of the check; None: every check of it).
# - flaky_provider's attempt 2 answers in 150-195 ms against resilient's 220 ms timeout (25 ms;
#   the lesson says so): with 30 students asking at the same instant on 2 cores, one in 30
#   was seen to time out (status degraded, a fallback quote, the breaker counting a failure).
# An `ok` call's 115-150 ms against the same 220 ms (70 ms) is a shape claim (`attempts=1`) for
# every student: the participants keep off one of the lab's cores (see started_lab).
TIMED = (("quote-resilient?scenario=flaky_provider", None),)
# /health is probed from a process of its own: in this one, 35 threads share one interpreter
# lock, and a probe's time would be theirs, not the lab's. It asks every `interval` s until its
# stdin closes, then prints the times (ms; a failed probe is null) as one JSON line.
HEALTH_PROBE = """
import http.client, json, os, select, sys, time
# Back to the lab's priority (this process was started at the participants' niceness): the
# time measured is the lab's answer, not this probe's wait for a core.
os.nice(-os.nice(0))
port, interval, times, began = int(sys.argv[1]), float(sys.argv[2]), [], time.monotonic()
while not select.select([sys.stdin], [], [], interval)[0]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    t = time.monotonic()
    try:
        c.request("GET", "/health")
        ok = c.getresponse().status == 200
    except OSError:
        ok = False
    times.append([(time.monotonic() - t) * 1000 if ok else None, round(t - began, 1)])
    c.close()
print(json.dumps(times))
"""


def answer_key_ranges(path):
    """The ranges docs/clase/respuestas.md promises, from its `<!-- range: COMMAND FIELD MIN MAX
    [when FIELD=VALUE] -->` lines: (command, field, low, high, condition or None), where
    COMMAND is the part of the lesson's curl line after `$LAB/`."""
    found = []
    for m in re.finditer(r"<!-- range: (\S+) (\S+) (\S+) (\S+)(?: when (\S+)=(\S+))? -->", open(path, encoding="utf-8").read()):
        command, field, low, high, when_field, when_value = m.groups()
        found.append((command, field, float(low), float(high), (when_field, when_value) if when_field else None))
    return found


def call(lab, path, method="GET", headers=None, timeout=30):
    """(status, JSON body or None, seconds) of one request on a fresh connection; status 0
    when the lab did not answer."""
    c = http.client.HTTPConnection("127.0.0.1", lab.port, timeout=timeout)
    started = time.monotonic()
    try:
        c.request(method, path, headers=headers or {})
        r = c.getresponse()
        body = r.read()
        took = time.monotonic() - started
        try:
            return r.status, json.loads(body or b"null"), took
        except ValueError:
            return r.status, None, took
    except OSError:
        return 0, None, time.monotonic() - started
    finally:
        c.close()


class Background:
    """The class's other traffic while the lesson runs, each on a thread, until stop()."""

    def __init__(self, lab):
        self.lab, self.stop_event = lab, threading.Event()
        self.health_ms, self.teacher_ms, self.storm_starts, self.problems = [], [], [], []
        self.teacher_live = []  # each teacher's quote: answered live (not a fallback)
        self.streams, self.threads = [], []

    def start(self):
        for name in STORMERS:
            status, body, _ = call(self.lab, f"/claim?name={name}", "POST")
            if status != 201:
                self.problems.append(f"{name}'s claim: HTTP {status} {body}")
                continue
            self.spawn(self.storms, name, body["lab_key"])
        self.probe = subprocess.Popen([sys.executable, "-c", HEALTH_PROBE, str(self.lab.port), "0.1"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.spawn(self.teacher_quotes)
        # The projected page of each teacher lab holds its live stream for the whole class.
        for step in range(1, 8):
            c = http.client.HTTPConnection("127.0.0.1", self.lab.port, timeout=300)
            c.request("GET", f"/events?lab=profe-paso{step}", headers={"Accept": "text/event-stream"})
            self.streams.append(c)

    def spawn(self, target, *args):
        t = threading.Thread(target=target, args=args, daemon=True)
        t.start()
        self.threads.append(t)

    def storms(self, name, key):
        path = STORM.format(name=name)
        while not self.stop_event.is_set():
            status, body, _ = call(self.lab, path, "POST", {"X-Lab-Key": key})
            self.storm_starts.append((name, status, (body or {}).get("error")))
            if status != 202:
                self.stop_event.wait(1)
                continue
            # Until it ends (its 20 s and its last answers), then the next one at once.
            while not self.stop_event.is_set():
                if not (call(self.lab, f"/experiments/storm?lab={name}-paso6")[1] or {}).get("running"):
                    break
                self.stop_event.wait(0.5)

    def teacher_quotes(self):
        auth = {"Authorization": f"Bearer {TOKEN}"}
        while not self.stop_event.is_set():
            status, body, took = call(self.lab, "/quote-resilient?scenario=ok&lab=profe-sonda", headers=auth)
            self.teacher_ms.append(took * 1000 if status == 200 else float("inf"))
            self.teacher_live.append(status == 200 and (body or {}).get("status") == "completed")
            self.stop_event.wait(0.5)

    def stop(self):
        self.stop_event.set()
        out, _ = self.probe.communicate(timeout=60)
        # [(ms, seconds since the probe started)]; a failed probe takes forever.
        self.health_ms = [(float("inf") if t is None else t, at) for t, at in json.loads(out)]
        for t in self.threads:
            t.join(60)
        for c in self.streams:
            c.close()


def main():
    lc.self_check()
    lesson = os.path.join(ROOT, "docs", "lesson.md")
    problems, plan = test_lesson.class_plan([(lesson, STUDENTS)], roster=ROSTER)
    for p in problems:
        check(False, p)
    promised = answer_key_ranges(os.path.join(ROOT, "docs", "clase", "respuestas.md"))
    check(len(promised) >= 20, f"respuestas.md marks its ranges ({len(promised)})")
    seen = {r: [] for r in promised}  # each range of the answer key -> the numbers the class saw
    tally = {}  # (command, check) -> [passed, answers]
    missed = {}  # (command, check) -> the first answer that missed it: (status, start of body)
    statuses = []

    def record(_lesson, command, expectation, status, body):
        statuses.append((command, status, body[:300]))
        doc = lc.answer_doc(body)
        for r in promised:
            where, field, _, _, when = r
            if f"$LAB/{where}\"" not in command or (when and lc.as_text((lc.lookup(doc, when[0]) or [None])[0]) != when[1]):
                continue
            seen[r] += [v for v in lc.lookup(doc, field) if isinstance(v, (int, float))][:1] or [None]
        for c in lc.checks(expectation):
            t = tally.setdefault((command, c[0]), [0, 0])
            held = lc.judge(c, status, doc)[0]
            t[1] += 1
            t[0] += held
            if not held:
                missed.setdefault((command, c[0]), (status, body[:240]))

    background = {}

    def started_lab(lab):
        # In a class the 31 participants' curls run on 31 machines, not on the lab's two
        # cores: here they run after the lab when both want a core (the lab, already started,
        # keeps its priority; this process and every curl it starts from now on yield to it).
        # At niceness 19, not 10: CFS weighs a nice-10 task at 110 and a nice-0 one at 1024, so
        # 30 curls starting at once outweighed the lab's and HAProxy's threads 3 to 1, and the
        # proxy's two extra wake-ups per /health doubled its tail (88-122 ms probes through
        # HAProxy while the lab, asked directly at the same moments, answered in 15-21 ms);
        # at 19 (weight 15) they weigh less than one of the lab's threads.
        os.nice(19)
        # And on one core of the machine's, never the lab's last: with the 31 participants'
        # curls free to run on both cores, the lab's own waits overran (a carrier call arriving
        # 30-90 ms after it was sent, a carrier's sleep waking up to 117 ms late: 27-105 such
        # events in a class), and in 2 of 13 classes one student's step-1 `ok` quote timed out
        # once (493 ms, 2 attempts). With the participants on one core: 3-5 such events, none on
        # a student's quote. The lab, already started, keeps every core; the threads and curls
        # started from here on inherit this affinity.
        cores = sorted(os.sched_getaffinity(0))
        if len(cores) > 1:
            os.sched_setaffinity(0, cores[-1:])
        background["b"] = Background(lab)
        background["b"].start()

    ranking = {}

    def before_stop(lab):
        background["b"].stop()
        ranking.update(call(lab, "/class", headers={"Accept": "application/json"})[1] or {})

    started = time.monotonic()
    lesson_failures, count, people = test_lesson.run_plan(
        BINARY, plan, record=record, lab_args=KIT_ARGS, students=ROSTER, started_lab=started_lab,
        before_stop=before_stop,
        new_lab=(lambda folder: Classroom(BINARY, folder, ROOT, CLASSROOM_ARGS, CLASSROOM_ENV)) if THROUGH_HAPROXY else None)
    took = time.monotonic() - started
    b = background["b"]
    check(not b.problems, f"the 4 storming students claimed their names ({b.problems})")
    check(people == STUDENTS + 1, f"30 students and the teacher followed the lesson ({people} participants, "
                                  f"{count} commands, {took:.0f} s)")

    # Refusals the lab made of its own.
    own = [(c, s, body) for c, s, body in statuses
           if s in (429, 503) and any(e in body for e in (b"too_many_labs", b"class_storms_busy", b"shutting_down"))]
    check(not own, f"no too_many_labs, class_storms_busy or shutting_down in the lesson ({own[:3]})")
    # A wait that never came true (within=… until:…) is a shape claim.
    waits = [f for f, _ in lesson_failures if "not within" in f]
    check(not waits, f"every wait of the lesson came true in time ({waits[:3]})")
    timed = lambda k: any(op in k[1] for op in RANGE) or any(  # noqa: E731
        command in k[0] and (check is None or k[1].startswith(check)) for command, check in TIMED)
    shapes = {k: v for k, v in tally.items() if not timed(k) and v[0] < v[1]}
    check(not shapes, "every shape claim held for every student: " +
          "; ".join(f"{c} {chk}: {p}/{n} (first miss: HTTP {missed[(c, chk)][0]} {missed[(c, chk)][1]!r})"
                    for (c, chk), (p, n) in list(shapes.items())[:5]))
    ranges = {k: v for k, v in tally.items() if timed(k)}
    short = {k: v for k, v in ranges.items() if v[0] * 20 < v[1] * 19}
    check(not short, f"every range held in at least 19 of 20 answers ({len(ranges)} ranges): " +
          "; ".join(f"{c} {chk}: {p}/{n} (first miss: HTTP {missed[(c, chk)][0]} {missed[(c, chk)][1]!r})"
                    for (c, chk), (p, n) in list(short.items())[:5]))

    # The answer key's ranges: what the teacher reads out, for at least 19 of 20 answers (the
    # teacher's demos: their one answer).
    for (where, field, low, high, when), got in seen.items():
        held = sum(1 for v in got if v is not None and low <= v <= high)
        numbers = sorted(v for v in got if v is not None)
        spread = f"{numbers[0]}-{numbers[-1]}" if numbers else "none"
        check(got and held * 20 >= len(got) * 19,
              f"respuestas.md: {where} {field} in {low:g}-{high:g}{f' ({when[0]}={when[1]})' if when else ''}: "
              f"{held} of {len(got)} (seen {spread})")

    starts = [s for s in b.storm_starts if s[1] != 202]
    check(len(b.storm_starts) >= 4 and not starts,
          f"the 4 student storms started every time ({len(b.storm_starts)} starts; refused: {starts[:3]})")
    health = sorted(b.health_ms)
    p99 = health[min(len(health) - 1, int(len(health) * 0.99))][0] if health else float("inf")
    slowest = ", ".join(f"{ms:.0f} ms at {at:g} s" for ms, at in health[::-1][:5])
    check(len(health) > 20 and p99 < HEALTH_P99_MS,
          f"/health p99 {p99:.1f} ms over {len(health)} probes (bound {HEALTH_P99_MS} ms; slowest: {slowest})")
    p50 = statistics.median(b.teacher_ms) if b.teacher_ms else float("inf")
    check(len(b.teacher_ms) > 10 and p50 < TEACHER_P50_MS,
          f"the teacher's quote p50 {p50:.1f} ms over {len(b.teacher_ms)} quotes (bound {TEACHER_P50_MS} ms)")

    # A quote answered from the fallback is fast too: a p50 of fallbacks would hide a carrier
    # the class cannot reach.
    live = sum(b.teacher_live)
    check(live * 20 >= len(b.teacher_live) * 19,
          f"the teacher's quotes were answered live ({live} of {len(b.teacher_live)}; at least 19 of 20)")

    students = {s["name"]: s for s in ranking.get("students", [])}
    unranked = [n for n in ROSTER if (students.get(n) or {}).get("place") is None]
    check(not unranked, f"GET /class ranks the 30 students at the end ({len(students)} students; "
                        f"without a place: {unranked[:5]})")
    check(not any(n.startswith("profe") for n in students), "the teacher's labs are not in the students' ranking")
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
