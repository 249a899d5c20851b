"""The lesson's commands, run in order, give what the lesson says (issue 12).

Reads every ```sh block of the lesson files, runs each line with the real `curl` against a
lab started at its default settings on a free port (only http://127.0.0.1:8080 is
rewritten), and checks the `<!-- expect: ... -->` comments that follow the block: one per
command, in order, so the doc and this test cannot drift apart. An expectation is a list of
checks separated by spaces (shell quoting for values with spaces):

    http=503                   the HTTP status
    status=degraded            a JSON field (dotted path; list items by index: events.0.event)
    events[].event~backoff     `[]` takes the field of every item; `~` means "contains"
    cooldown_left_ms>20000     numbers compare with < <= > >= = !=
    within=30                  run the command again (every 0.25 s) until all checks hold

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
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "observability"))
from prom_stack import Stack  # noqa: E402

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


def failed_checks(expectation, status, body):
    """The checks of `expectation` that do not hold for an answer (`status`, `body` bytes)."""
    try:
        doc = json.loads(body)
    except ValueError:
        doc = None
    bad = []
    for token in shlex.split(expectation):
        m = CHECK.match(token)
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
    for token in shlex.split(expectation):
        if token.startswith("within="):
            return float(token.split("=", 1)[1])
    return 0.0


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
    """The checker itself catches a false statement (so a green run means something)."""
    body = json.dumps({"status": "degraded", "attempts": 0, "events": [{"event": "short_circuit"}],
                       "dependency": {"circuit_status": "open"}}).encode()
    true = "http=200 status=degraded attempts=0 events[].event~short_circuit dependency.circuit_status=open attempts<1"
    assert failed_checks(true, 200, body) == [], failed_checks(true, 200, body)
    for false in ("http=503", "status=ok", "attempts=2", "attempts>0", "events[].event~backoff",
                  "dependency.circuit_status=closed", "queue_ms>0", "missing=1"):
        assert failed_checks(false, 200, body), f"the checker let {false!r} pass"


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


def run_step(lesson, block, stack, out_path, started, trace):
    """Runs one step's commands in order; [(failure text, answer body)] of the checks that failed."""
    found = []
    for command, expectation in block:
        deadline = time.monotonic() + within_s(expectation)
        while True:
            status, body = run(command, stack.lab, out_path)
            if trace:
                print(f"{time.monotonic() - started:7.2f} s  HTTP {status}  {command}", flush=True)
            bad = failed_checks(expectation, status, body)
            if not bad or time.monotonic() >= deadline:
                break
            time.sleep(0.25)
        if bad:
            found.append((f"{os.path.basename(lesson)}: {command}\n    " + "\n    ".join(bad), body))
    return found


def main():
    binary = sys.argv[1]
    self_check()
    problems, runs = planned_runs(sys.argv[2:])
    for p in problems:
        print(f"FAIL {p}")
    stack = Stack(binary, None)
    failures, count = list(problems), 0
    started = time.monotonic()
    trace = bool(os.environ.get("LESSON_TRACE"))  # each command as it runs, with the time since the start
    out_path = os.path.join(tempfile.mkdtemp(prefix="quote-lab-lesson-"), "answer")
    try:
        for lesson, block in runs:
            if not block:
                failures.append(f"{lesson}: no ```sh blocks with expect comments")
                continue
            # Real time on shared cores: flaky_provider's second attempt has 25 ms of margin
            # under the 220 ms timeout, so a busy machine can make it time out for real. A step
            # that starts from its own reset is asked again from that reset, up to 3 times;
            # only the last try's failures count (a wrong lesson fails all three).
            tries = 3 if "/reset-lab?" in block[0][0] and "-X POST" in block[0][0] else 1
            for attempt in range(1, tries + 1):
                step_failures = run_step(lesson, block, stack, out_path, started, trace)
                if not step_failures:
                    break
                if attempt < tries:
                    print(f"note: a step of {os.path.basename(lesson)} failed (try {attempt}); asked again from its reset",
                          flush=True)
            count += len(block)
            for f, body in step_failures:
                failures.append(f)
                print(f"FAIL {f}\n    answer: {body[:600]!r}", flush=True)
        stack.failed = bool(failures)
    finally:
        stack.close()
    print(f"{count - (len(failures) - len(problems))} of {count} lesson commands gave what the lesson says "
          f"({time.monotonic() - started:.1f} s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
