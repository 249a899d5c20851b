"""The lesson's commands, run in order, give what the lesson says.

Reads every ```sh block of the lesson files, runs each line with the real `curl` against a
lab started at its default settings on the port it binds (only http://127.0.0.1:8080 is
rewritten), and checks the `<!-- expect: ... -->` comments that follow the block: one per
command, in order, so the doc and this test cannot drift apart. An expectation is a list of
checks separated by spaces (shell quoting for values with spaces):

    http=503                   the HTTP status
    status=degraded            a JSON field (dotted path; list items by index: events.0.event)
    events[].event~backoff     `[]` takes the field of every item; `~` means "contains"
    cooldown_left_ms>20000     numbers compare with < <= > >= = !=
    within=30 until:running=false
                               a state that changes by itself (a storm ending, a storm's first
                               requests, a quote that queued): run the command again every
                               0.25 s, for at most 30 s, until the `until:` checks hold; the
                               other checks are then judged once, on that answer. A command is
                               never asked again because one of its other checks failed: a
                               lab that answers wrong sometimes must fail here.

With `--any-order SEED` (the per-scenario lessons in docs/lessons/) every ```sh block is one
step that must stand alone: its first command resets its own `?lab=NAME`, every command names
that lab, and no two steps share one. The steps of all the files are then run in an order
shuffled by SEED, so a lesson that leaned on an earlier step's state fails. A folder stands for
its *.md files (README files excepted).

Usage: test_lesson.py QUOTE_LAB_BINARY [--any-order SEED] LESSON.md|FOLDER ...   (LESSON_TRACE=1
prints each command as it runs)"""
import glob
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from lab_http import Lab  # noqa: E402

DOC_BASE = "http://127.0.0.1:8080"
BLOCK = re.compile(r"```sh\n(.*?)```\n((?:[ \t]*<!-- expect:.*?-->[ \t]*\n)*)", re.S)
EXPECT = re.compile(r"<!-- expect:(.*?)-->", re.S)
CHECK = re.compile(r"^([^<>=!~]+?)(<=|>=|!=|=|<|>|~)(.*)$", re.S)


def steps(markdown):
    """[(command, expectation text)] of every ```sh block, in order. A block whose command
    count differs from its expect comments is an error: the doc and the test would drift."""
    out = []
    for block in BLOCK.finditer(markdown):
        commands = [line.strip() for line in block.group(1).splitlines() if line.strip() and not line.startswith("#")]
        expects = [e.strip() for e in EXPECT.findall(block.group(2))]
        if len(commands) != len(expects):
            raise SystemExit(f"a ```sh block has {len(commands)} commands but {len(expects)} expect comments:\n"
                             + block.group(0))
        out += list(zip(commands, expects))
    return out


def blocks(markdown):
    """[[(command, expectation)]] per ```sh block: one step of a lesson."""
    return [steps(block.group(0)) for block in BLOCK.finditer(markdown)]


LAB = re.compile(r"[?&]lab=([a-z0-9-]+)")


def standalone_problems(name, block):
    """Why a step cannot run on its own (empty when it can)."""
    labs = {m for command, _ in block for m in LAB.findall(command)}
    problems = []
    if any(not LAB.search(command) for command, _ in block) or len(labs) != 1:
        problems.append(f"{name}: every command of a step must name the same ?lab= (got {sorted(labs)})")
    elif "/reset-lab?" not in block[0][0] or "-X POST" not in block[0][0]:
        problems.append(f"{name}: a step must start by resetting its lab: {block[0][0]}")
    return problems, next(iter(labs), None)


def lesson_files(args):
    files = []
    for a in args:
        files += sorted(f for f in glob.glob(os.path.join(a, "*.md")) if not os.path.basename(f).startswith("README")) \
            if os.path.isdir(a) else [a]
    return files


def lookup(value, path):
    """The values at a dotted `path` in `value` (a list: `[]` fans out over items)."""
    values = [value]
    for part in path.split("."):
        fan = part.endswith("[]")
        key = part[:-2] if fan else part
        nxt = []
        for v in values:
            if isinstance(v, dict) and key in v:
                v = v[key]
            elif isinstance(v, list) and key.isdigit() and int(key) < len(v):
                v = v[int(key)]
            else:
                continue
            nxt += v if fan and isinstance(v, list) else [v]
        values = nxt
    return values


def as_text(v):
    return json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v


def holds(op, got, want):
    if op == "~":
        return want in got if isinstance(got, (str, list)) else False
    if op in ("=", "!="):
        same = (isinstance(got, (int, float)) and not isinstance(got, bool) and _num(want) is not None
                and got == _num(want)) or as_text(got) == want
        return same if op == "=" else not same
    n = _num(want)
    if n is None or isinstance(got, bool) or not isinstance(got, (int, float)):
        return False
    return {"<": got < n, "<=": got <= n, ">": got > n, ">=": got >= n}[op]


