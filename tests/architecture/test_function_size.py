#!/usr/bin/env python3
"""The functions a reader opens first stay short enough to read as a list of named steps:
the quote flow (`QuoteExecutor::run`: admit, call, record, decide, budget, sleep) and the
three entry points (`run_cli`, `run_serve`, `run_storm`). Each is measured from its
definition's first line to its closing brace; a function that grows past its bound fails
here, naming its length, so the next step gets a name of its own instead of more lines.
Usage: test_function_size.py <source dir>"""
import pathlib
import re
import sys

# (file, the definition's start, most lines)
BOUNDS = [
    ("lab/resilience/quote_executor.cpp", "QuoteTrace QuoteExecutor::run(", 60),
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


def main(root: pathlib.Path) -> int:
    failures = []
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
