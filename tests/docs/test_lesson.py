"""The lessons' commands, run as a class runs them, give what the lessons say.

Reads every ```sh block of the lesson files and runs its lines with the real `curl` (through
bash, with LAB, YO and CLAVE set as step 0 sets them) against a lab started at its default
settings (or `--language es`, below), and checks the `<!-- expect: ... -->` comments that follow the block
(lesson_checks.py: the format of a line and of a check). CLAVE is what the student's first
answer gave in `lab_key`.

Two ways to run:

  --students N LESSON.md ... [--students M LESSON.md ...]
      each lesson as a class on one lab: N (or M) students at once (threads,
      each with its own YO), plus the teacher (YO=profe). A step the lesson marks
      **Práctica** / **Hands-on** is run by every student at the same time; a step marked
      **Demostración del profesor** / **Teacher's demo** (storms, queues) by the teacher
      alone; the next step starts when everyone is done. Every check holds for every student.
  --any-order SEED FOLDER|LESSON.md ...   (the per-scenario lessons in docs/lessons/) every
      ```sh block is one step that must stand alone: its first command resets its own
      `lab=$YO-NAME`, every command names that lab, and no two lessons share one. The steps
      of all the files run in an order shuffled by SEED, so a lesson that leaned on an
      earlier step's state fails. A folder stands for its *.md files (README files excepted).
      A step whose lines and checks are the same as a step of its twin (NAME.md and
      NAME.en.md) runs once: the same commands judged by the same checks.

`--language es` (first, after the binary) starts the lab as the teacher's kit does: curl,
which sends no Accept-Language, then gets Spanish, and a lesson that counts on English
without asking for it fails.

Usage: test_lesson.py QUOTE_LAB_BINARY [--language es|en] (--students N LESSON.md ... | --any-order SEED FOLDER|LESSON.md ...)
(LESSON_TRACE=1 prints each command as it runs)"""
import concurrent.futures
import glob
import os
import random
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, HERE)
import lesson_checks as lc  # noqa: E402
from lab_http import Lab  # noqa: E402

# Names a class might have (letters only: YO is a lab name's first part), per lesson file.
STUDENTS = ["ana", "beto", "carla", "diego", "elena", "fabi", "gabo", "hugo", "ines", "juan", "karen", "luis",
            "maria", "nico", "olga", "pablo", "quique", "rosa", "sara", "tomas", "ursula", "vale", "walter",
            "ximena", "yago", "zoe", "abril", "bruno", "cami", "dario"]
TEACHER = "profe"


def lesson_files(args):
    files = []
    for a in args:
        files += sorted(f for f in glob.glob(os.path.join(a, "*.md")) if not os.path.basename(f).startswith("README")) \
            if os.path.isdir(a) else [a]
    return files


class Person:
    """One participant: their variables (CLAVE from the first answer that carries lab_key)."""

    def __init__(self, name, lab_url):
        self.name, self.env = name, {"LAB": lab_url, "YO": name, "CLAVE": ""}

    def keep_key(self, body):
        doc = lc.parse(body)
        if isinstance(doc, dict) and isinstance(doc.get("lab_key"), str) and not self.env["CLAVE"]:
            self.env["CLAVE"] = doc["lab_key"]


def run_step(person, lesson, lines, started, trace, policies, record=None):
    """Runs one step's lines in order for `person`; [(failure text, answer body)].
    `record(lesson, command, expectation, status, body)` sees every judged answer."""
    found = []
    for kind, command, expectation in lines:
        if kind == "set":
            if command not in lc.VARIABLES:
                found.append((f"{os.path.basename(lesson)}: sets {command}, not one of {lc.VARIABLES}", b""))
            elif command == "CLAVE" and not person.env["CLAVE"]:
                found.append((f"{os.path.basename(lesson)}: {person.name} sets CLAVE, but no answer gave a lab_key", b""))
            continue
        within = lc.within_s(expectation)
        deadline = time.monotonic() + within
        while True:
            status, body = lc.run(command, person.env)
            person.keep_key(body)
            if trace:
                print(f"{time.monotonic() - started:7.2f} s  {person.name:6} HTTP {status}  {command}", flush=True)
            waiting = lc.failed_checks(expectation, status, body, waiting=True)
            if not waiting or time.monotonic() >= deadline:
                break
            time.sleep(0.25)
        if record:
            record(lesson, command, expectation, status, body)
        bad = [f"not within {within:g} s: until:{w}" for w in waiting]
        bad += lc.failed_checks(expectation, status, body) + lc.slow_quote(body, policies)
        if bad:
            found.append((f"{os.path.basename(lesson)} [{person.name}]: {command}\n    " + "\n    ".join(bad), body))
    return found


def format_problems(lesson, lines):
    return [f"{os.path.basename(lesson)}: {command}\n    " + "\n    ".join(p)
            for kind, command, expectation in lines if kind == "run"
            for p in [lc.format_problems(command, expectation)] if p]


def class_plan(files_and_counts, roster=None):
    """[(lesson, who, lines, [participants])]: each file in order, each step for whom it is.
    `roster`: the students' names (STUDENTS by default)."""
    problems, plan = [], []
    for n, (f, students) in enumerate(files_and_counts):
        names = [f"{s}{n}" if n else s for s in (roster or STUDENTS)[:students]]
        teacher = f"{TEACHER}{n}" if n else TEACHER
        file_blocks = lc.blocks(open(f, encoding="utf-8").read())
        if not file_blocks:
            problems.append(f"{f}: no ```sh blocks with expect comments")
        for i, (who, lines) in enumerate(file_blocks):
            problems += format_problems(f, lines)
            if who is None:
                problems.append(f"{os.path.basename(f)}: block {i + 1} is marked neither as practice nor as a demo")
            # Step 0 (the first block) gives everyone, the teacher too, their variables and key.
            plan.append((f, who, lines, names + [teacher] if i == 0 else names if who == "practice" else [teacher]))
    return problems, plan


