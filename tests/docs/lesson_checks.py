"""What a lesson says and how its answers are judged: the parts shared by the lesson test
(test_lesson.py) and the script that measures the lessons' ranges (lesson_ranges.py).

A lesson's ```sh block holds the lines a student types. `NAME=value` lines set the three
variables of step 0 (LAB, the lab's address; YO, the student's name; CLAVE, their lab key);
every other line is a curl command, followed after the block by one `<!-- expect: ... -->`
comment per command, in order. An expectation is a list of checks separated by spaces
(shell quoting for values with spaces):

    http=503                   the HTTP status (the `HTTP 503` line the command prints)
    status=degraded            a JSON field (dotted path; list items by index: events.0.event)
    events[].event~backoff     `[]` takes the field of every item; `~` means "contains"
    cooldown_left_ms>20000     numbers compare with < <= > >= = !=
    lab_key!=null              the field is there (a string, a number, an object...)
    'quote_lab_x{mode="a"}>=1' on an answer in Prometheus's text format (/metrics-prometheus):
                               the series as its line prints it, name and labels; its value
    within=30 until:running=false
                               a state that changes by itself (a storm ending, a storm's first
                               requests, a quote that queued): run the command again every
                               0.25 s, for at most 30 s, until the `until:` checks hold; the
                               other checks are then judged once, on that answer. A command is
                               never asked again because one of its other checks failed: a
                               lab that answers wrong sometimes must fail here.

Every command has the lesson's format, so 30 students can paste it on one lab: `curl -s -w
'\\nHTTP %{http_code}\\n'`, the address as "$LAB/...", the student's own lab as `lab=$YO-...`
(only a line that shows a refused lab name, and step 0's claim of the name, may do without),
and on a line that changes a lab (-X POST, PUT, DELETE, or a quote, which moves the lab's
breaker) the key header -H "X-Lab-Key: $CLAVE" — all but the claim, which is what gives it."""
import json
import re
import shlex
import subprocess

BLOCK = re.compile(r"```sh\n(.*?)```\n((?:[ \t]*<!-- expect:.*?-->[ \t]*\n)*)", re.S)
EXPECT = re.compile(r"<!-- expect:(.*?)-->", re.S)
# A path is dotted JSON fields, or a Prometheus series whose {labels} hold `=` of their own.
CHECK = re.compile(r"^((?:\{[^}]*\}|[^<>=!~{])+?)(<=|>=|!=|=|<|>|~)(.*)$", re.S)
PROMETHEUS_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$", re.M)
ASSIGNMENT = re.compile(r"^([A-Z][A-Z0-9_]*)=(\S*)")
VARIABLES = ("LAB", "YO", "CLAVE")
W_FORMAT = "curl -s -w '\\nHTTP %{http_code}\\n'"
STUDENT_LAB = re.compile(r"[?&]lab=\$YO-([a-z0-9-]+)")
CHANGING = re.compile(r"-X (POST|PUT|DELETE)\b|/quote[-/]")
CLAIM = re.compile(r'-X POST "\$LAB/claim\?name=\$YO"')
KEY_HEADER = '-H "X-Lab-Key: $CLAVE"'
# Who runs a step, as the lesson marks it (in bold, a full stop inside or not) before its block.
MARK = re.compile(r"\*\*(Práctica|Hands-on|Demostración del profesor|Teacher's demo)\.?\*\*")
PRACTICE = ("Práctica", "Hands-on")


def block_lines(block_text):
    """[(kind, text)]: ("set", NAME) for a variable line, ("run", command) for a command."""
    out = []
    for line in block_text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = ASSIGNMENT.match(line)
        out.append(("set", m.group(1)) if m else ("run", line))
    return out


def blocks(markdown):
    """[(who, [(kind, text, expectation)])] per ```sh block, in order; who is "practice",
    "demo" or None (no mark before the block). A block whose command count differs from its
    expect comments is an error: the doc and the test would drift."""
    out = []
    for block in BLOCK.finditer(markdown):
        lines = block_lines(block.group(1))
        commands = [text for kind, text in lines if kind == "run"]
        expects = [e.strip() for e in EXPECT.findall(block.group(2))]
        if len(commands) != len(expects):
            raise SystemExit(f"a ```sh block has {len(commands)} commands but {len(expects)} expect comments:\n"
                             + block.group(0))
        marks = list(MARK.finditer(markdown, 0, block.start()))
        who = ("practice" if marks[-1].group(1) in PRACTICE else "demo") if marks else None
        expect_of = iter(expects)
        out.append((who,
                    [(kind, text, next(expect_of) if kind == "run" else "") for kind, text in lines]))
    return out


