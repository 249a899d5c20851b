#!/usr/bin/env python3
"""The functions a reader opens first stay short enough to read as a list of named steps:
the quote flow (`QuoteExecutor::run`, which composes the strategies, and the two that do
its work: the retry's `attempts`, the attempts and waits, and the call's `execute`, one call
to the carrier and its steps) and the three entry points (`run_cli`, `run_serve`, `run_storm`). Each is measured from its
definition's first line to its closing brace; a function that grows past its bound fails
here, naming its length, so the next step gets a name of its own instead of more lines.
And the lesson itself, lab/resilience/ and its folders: no function there over 60 lines,
member functions defined in a class (the strategies) included.
Usage: test_function_size.py <source dir>"""
import pathlib
import re
import sys

# (file, the definition's start, most lines)
BOUNDS = [
    ("lab/resilience/quote_executor.cpp", "QuoteTrace QuoteExecutor::run(", 60),
    ("lab/resilience/strategies/retry.cpp", "  Outcome attempts(", 60),
    ("lab/resilience/strategies/timeout.cpp", "  Outcome execute(", 60),
    ("lab/main/cli.cpp", "int run_cli(", 80),
    ("lab/main/serve_wiring.cpp", "int run_serve(", 80),
    ("lab/experiments/storm.cpp", "StormResult run_storm(", 80),
]


def length(text: str, start: str):
    """Lines from the line that begins with `start` to the brace that closes its body."""
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.startswith(start)), None)
    if first is None:
        return None
    # Strings and comments of these files hold no braces that would unbalance the count;
    # character literals are dropped to be safe.
    depth, opened = 0, False
    for i in range(first, len(lines)):
        code = re.sub(r"'.'|//.*", "", lines[i])
        depth += code.count("{") - code.count("}")
        opened = opened or "{" in code
        if opened and depth == 0:
            return i - first + 1
    return None


# Every function defined at the left margin of lab/resilience/, and the most lines each may take.
LESSON = "lab/resilience"
LESSON_MOST = 60
# Left-margin lines that open no function: preprocessor, comments, namespaces, types, tables.
# An indented definition: a member function written in its class, `  Outcome execute(...) override {`.
MEMBER = re.compile(r"^\s+(static )?[A-Za-z_][A-Za-z_0-9:<>,&* ]* [A-Za-z_][A-Za-z_0-9]*\(.*\)( const)?( override)?( final)? \{$")
NOT_A_FUNCTION = re.compile(r"^(#|//|namespace|}|using |struct |class |enum |template|static_assert|"
                            r"(constexpr|const) [A-Za-z_:<>, ]+ k)")


def lesson_functions(root: pathlib.Path):
    """(file, first line, length) of every function defined in lab/resilience/**/*.cpp."""
    for source in sorted((root / LESSON).rglob("*.cpp")):
        lines = source.read_text().splitlines()
        for i, line in enumerate(lines):
            member = MEMBER.match(line) is not None and not re.match(r"^\s+(if|for|while|switch|return|else)\b", line)
            if not member and (not line or line[0] in " \t" or NOT_A_FUNCTION.match(line) or "(" not in line
                               or line.rstrip().endswith(";")):
                continue
            n = length("\n".join(lines[i:]), line)
            if n is not None:
                yield source.relative_to(root), line, n


def main(root: pathlib.Path) -> int:
    failures = []
    measured = list(lesson_functions(root))
    if len(measured) < 100:  # the scan itself broke: it must see the lesson's functions
        failures.append(f"{LESSON}: only {len(measured)} functions found")
    for path, line, n in measured:
        if n > LESSON_MOST:
            failures.append(f"{path}: {line.split('(')[0].split()[-1]} is {n} lines, more than {LESSON_MOST}")
    print(f"ok  {LESSON}: {len(measured)} functions, the longest {max((n for *_, n in measured), default=0)} lines")
    for path, start, most in BOUNDS:
        n = length((root / path).read_text(), start)
        if n is None:
            failures.append(f"{path}: no definition starting with '{start}'")
        elif n > most:
            failures.append(f"{path}: {start.split('(')[0].split()[-1]} is {n} lines, more than {most}")
        else:
            print(f"ok  {path}: {start.split('(')[0].split()[-1]} {n} lines (at most {most})")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1])))