def standalone_problems(name, lines):
    """Why a step cannot run on its own (empty when it can)."""
    runs = [command for kind, command, _ in lines if kind == "run"]
    labs = {m for command in runs for m in lc.STUDENT_LAB.findall(command)}
    problems = []
    if any(not lc.STUDENT_LAB.search(c) for c in runs) or len(labs) != 1:
        problems.append(f"{name}: every command of a step must name the same lab=$YO-NAME (got {sorted(labs)})")
    elif "/reset-lab?" not in runs[0] or "-X POST" not in runs[0]:
        problems.append(f"{name}: a step must start by resetting its lab: {runs[0]}")
    return problems, next(iter(labs), None)


def any_order_plan(files, seed):
    problems, plan, owner, planned, twins = [], [], {}, set(), 0
    for f in files:
        name = os.path.basename(f)
        file_blocks = lc.blocks(open(f, encoding="utf-8").read())
        if not file_blocks:
            problems.append(f"{name}: no ```sh blocks with expect comments")
        for who, lines in file_blocks:
            problems += format_problems(f, lines)
            found, lab = standalone_problems(name, lines)
            problems += found
            # The es and en files of one scenario may share their labs; other lessons may not.
            scenario = name.split(".")[0]
            if lab and owner.setdefault(lab, scenario) != scenario:
                problems.append(f"{name}: lab {lab} is also used by the lesson on {owner[lab]}")
            # A twin's step with the same lines and checks would run the same commands again.
            if (scenario, tuple(lines)) in planned:
                twins += 1
                continue
            planned.add((scenario, tuple(lines)))
            plan.append((f, who, lines, [STUDENTS[0]]))
    random.Random(seed).shuffle(plan)
    print(f"{len(plan)} steps of {len(files)} lessons, in an order shuffled by seed {seed} "
          f"({twins} steps the same in both twins run once)")
    return problems, plan


def run_plan(binary, plan, trace=False, record=None, lab_args=(), students=None, started_lab=None, before_stop=None,
             new_lab=None):
    """Runs `plan` on a fresh lab (`serve` with `lab_args`); the failures ([(text, body)]) and
    the commands run. `students`: the names a step may use (STUDENTS by default).
    `new_lab(folder)`, when given, starts the lab instead (anything that answers as a
    lab_http.Lab: port, url, request, stop, log). `started_lab(lab)`, when given, runs once
    the lab answers, before the first step; `before_stop(lab)` after the last step, before
    the lab stops."""
    folder = tempfile.mkdtemp(prefix="quote-lab-lesson-")
    lab = new_lab(folder) if new_lab else Lab(binary, folder, args=list(lab_args))
    if started_lab:
        started_lab(lab)
    policies = lab.request("/diagnostics/summary")[1]["policies"]
    people, failures, count = {}, [], 0
    started = time.monotonic()
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(students or STUDENTS) + 1) as pool:
            for lesson, who, lines, names in plan:
                for n in names:
                    people.setdefault(n, Person(n, lab.url))
                # Each step runs once and its checks are exact: a step asked again until it
                # passes would pass for a lab that became slower. Some steps hang on real time
                # with little margin: flaky_provider's second attempt answers in 150-195 ms
                # against resilient's 220 ms timeout (25 ms), an `ok` call in 115-150 ms (70 ms).
                # On a machine too loaded to keep that, the step fails, with the answer that
                # shows the timeout.
                results = pool.map(lambda n: run_step(people[n], lesson, lines, started, trace, policies, record), names)
                count += len(names) * sum(kind == "run" for kind, _, _ in lines)
                for step_failures in results:
                    for f, body in step_failures:
                        failures.append((f, body))
                        if not record:
                            print(f"FAIL {f}\n    answer: {body[:600]!r}", flush=True)
        if before_stop:
            before_stop(lab)
    finally:
        lab.stop()
        if failures and not record:
            print(f"--- lab log (tail)\n{lab.log()[-6000:]}")
        shutil.rmtree(folder, ignore_errors=True)
    return failures, count, len(people)


def students_per_file(args):
    """[(lesson file, students)] from `--students N FILE ... [--students M FILE ...]`."""
    out, students = [], None
    while args:
        if args[0] == "--students":
            students, args = int(args[1]), args[2:]
        else:
            if students is None:
                raise SystemExit(__doc__)
            out += [(f, students) for f in lesson_files(args[:1])]
            args = args[1:]
    return out


def plan_of(args, seed_offset=0):
    """The plan for the command line's lessons (after the binary)."""
    if args[:1] == ["--any-order"]:
        return any_order_plan(lesson_files(args[2:]), int(args[1]) + seed_offset)
    if args[:1] == ["--students"]:
        return class_plan(students_per_file(args))
    return class_plan(students_per_file(["--students", "1"] + args))  # files alone: one student each


def main():
    binary, args, lab_args = sys.argv[1], sys.argv[2:], []
    if args[:1] == ["--language"]:
        lab_args, args = args[:2], args[2:]
    lc.self_check()
    problems, plan = plan_of(args)
    if not plan:
        raise SystemExit("no lesson files given\n" + __doc__)
    for p in problems:
        print(f"FAIL {p}")
    started = time.monotonic()
    failures, count, people = run_plan(binary, plan, trace=bool(os.environ.get("LESSON_TRACE")), lab_args=lab_args)
    print(f"{count - len(failures)} of {count} lesson commands gave what the lesson says, {people} participants "
          f"({time.monotonic() - started:.1f} s)")
    sys.exit(1 if failures or problems else 0)


if __name__ == "__main__":
    main()
