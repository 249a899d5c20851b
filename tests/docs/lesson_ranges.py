"""Measures the lessons' numbers: runs the lessons RUNS times (each run on a fresh lab, as
test_lesson.py runs them once) and reports, for every command, how many runs passed each of
its expect checks and the spread of the numbers a lesson states (quote times, waits, a
storm's counts, amplification and latency, a metastable episode). A range a lesson states
must hold in at least 19 of 20 runs on a loaded 2-core machine: this is how it is shown.

Usage: lesson_ranges.py QUOTE_LAB_BINARY RUNS OUT.md LESSONS (as test_lesson.py takes them: --students N
       LESSON.md ... or --any-order SEED FOLDER ...; with --any-order, run n shuffles with SEED + n)
e.g.   tests/docs/lesson_ranges.py build/quote-lab 20 /tmp/ranges.md --any-order 14 docs/lessons"""
import collections
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lesson_checks as lc  # noqa: E402
import test_lesson  # noqa: E402

# The numbers reported for every answer that has them (besides each check's own path).
MEASURED = ["elapsed_ms", "queue_ms", "events[].elapsed_ms", "events[].wait_ms", "cooldown_left_ms",
            "last_result.requests", "last_result.amplification", "last_result.carrier_calls",
            "last_result.elapsed_s", "last_result.status_counts.completed", "last_result.status_counts.degraded",
            "last_result.status_counts.failed", "last_result.latency_ms.p50", "last_result.latency_ms.p95",
            "last_result.latency_ms.max", "last_result.metastable.calls_after_trigger",
            "last_result.metastable.overloaded_calls", "last_result.metastable.recovered_after_trigger_s",
            "metastable.calls_after_trigger", "metastable.overloaded_calls"]


def main():
    binary, runs, out_path, args = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    passed = collections.defaultdict(collections.Counter)  # (lesson, command, expect) -> check -> runs passed
    seen = collections.Counter()                             # (lesson, command, expect) -> answers judged
    values = collections.defaultdict(list)                   # (lesson, command, expect, path) -> numbers
    order = []

    def record(lesson, command, expectation, status, body):
        key = (os.path.basename(lesson), command, expectation)  # a command asked twice in a step, apart
        if key not in seen:
            order.append((key, expectation))
        seen[key] += 1
        doc = lc.answer_doc(body)
        for check in lc.checks(expectation):
            passed[key][check[0]] += lc.judge(check, status, doc)[0]
        paths = MEASURED + [c[1] for c in lc.checks(expectation) if c[2] in "<<=>>=" and c[1] not in MEASURED]
        for path in paths:
            found = lc.lookup(doc, path) if doc is not None else []
            nums = [v for v in found if isinstance(v, (int, float)) and not isinstance(v, bool)]
            if nums:
                values[key + (path,)].append(nums if "[]" in path else nums[0])

    started = time.monotonic()
    for n in range(runs):
        problems, plan = test_lesson.plan_of(args, seed_offset=n)
        if problems:
            raise SystemExit("\n".join(problems))
        failures, count, _ = test_lesson.run_plan(binary, plan, record=record)
        print(f"run {n + 1}/{runs}: {count - len(failures)} of {count} commands passed "
              f"({time.monotonic() - started:.0f} s)", flush=True)
        for f, _ in failures:
            print(f"  {f.splitlines()[0][:160]}\n    " + "\n    ".join(f.splitlines()[1:]), flush=True)

    lines = [f"# Lesson ranges: {' '.join(os.path.basename(a.rstrip('/')) for a in args)}, {runs} runs, "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", "",
             "Per command: each expect check's runs passed (answers judged: several per run with --students),",
             "then min / 5th percentile / median / 95th percentile / max of each number.", ""]
    for key, expectation in order:
        lines.append(f"## {key[0]}: `{key[1][len(lc.W_FORMAT) + 1:]}`")
        lines.append("")
        total = seen[key]
        short = [f"{c} {k}/{total}" for c, k in passed[key].items() if k < total]
        lines.append(f"- checks: all {len(passed[key])} held in {total}/{total}" if not short else
                     f"- checks ({total} answers): " + ", ".join(f"{c[0]} {passed[key][c[0]]}/{total}"
                                                                 for c in lc.checks(expectation)))
        for (lesson, command, expect, path), got in values.items():
            if (lesson, command, expect) != key:
                continue
            flat = sorted(v for g in got for v in (g if isinstance(g, list) else [g]))
            if "[]" in path:  # per item: the spread of each position
                width = max(len(g) for g in got)
                cols = []
                for i in range(width):
                    col = sorted(g[i] for g in got if i < len(g))
                    cols.append(f"[{i}] {spread(col)}")
                lines.append(f"- `{path}`: " + "; ".join(cols))
            else:
                lines.append(f"- `{path}`: {spread(flat)}")
        lines.append("")
    with open(out_path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print(f"wrote {out_path}")


def spread(col):
    def q(p):
        return col[min(len(col) - 1, max(0, round(p * (len(col) - 1))))]
    fmt = (lambda v: f"{v:g}") if all(float(v).is_integer() for v in col) else (lambda v: f"{v:.2f}")
    return (f"{fmt(col[0])} / {fmt(q(0.05))} / {fmt(statistics.median(col))} / {fmt(q(0.95))} / {fmt(col[-1])}"
            f" (n={len(col)})")


if __name__ == "__main__":
    main()
