"""A `quote-lab serve` for the bench scripts: started on ports the kernel picks (its embedded
carrier too) with a fixed seed, asked over HTTP, stopped on exit; and `quote-lab storm`
against it. Shared by bench/amplification.py and bench/metastable.py."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request


class Lab:
    """`with Lab(binary) as lab:` — lab.url once it listens; its log is shown if it cannot start."""

    def __init__(self, binary):
        self.binary = binary

    def __enter__(self):
        self.dir = tempfile.TemporaryDirectory(prefix="quote-lab-bench-")
        self.log = os.path.join(self.dir.name, "lab.log")
        self.proc = subprocess.Popen([self.binary, "serve", "--port", "0", "--carrier-port", "0", "--seed", "1",
                                      "--state-file", os.path.join(self.dir.name, "state.json")],
                                     stdout=open(self.log, "wb"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            found = re.search(r"quote-lab listening on (http://127\.0\.0\.1:\d+)", open(self.log).read())
            if found:
                self.url = found.group(1)
                return self
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.proc.kill()
        sys.exit("the lab did not start:\n" + open(self.log).read())

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self.dir.cleanup()

    def request(self, method, path):
        """(status, parsed JSON body)."""
        req = urllib.request.Request(self.url + path, method=method)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def storm(self, storm_args):
        """POST /reset-lab, then `quote-lab storm --json` with `storm_args`: (its exit code,
        its JSON or None, its stderr)."""
        self.request("POST", "/reset-lab")
        out = subprocess.run([self.binary, "storm", "--target", self.url, "--json", "--settle-s", "1", *storm_args],
                             capture_output=True, text=True, timeout=900)
        result = json.loads(out.stdout[out.stdout.find("{"):]) if "{" in out.stdout else None
        return out.returncode, result, out.stderr.strip()


def status_mix(result):
    """"degraded 90, failed 10": a storm's answers by status."""
    return ", ".join(f"{k} {v}" for k, v in sorted(result["status_counts"].items()))
