#!/usr/bin/env python3
"""The test files compile in batches (a CMake unity build, tests/CMakeLists.txt), so two files
of one batch see each other's names: a helper `Rig` or a `using json = ...` in one would clash
with, or silently replace, another's. Each test file therefore opens, after its includes, a
namespace named after the file and closes it at its end; this check fails naming any listed
test file that does not, so a new file cannot break a batch it happens to land in.
Usage: test_test_namespaces.py <tests dir>"""
import pathlib
import re
import sys


def listed_files(tests: pathlib.Path):
    """The .cpp files of the two test executables, as tests/CMakeLists.txt lists them."""
    text = (tests / "CMakeLists.txt").read_text()
    files = []
    for block in re.findall(r"set\((QUOTE_LAB_TESTS|QUOTE_LAB_PROCESS_TESTS)\n(.*?)\n\)", text, re.S):
        files += [line.strip() for line in block[1].splitlines() if line.strip().endswith(".cpp")]
    return files


def problem(path: pathlib.Path):
    lines = path.read_text().splitlines()
    name = path.stem
    includes = [i for i, line in enumerate(lines) if line.startswith("#include")]
    opening = f"namespace {name} {{"
    closing = f"}}  // namespace {name}"
    code = [i for i, line in enumerate(lines) if line.strip() and not line.startswith("//")]
    after_includes = [i for i in code if i > (includes[-1] if includes else -1)]
    if not after_includes or lines[after_includes[0]] != opening:
        return f"the first line after the includes is not '{opening}'"
    if lines[code[-1]] != closing:
        return f"the last line is not '{closing}'"
    return None


def main(tests: pathlib.Path) -> int:
    files = listed_files(tests)
    if len(files) < 50:
        print(f"found only {len(files)} test files in tests/CMakeLists.txt: the lists moved?")
        return 1
    failures = [f"{f}: {why}" for f in files if (why := problem(tests / f))]
    for failure in failures:
        print(failure)
    print(f"{len(files) - len(failures)} of {len(files)} test files keep their names in their own namespace")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1])))
