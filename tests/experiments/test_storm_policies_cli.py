#!/usr/bin/env python3
"""`quote-lab storm --mode NAME` for a named policy, as a user runs it against a
real `quote-lab serve` with default settings: ADR-0005 (3 attempts) against a carrier that
never answers makes exactly 3 carrier calls per request without its breaker, and its own
breaker (5 consecutive failures) keeps all but 5 calls away; with a relay in front the
fallback's 200 stops the multiplication; an unknown policy exits 1 naming the lab's
policies, with a did-you-mean.
Usage: test_storm_policies_cli.py <quote-lab binary>"""
import json
import pathlib
import subprocess
import sys
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures  # noqa: E402
from lab_http import running_lab  # noqa: E402

BINARY = sys.argv[1]


def storm(url, *args):
    """(exit code, the --json result or None, stderr) of one storm on provider_down."""
    out = subprocess.run([BINARY, "storm", "--target", url, "--scenario", "provider_down", "--json", "--settle-s", "1",
                          *args], capture_output=True, text=True, timeout=170)
    try:
        result = json.loads(out.stdout)
    except ValueError:
        result = None
    return out.returncode, result, out.stderr


def reset(url):
    """A fresh lab: /reset-lab closes every breaker, the named policies' own ones too."""
    urllib.request.urlopen(urllib.request.Request(url + "/reset-lab", method="POST"), timeout=30).read()


with running_lab(BINARY, log_tail_on=lambda: bool(failures)) as lab:
    url = lab.url
    code, r, err = storm(url, "--mode", "adr0005", "--param", "circuit_breaker=false", "--clients", "4",
                         "--requests", "12")
    check(code == 0 and r is not None, f"adr0005 without its breaker: exit 0 with JSON ({code}: {err.strip()[-300:]})")
    if r:
        check(r["mode"] == "adr0005" and r["params"] == {"circuit_breaker": "false"}, "the result names the policy and its override")
        check(r["status_counts"] == {"degraded": 12}, f"fail soft: 12 degraded answers (got {r['status_counts']})")
        check(r["carrier_calls"] == 36, f"3 carrier calls per request: 36 (got {r['carrier_calls']})")
        check(r["amplification"] == 3.0, f"amplification 3 (got {r['amplification']})")

    # Its own breaker: one client, so the order is exact — request 1 fails 3 times,
    # request 2 twice more and the 5th failure opens it; every later attempt is a short circuit.
    reset(url)
    code, r, err = storm(url, "--mode", "adr0005", "--clients", "1", "--requests", "8")
    check(code == 0 and r is not None, f"adr0005 with its breaker: exit 0 ({code}: {err.strip()[-300:]})")
    if r:
        check(r["carrier_calls"] == 5, f"the breaker opens after 5 failures: 5 carrier calls (got {r['carrier_calls']})")
        check(r["amplification"] == 0.625, f"amplification 5 / 8 = 0.625 (got {r['amplification']})")

    # A relay that retries any 5xx in front of the lab: ADR-0005 fails soft (200), so the
    # relay never retries and the carrier sees 3 calls per request, not 4 × 3.
    reset(url)
    code, r, err = storm(url, "--mode", "adr0005", "--param", "circuit_breaker=false", "--layers", "2",
                         "--clients", "2", "--requests", "4")
    check(code == 0 and r is not None, f"adr0005 behind a relay: exit 0 ({code}: {err.strip()[-300:]})")
    if r:
        per_layer = [(layer["layer"], layer["calls_per_request"]) for layer in r.get("layers", [])]
        check(per_layer == [(2, 1.0), (1, 3.0)], f"layer 2 sends 1 call per request, layer 1 3 (got {per_layer})")

    code, r, err = storm(url, "--mode", "nosuch", "--requests", "1")
    check(code == 1 and r is None, f"an unknown policy exits 1 before any request (got {code})")
    check(f"--mode 'nosuch' is not a policy of {url}; its policies: legacy, resilient, adr0005" in err,
          f"and names the lab's policies (stderr: {err.strip()})")
    code, r, err = storm(url, "--mode", "adr005", "--requests", "1")
    check(code == 1 and "(did you mean 'adr0005'?)" in err, f"a near miss gets a did-you-mean (stderr: {err.strip()})")

sys.exit(1 if failures else 0)
