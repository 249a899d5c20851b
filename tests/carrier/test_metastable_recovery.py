#!/usr/bin/env python3
"""Issue 14's metastable experiment on real labs at their default settings: the time the
carrier needs to recover after the trigger ends, per policy, as `quote-lab storm` reports it.
Two labs (each with its own embedded carrier) storm `metastable` with 4 clients at once:
- legacy, 20 s: its retries keep more calls in flight than the carrier serves (6), so the
  carrier never recovers while the storm goes on: every call after the 8 s trigger is
  turned away as overload;
- resilient, 45 s: its breaker opens in the trigger and sheds the load; the carrier is free,
  and serves normally from the first half-open probe, 30 s (open_duration_s) after the
  breaker opened: about 22 s after the trigger ended.
Also: the episode is the calling lab's own (a student lab's trigger starts with its first
call, and again after its reset), shown at GET /carrier as `metastable`.
Usage: test_metastable_recovery.py <quote-lab binary>"""
import json
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures  # noqa: E402
from lab_http import request, serving, wait_healthy  # noqa: E402

BINARY = sys.argv[1]


def storm(port, mode, duration_s):
    return subprocess.Popen([BINARY, "storm", "--target", f"http://127.0.0.1:{port}", "--mode", mode, "--scenario",
                             "metastable", "--clients", "4", "--duration", str(duration_s), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def episodes_are_per_lab(port):
    metastable = lambda path: request(port, path)[1].get("metastable")  # noqa: E731
    check(metastable("/carrier") is None, "a fresh lab has no metastable episode (GET /carrier: metastable null)")
    status, body = request(port, "/quote-resilient?scenario=metastable&lab=ana")
    check(status == 200 and body.get("quote", {}).get("source") == "fallback",
          f"Ana's first call is in her trigger: a fallback quote (HTTP {status})")
    ana = metastable("/carrier?lab=ana") or {}
    check(ana.get("scenario") == "metastable" and ana.get("trigger_over") is False and ana.get("down_ms") == 8000,
          f"Ana's lab shows her own episode, in its 8 s trigger: {ana}")
    check(metastable("/carrier") is None, "the teacher's lab has none: Ana's calls started only hers")
    request(port, "/reset-lab?lab=ana", method="POST")
    check(metastable("/carrier?lab=ana") is None, "Ana's reset ends her episode: her next call starts a new trigger")


def main():
    with serving(BINARY, lambda: bool(failures)) as legacy_port, serving(BINARY, lambda: bool(failures)) as resilient_port:
        check(wait_healthy(legacy_port) and wait_healthy(resilient_port), "two labs answer /health")
        episodes_are_per_lab(legacy_port)
        runs = {"legacy": storm(legacy_port, "legacy", 20), "resilient": storm(resilient_port, "resilient", 45)}
        results = {}
        for mode, p in runs.items():
            out, err = p.communicate(timeout=120)
            check(p.returncode == 0, f"quote-lab storm --mode {mode} exits 0 ({err.strip()[-300:]})")
            results[mode] = json.loads(out) if p.returncode == 0 else {}
        legacy = results["legacy"].get("metastable") or {}
        print("legacy:", json.dumps(legacy))
        check(legacy.get("trigger_over") is True and legacy.get("recovered_after_trigger_s", 0) is None,
              "legacy: 12 s after the trigger ended the carrier has not recovered")
        after, overloaded = legacy.get("calls_after_trigger", 0), legacy.get("overloaded_calls", 0)
        check(after >= 40 and overloaded >= 0.9 * after,
              f"legacy: its retries keep it overloaded: {overloaded} of {after} calls after the trigger turned away")
        check(results["legacy"].get("amplification", 0) >= 3.5, "legacy: about 4 carrier calls per request")
        resilient = results["resilient"].get("metastable") or {}
        print("resilient:", json.dumps(resilient))
        recovered = resilient.get("recovered_after_trigger_s")
        # The breaker opens within the trigger's first second and stays open 30 s.
        check(isinstance(recovered, (int, float)) and 15 <= recovered <= 32,
              f"resilient: the carrier recovered {recovered} s after the trigger ended (the breaker's 30 s, less the 8 s trigger)")
        check(resilient.get("overloaded_calls", -1) == 0, "resilient: not one call found the carrier overloaded")
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
