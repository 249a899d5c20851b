#!/usr/bin/env python3
"""Every doctest case is a ctest test that runs it. doctest_discover_tests reads the names
as a CMake list, so a ';' in a name splits it into names that match no case: ctest then
"passes" them in 0.01 s without running anything (36 cases were silently skipped so,
under the normal, ASan and TSan builds alike). Fails naming any such case.
Usage: test_case_names.py <doctest binary>..."""
import subprocess
import sys

names = []
for binary in sys.argv[1:]:
    out = subprocess.run([binary, "--list-test-cases"], capture_output=True, text=True, check=True).stdout
    names += [line for line in out.splitlines() if line and not line.startswith("[doctest]") and not line.startswith("====")]
bad = [n for n in names if ";" in n]
for n in bad:
    print(f"FAIL a ';' in this case's name keeps ctest from running it: {n}")
print(f"{len(names)} cases, {len(bad)} that ctest cannot run")
sys.exit(1 if bad or not names else 0)
