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

Usage: test_lesson.py QUOTE_LAB_BINARY LESSON.md [LESSON.md ...]   (LESSON_TRACE=1 prints each command
as it runs)"""
import json
import os
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


def main():
    binary, lessons = sys.argv[1], sys.argv[2:]
    self_check()
    stack = Stack(binary, None)
    failures, count = [], 0
    started = time.monotonic()
    trace = bool(os.environ.get("LESSON_TRACE"))  # each command as it runs, with the time since the start
    out_path = os.path.join(tempfile.mkdtemp(prefix="quote-lab-lesson-"), "answer")
    try:
        for lesson in lessons:
            with open(lesson, encoding="utf-8") as f:
                lesson_steps = steps(f.read())
            if not lesson_steps:
                failures.append(f"{lesson}: no ```sh blocks with expect comments")
            for command, expectation in lesson_steps:
                count += 1
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
                    failures.append(f"{os.path.basename(lesson)}: {command}\n    " + "\n    ".join(bad))
                    print(f"FAIL {failures[-1]}\n    answer: {body[:600]!r}", flush=True)
        stack.failed = bool(failures)
    finally:
        stack.close()
    print(f"{count - len(failures)} of {count} lesson commands gave what the lesson says "
          f"({time.monotonic() - started:.1f} s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
