#!/usr/bin/env python3
"""Dependencies point inward: each folder of lab/ includes only itself and the folders
before it in LAYERS, and base/ and resilience/ (the lesson) include nothing but the C++
standard library and each other. Debian installs nlohmann and cpp-httplib in /usr/include,
where any file could reach them, so this check (not the include path) is what keeps them
out of the core. Usage: test_layers.py <source dir>"""
import pathlib
import re
import sys

# Inner to outer. A folder may include itself and any folder listed before it.
# app/ is the lab's use cases and its registry, api/ the HTTP routes over them, main/ the
# process: flags, wiring, signals.
LAYERS = ["base", "resilience", "formats", "http", "carrier", "observability",
          "persistence", "shared_state", "experiments", "simulation", "app", "api", "main"]
# The lesson: standard library only (no HTTP, no JSON library, no threads of its own).
STD_ONLY = {"base", "resilience"}
# Standard headers the core may use. <thread> only in base/, where the real clock sleeps:
# resilience/ starts no threads and sleeps only through the Clock.
STD_HEADERS = {
    "algorithm", "array", "atomic", "chrono", "cmath", "compare", "concepts", "condition_variable",
    "cstddef", "cstdint", "cstdio", "cstdlib", "cstring", "ctime", "deque", "exception", "functional",
    "initializer_list", "iomanip", "limits", "list", "map", "memory", "mutex", "numbers", "numeric", "optional", "random",
    "set", "shared_mutex", "span", "sstream", "stdexcept", "stop_token", "string", "string_view",
    "tuple", "type_traits", "typeinfo", "unordered_map", "utility", "variant", "vector",
}
EXTRA_STD = {"base": {"thread"}}
# The lab's use cases (app/) know nothing of HTTP: api/ reads the request and answers it, so the
# same use cases serve a test, the CLI or a simulation. Debian puts these headers where any file
# could include them; this is what keeps them out.
FORBIDDEN = {"app": {"httplib.h", "lab/http/httplib_fwd.hpp", "lab/http/api_error.hpp"}}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def problems(root: pathlib.Path):
    lab = root / "lab"
    for folder in sorted(p for p in lab.iterdir() if p.is_dir()):
        if folder.name not in LAYERS:
            yield f"lab/{folder.name}/ is not in LAYERS (tests/architecture/test_layers.py)"
            continue
        allowed = set(LAYERS[: LAYERS.index(folder.name) + 1])
        for source in sorted(folder.rglob("*.[ch]pp")):
            for kind, target in INCLUDE.findall(source.read_text()):
                where = source.relative_to(root)
                if target in FORBIDDEN.get(folder.name, set()):
                    yield f"{where}: includes {target}; lab/{folder.name}/ knows nothing of HTTP"
                elif kind == '"':
                    parts = target.split("/")
                    if len(parts) not in (3, 4) or parts[0] != "lab":
                        yield f"{where}: #include \"{target}\" is not lab/<folder>/[<subfolder>/]<file>"
                    elif parts[1] not in allowed:
                        yield f"{where}: includes lab/{parts[1]}/, an outer layer"
                elif folder.name in STD_ONLY and target not in STD_HEADERS | EXTRA_STD.get(folder.name, set()):
                    yield f"{where}: includes <{target}>; the core uses the standard library only"
    stray = [p.name for p in lab.iterdir() if p.is_file() and p.name != "README.md"]
    if stray:
        yield f"lab/ holds files outside a folder: {', '.join(sorted(stray))}"


def main() -> int:
    found = list(problems(pathlib.Path(sys.argv[1]).resolve()))
    for p in found:
        print(p)
    print(f"{len(found)} layering problem(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