def _num(text):
    try:
        return float(text)
    except ValueError:
        return None


def failed_checks(expectation, status, body, waiting=False):
    """The checks of `expectation` that do not hold for an answer (`status`, `body` bytes):
    its `until:` checks when `waiting`, its other checks otherwise."""
    try:
        doc = json.loads(body)
    except ValueError:
        doc = None
    bad = []
    for token in shlex.split(expectation):
        if token.startswith("until:") != waiting:
            continue
        m = CHECK.match(token.removeprefix("until:"))
        if not m:
            raise SystemExit(f"cannot read the check {token!r} in: {expectation}")
        path, op, want = m.groups()
        if path == "within":
            continue
        if path == "http":
            ok = holds(op, status, want)
            got = status
        else:
            found = lookup(doc, path) if doc is not None else []
            if path.count("[]") and op == "~":  # some item of the fanned-out list
                ok = any(as_text(v) == want for v in found)
            else:
                ok = len(found) == 1 and holds(op, found[0], want)
            got = found if path.count("[]") else (found[0] if found else "(absent)")
        if not ok:
            bad.append(f"{token} (got {as_text(got)[:200]})")
    return bad


def within_s(expectation):
    """The seconds a command may wait for its `until:` checks; 0 without them. `within=`
    without `until:` (or the reverse) is an error: what to wait for must be said."""
    tokens = shlex.split(expectation)
    within = [float(t.split("=", 1)[1]) for t in tokens if t.startswith("within=")]
    waits = any(t.startswith("until:") for t in tokens)
    if bool(within) != waits:
        raise SystemExit(f"within=N and until:CHECK go together: {expectation}")
    return within[0] if within else 0.0


def run(command, base, out_path):
    """Runs one lesson line as written, with the lab's address swapped in; (status, body)."""
    argv = shlex.split(command.replace(DOC_BASE, base))
    if argv[0] != "curl" or not any(a.startswith(base) for a in argv):
        raise SystemExit(f"a lesson command must be a curl line against {DOC_BASE}: {command}")
    done = subprocess.run(argv + ["--max-time", "60", "-o", out_path, "-w", "%{http_code}"],
                          capture_output=True, text=True, timeout=90)
    with open(out_path, "rb") as f:
        return int(done.stdout or 0), f.read()


def self_check():
    """The checker itself catches a false statement and a slow quote (so a green run means
    something)."""
    policies = {"resilient": {"timeout_ms": 220}}
    flaky = {"mode": "resilient", "elapsed_ms": 560, "events": [
        {"event": "attempt_failed", "reason": "timeout", "elapsed_ms": 221}, {"event": "backoff", "wait_ms": 110},
        {"event": "attempt_success", "elapsed_ms": 190}]}
    assert slow_quote(json.dumps(flaky).encode(), policies) == [], slow_quote(json.dumps(flaky).encode(), policies)
    for slow in ({**flaky, "elapsed_ms": 1100},
                 {**flaky, "events": [{"event": "attempt_failed", "reason": "timeout", "elapsed_ms": 440}]}):
        assert slow_quote(json.dumps(slow).encode(), policies), f"the checker let {slow} pass"
    body = json.dumps({"status": "degraded", "attempts": 0, "events": [{"event": "short_circuit"}],
                       "dependency": {"circuit_status": "open"}}).encode()
    true = "http=200 status=degraded attempts=0 events[].event~short_circuit dependency.circuit_status=open attempts<1"
    assert failed_checks(true, 200, body) == [], failed_checks(true, 200, body)
    for false in ("http=503", "status=ok", "attempts=2", "attempts>0", "events[].event~backoff",
                  "dependency.circuit_status=closed", "queue_ms>0", "missing=1"):
        assert failed_checks(false, 200, body), f"the checker let {false!r} pass"
    # A wait condition is judged apart from the checks: met, the other checks still decide.
    waited = "within=5 until:status=degraded attempts=2"
    assert failed_checks(waited, 200, body, waiting=True) == []
    assert failed_checks(waited, 200, body) == ["attempts=2 (got 0)"], failed_checks(waited, 200, body)


def planned_runs(args):
    """[(lesson file, [(command, expectation)])]: each file whole, in order; with --any-order
    SEED, each step (```sh block) on its own, all files' steps shuffled by SEED."""
    seed = None
    if args[:1] == ["--any-order"]:
        seed, args = int(args[1]), args[2:]
    files = lesson_files(args)
    if not files:
        raise SystemExit("no lesson files given")
    if seed is None:
        return [], [(f, block) for f in files for block in blocks(open(f, encoding="utf-8").read()) or [[]]]
    problems, runs, owner = [], [], {}
    for f in files:
        name = os.path.basename(f)
        file_blocks = blocks(open(f, encoding="utf-8").read())
        if not file_blocks:
            problems.append(f"{name}: no ```sh blocks with expect comments")
        for block in file_blocks:
            found, lab = standalone_problems(name, block)
            problems += found
            # The es and en files of one scenario may share their labs; other lessons may not.
            scenario = name.split(".")[0]
            if lab and owner.setdefault(lab, scenario) != scenario:
                problems.append(f"{name}: lab {lab} is also used by the lesson on {owner[lab]}")
            runs.append((f, block))
    random.Random(seed).shuffle(runs)
    print(f"{len(runs)} steps of {len(files)} lessons, in an order shuffled by seed {seed}")
    return problems, runs