def format_problems(command, expectation):
    """Why a command does not have the lesson's format (empty when it has)."""
    problems = []
    if not command.startswith(W_FORMAT + " "):
        problems.append(f"starts without {W_FORMAT}")
    if '"$LAB/' not in command:
        problems.append('names no "$LAB/..." address')
    if "127.0.0.1" in command or "localhost" in command:
        problems.append("names a fixed address instead of $LAB")
    refused_name = re.search(r"\bhttp=4\d\d\b", expectation) and "error=invalid_lab_name" in expectation
    claim = bool(CLAIM.search(command))
    if not STUDENT_LAB.search(command) and not refused_name and not claim:
        problems.append("names no lab of the student's own (lab=$YO-...)")
    if CHANGING.search(command) and KEY_HEADER not in command and not claim and not refused_name:
        problems.append(f"changes a lab without {KEY_HEADER}")
    return problems


def expand(command, env):
    """The command's argv as a shell gives it: the lesson's variables ($LAB, $YO, $CLAVE) are
    written only inside double quotes, so they are swapped in and the line split as sh does."""
    for name in VARIABLES:
        command = command.replace("$" + name, env.get(name, ""))
    return shlex.split(command)


def run(command, env, timeout_s=90):
    """Runs one lesson line as a student does; (HTTP status, body bytes) read from what it
    prints: the body, then `HTTP NNN` (the -w of every line)."""
    done = subprocess.run(expand(command, env) + ["--max-time", "60"], capture_output=True, timeout=timeout_s)
    out = done.stdout
    cut = out.rstrip(b"\n").rfind(b"\nHTTP ")
    if cut < 0:
        return 0, out
    return int(out[cut + 6:].strip() or 0), out[:cut]


def lookup(value, path):
    """The values at a dotted `path` in `value` (a list: `[]` fans out over items); in
    Prometheus samples, the series named `path`."""
    if isinstance(value, PrometheusSamples):
        return [value[path]] if path in value else []
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


def _num(text):
    try:
        return float(text)
    except ValueError:
        return None


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


def checks(expectation, waiting=False):
    """[(token, path, op, want)] of `expectation`: its `until:` checks when `waiting`, its
    other checks otherwise (`within=` is neither)."""
    out = []
    for token in shlex.split(expectation):
        if token.startswith("until:") != waiting:
            continue
        m = CHECK.match(token.removeprefix("until:"))
        if not m:
            raise SystemExit(f"cannot read the check {token!r} in: {expectation}")
        if m.group(1) != "within":
            out.append((token, *m.groups()))
    return out


class PrometheusSamples(dict):
    """An answer in Prometheus's text format: {series as printed: value}."""


