#!/usr/bin/env python3
"""A strategy lives in its own file: outside tests and docs, the name of an overload strategy
(retry_quota, adaptive_retry, adaptive_throttle, concurrency_limit) appears only in
  - its own files: strategies/NAME.cpp and the files of the lab's own headers it includes
    (its primitive: retry_quota.hpp/.cpp, overload/adaptive_throttle.hpp/.cpp...);
  - the few places that list every strategy: the enum and its settings struct
    (pipeline.hpp), its settings' visit case (strategy_settings.hpp) and the shipped
    policies that use it (overload_policies.cpp);
  - when the strategy gives a reason of the same name (`retry_quota`, `concurrency_limit`),
    the places that list the public reasons: the vocabulary, the trace's and the overload
    refusal's reason docs, the page's reason texts and Grafana's reason queries.
So the dashboard, the sentences, the metrics, the guards, the worst case and the JSON reader
name none of them. Usage: test_strategy_footprint.py <source dir>"""
import pathlib
import re
import sys

STRATEGIES = ["retry_quota", "adaptive_retry", "adaptive_throttle", "concurrency_limit"]
REGISTRIES = {"lab/resilience/pipeline.hpp", "lab/resilience/strategy_settings.hpp",
              "lab/resilience/overload_policies.cpp"}
REASON_LISTS = {"lab/resilience/vocabulary.hpp", "lab/resilience/vocabulary.cpp", "lab/resilience/quote_trace.hpp",
                "lab/resilience/overload/overload_rejection.hpp", "public/i18n.js",
                "observability/grafana/dashboards/quote-lab.json",
                "observability/grafana/dashboards/quote-lab-replicas.json"}
SEARCHED = ("lab", "public", "observability")


def own_files(root, name):
    """strategies/NAME.cpp and the lab's headers it includes (with their .cpp), but the
    headers every strategy shares."""
    own = {f"lab/resilience/strategies/{name}.cpp"}
    text = (root / next(iter(own))).read_text(encoding="utf-8")
    shared = {"lab/resilience/strategies/strategies.hpp", "lab/resilience/strategies/gate.hpp"}
    for header in re.findall(r'#include "(lab/[^"]+)"', text):
        if header in shared:
            continue
        own.add(header)
        source = header[:-len(".hpp")] + ".cpp"
        if (root / source).exists():
            own.add(source)
    return own


def reason_names(root):
    return set(re.findall(r'\{Reason::\w+, "(\w+)"\}', (root / "lab/resilience/vocabulary.cpp").read_text(encoding="utf-8")))


def main():
    root = pathlib.Path(sys.argv[1])
    files = [p for folder in SEARCHED for p in (root / folder).rglob("*")
             if p.is_file() and p.name != "README.md" and p.suffix in (".hpp", ".cpp", ".js", ".json", ".html", ".css", ".yml")]
    reasons = reason_names(root)
    problems = []
    for name in STRATEGIES:
        allowed = own_files(root, name) | REGISTRIES | (REASON_LISTS if name in reasons else set())
        word = re.compile(rf"\b{name}\b")
        naming = sorted(str(p.relative_to(root)) for p in files if word.search(p.read_text(encoding="utf-8", errors="replace")))
        stray = [f for f in naming if f not in allowed]
        print(f"{name}: {len(naming)} files, {len(naming) - len(stray)} of them its own, the registries or the reasons'")
        problems += [f"{f} names '{name}': a strategy's name belongs in its own file and the registries" for f in stray]
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