# A quote whose own waits (its timeouts and backoffs, and its other attempts' carrier
# times) add up to at least this many ms has its pace checked (`slow_quote`); below it the
# lab's own work, several times slower under a sanitizer, is too large a share to judge.
PACED_FROM_MS = 100


def slow_quote(body, policies):
    """Why a quote answer took too long for what it waited for (empty when it did not, or
    when `body` is no quote). A quote is mostly waiting, so a correct lab takes little more
    than the sum of its waits, however loaded the machine: a lab twice as slow takes twice
    that sum and fails here, as does a timeout that fires at twice its time."""
    try:
        quote = json.loads(body)
        policy = policies[quote["mode"]]
        events, elapsed_ms = quote["events"], float(quote["elapsed_ms"])
    except (ValueError, KeyError, TypeError):
        return []
    problems, waits_ms = [], 0.0
    for e in events:
        if e.get("event") in ("attempt_success", "attempt_failed"):
            if e.get("reason") == "timeout":
                waits_ms += policy["timeout_ms"]
                if e.get("elapsed_ms", 0) >= 2 * policy["timeout_ms"]:
                    problems.append(f"attempt {e.get('attempt')} timed out after {e['elapsed_ms']} ms, twice its "
                                    f"{policy['timeout_ms']} ms or more")
            else:
                waits_ms += e.get("elapsed_ms") or 0
        elif "wait_ms" in e:
            waits_ms += e["wait_ms"] or 0
    if waits_ms >= PACED_FROM_MS and elapsed_ms >= 2 * waits_ms:
        problems.append(f"elapsed_ms {elapsed_ms} is twice or more what its attempts and waits add up to "
                        f"({waits_ms:.0f} ms)")
    return problems


def run_step(lesson, block, base, out_path, started, trace, policies):
    """Runs one step's commands in order; [(failure text, answer body)] of the checks that failed."""
    found = []
    for command, expectation in block:
        within = within_s(expectation)
        deadline = time.monotonic() + within
        while True:
            status, body = run(command, base, out_path)
            if trace:
                print(f"{time.monotonic() - started:7.2f} s  HTTP {status}  {command}", flush=True)
            waiting = failed_checks(expectation, status, body, waiting=True)
            if not waiting or time.monotonic() >= deadline:
                break
            time.sleep(0.25)
        bad = [f"not within {within:g} s: until:{w}" for w in waiting]
        bad += failed_checks(expectation, status, body) + slow_quote(body, policies)
        if bad:
            found.append((f"{os.path.basename(lesson)}: {command}\n    " + "\n    ".join(bad), body))
    return found


def main():
    binary = sys.argv[1]
    self_check()
    problems, runs = planned_runs(sys.argv[2:])
    for p in problems:
        print(f"FAIL {p}")
    folder = tempfile.mkdtemp(prefix="quote-lab-lesson-")
    lab = Lab(binary, folder)
    policies = lab.request("/diagnostics/summary")[1]["policies"]
    failures, count = list(problems), 0
    started = time.monotonic()
    trace = bool(os.environ.get("LESSON_TRACE"))  # each command as it runs, with the time since the start
    out_path = os.path.join(folder, "answer")
    try:
        for lesson, block in runs:
            if not block:
                failures.append(f"{lesson}: no ```sh blocks with expect comments")
                continue
            # Each step runs once and its checks are exact: a step asked again until it
            # passes would pass for a lab that became slower. Some steps hang on real time
            # with little margin: flaky_provider's second attempt answers in 150-195 ms against
            # resilient's 220 ms timeout (25 ms; lesson step 4a, lessons/flaky_provider step 1),
            # an `ok` call in 115-150 ms (70 ms). On a machine too loaded to keep that, the
            # step fails, with the answer that shows the timeout.
            step_failures = run_step(lesson, block, lab.url, out_path, started, trace, policies)
            count += len(block)
            for f, body in step_failures:
                failures.append(f)
                print(f"FAIL {f}\n    answer: {body[:600]!r}", flush=True)
    finally:
        lab.stop()
        if failures:
            print(f"--- lab log (tail)\n{lab.log()[-6000:]}")
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{count - (len(failures) - len(problems))} of {count} lesson commands gave what the lesson says "
          f"({time.monotonic() - started:.1f} s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
