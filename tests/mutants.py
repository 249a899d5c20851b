#!/usr/bin/env python3
"""Does the fast gate catch the lesson's classic bugs? Plants each mutant below in lab/, builds
quote_lab_tests in BUILD_DIR, runs `ctest -L fast`, and puts the file back (also on Ctrl-C).
A mutant that every fast test survives is a hole in the gate: the script exits 1 naming it.

Usage: python3 tests/mutants.py [BUILD_DIR]   (default: build; a tree configured with
BUILD_TESTING=ON and built once). About a minute per mutant with ccache. Not part of ctest:
it edits the source tree while it runs, so run it on a checkout you are not editing."""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUILD = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "build").resolve()

# (what the bug is, file, the text it replaces, the bug)
MUTANTS = [
    ("the breaker admits two half-open probes", "lab/resilience/circuit_breaker.cpp",
     "        if (!probe_in_flight_) {\n          probe_in_flight_ = true;",
     "        static bool second = false;\n        if (!probe_in_flight_ || !second) {\n"
     "          second = probe_in_flight_;\n          probe_in_flight_ = true;"),
    ("legacy makes 3 attempts instead of 4", "lab/resilience/policy.cpp",
     "                         .max_attempts = 4,", "                         .max_attempts = 3,"),
    ("the backoff ignores its cap", "lab/resilience/backoff.cpp",
     "const double exp_delay = std::min(cap, base * std::ldexp(1.0, exponent));",
     "const double exp_delay = base * std::ldexp(1.0, exponent);"),
    ("the backoff ignores its cap (the final clamp too)", "lab/resilience/backoff.cpp",
     "std::clamp(std::round(delay), 0.0, cap)", "std::max(std::round(delay), 0.0)"),
]


def build():
    out = subprocess.run(["cmake", "--build", str(BUILD), "-j2", "--target", "quote_lab_tests"],
                         capture_output=True, text=True)
    if out.returncode:
        sys.exit("build failed:\n" + out.stdout[-3000:] + out.stderr[-3000:])


def fast_failures():
    out = subprocess.run(["ctest", "-L", "fast", "-j2"], cwd=BUILD, capture_output=True, text=True).stdout
    return [line.strip() for line in out.splitlines() if re.match(r"\s*\d+ - .*\((Failed|Timeout|SEGFAULT|Subprocess aborted)\)", line)]


survivors = []
for name, rel, old, new in MUTANTS:
    path = ROOT / rel
    original = path.read_text()
    if original.count(old) != 1:
        sys.exit(f"{rel} changed: the mutant '{name}' no longer applies; update this script")
    try:
        path.write_text(original.replace(old, new))
        build()
        caught = fast_failures()
    finally:
        path.write_text(original)
    print(f"{'caught  ' if caught else 'SURVIVED'} {name}: {len(caught)} fast test(s) failed")
    for line in caught:
        print(f"           {line}")
    if not caught:
        survivors.append(name)
build()
print(f"{len(MUTANTS) - len(survivors)} caught, {len(survivors)} survived")
sys.exit(1 if survivors else 0)