def prometheus_samples(body):
    """The samples of a Prometheus text answer; None when `body` holds none."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    found = PrometheusSamples((m.group(1), float(m.group(2))) for m in PROMETHEUS_SAMPLE.finditer(text))
    return found or None


def judge(check, status, doc):
    """(holds, what was found) for one check on an answer (`doc`: parsed JSON, the samples of
    a Prometheus text answer, or None)."""
    _, path, op, want = check
    if path == "http":
        return holds(op, status, want), status
    found = lookup(doc, path) if doc is not None else []
    if path.count("[]") and op == "~":  # some item of the fanned-out list
        return any(as_text(v) == want for v in found), found
    ok = len(found) == 1 and holds(op, found[0], want)
    return ok, (found if path.count("[]") else (found[0] if found else "(absent)"))


def parse(body):
    try:
        return json.loads(body)
    except ValueError:
        return None


def answer_doc(body):
    """What the checks read in an answer: its JSON, else its Prometheus samples, else None."""
    doc = parse(body)
    return doc if doc is not None else prometheus_samples(body)


def failed_checks(expectation, status, body, waiting=False):
    """The checks of `expectation` that do not hold for an answer (`status`, `body` bytes)."""
    doc = answer_doc(body)
    bad = []
    for check in checks(expectation, waiting):
        ok, got = judge(check, status, doc)
        if not ok:
            bad.append(f"{check[0]} (got {as_text(got)[:200]})")
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


def self_check():
    """The checker itself catches a false statement, a slow quote and a line out of format
    (so a green run means something)."""
    policies = {"resilient": {"timeout_ms": 220}}
    flaky = {"mode": "resilient", "elapsed_ms": 560, "events": [
        {"event": "attempt_failed", "reason": "timeout", "elapsed_ms": 221}, {"event": "backoff", "wait_ms": 110},
        {"event": "attempt_success", "elapsed_ms": 190}]}
    assert slow_quote(json.dumps(flaky).encode(), policies) == [], slow_quote(json.dumps(flaky).encode(), policies)
    for slow in ({**flaky, "elapsed_ms": 1100},
                 {**flaky, "events": [{"event": "attempt_failed", "reason": "timeout", "elapsed_ms": 440}]}):
        assert slow_quote(json.dumps(slow).encode(), policies), f"the checker let {slow} pass"
    body = json.dumps({"status": "degraded", "attempts": 0, "events": [{"event": "short_circuit"}],
                       "dependency": {"circuit_status": "open"}, "lab_key": "abc"}).encode()
    true = ("http=200 status=degraded attempts=0 events[].event~short_circuit dependency.circuit_status=open "
            "attempts<1 lab_key!=null")
    assert failed_checks(true, 200, body) == [], failed_checks(true, 200, body)
    for false in ("http=503", "status=ok", "attempts=2", "attempts>0", "events[].event~backoff",
                  "dependency.circuit_status=closed", "queue_ms>0", "missing=1", "missing!=null"):
        assert failed_checks(false, 200, body), f"the checker let {false!r} pass"
    # A wait condition is judged apart from the checks: met, the other checks still decide.
    waited = "within=5 until:status=degraded attempts=2"
    assert failed_checks(waited, 200, body, waiting=True) == []
    assert failed_checks(waited, 200, body) == ["attempts=2 (got 0)"], failed_checks(waited, 200, body)
    # A Prometheus answer: a series by its name and labels, as its line prints it.
    text = b'# TYPE quote_lab_x counter\nquote_lab_x{mode="a",reason="b"} 7\nquote_lab_y 0.25\n'
    true = '\'quote_lab_x{mode="a",reason="b"}>=7\' quote_lab_y<0.3 http=200'
    assert failed_checks(true, 200, text) == [], failed_checks(true, 200, text)
    for false in ('\'quote_lab_x{mode="a",reason="b"}>7\'', '\'quote_lab_x{mode="b",reason="b"}>=0\'', "quote_lab_z>=0"):
        assert failed_checks(false, 200, text), f"the checker let {false!r} pass"
    good = W_FORMAT + ' -X POST -H "X-Lab-Key: $CLAVE" "$LAB/reset-lab?lab=$YO-paso1"'
    assert format_problems(good, "http=200") == [], format_problems(good, "http=200")
    for bad in (good.replace(' -H "X-Lab-Key: $CLAVE"', ""), good.replace("$YO-paso1", "paso1"),
                good.replace("$LAB", "http://127.0.0.1:8080"), good.replace(" -w '\\nHTTP %{http_code}\\n'", "")):
        assert format_problems(bad, "http=200"), f"the checker let {bad!r} pass"
    # A quote moves the lab's breaker: it carries the key; step 0's claim is the one change without.
    quote = W_FORMAT + ' -H "X-Lab-Key: $CLAVE" "$LAB/quote-legacy?scenario=ok&lab=$YO-paso1"'
    claim = W_FORMAT + ' -X POST "$LAB/claim?name=$YO"'
    assert format_problems(quote, "http=200") == [] and format_problems(claim, "http=201") == []
    for bad in (quote.replace(' -H "X-Lab-Key: $CLAVE"', ""), quote.replace("quote-legacy?", "quote/adr0005?"),
                claim.replace("$YO", "ana"), claim.replace("claim?name=$YO", "reset-lab?x=$YO")):
        if "adr0005" in bad:
            bad = bad.replace(' -H "X-Lab-Key: $CLAVE"', "")
        assert format_problems(bad, "http=200"), f"the checker let {bad!r} pass"
    argv = expand(good, {"LAB": "http://h:1", "YO": "ana", "CLAVE": "k"})
    assert argv[4:9] == ["-X", "POST", "-H", "X-Lab-Key: k", "http://h:1/reset-lab?lab=ana-paso1"], argv
    assert argv[3] == "\\nHTTP %{http_code}\\n", argv
    assert blocks("**Demostración del profesor.**\n```sh\ncurl y\n```\n<!-- expect: http=200 -->\n")[0][0] == "demo"
    assert blocks("**Práctica**\n```sh\nYO=ana\ncurl x\n```\n<!-- expect: http=200 -->\n") == \
        [("practice", [("set", "YO", ""), ("run", "curl x", "http=200")])]
