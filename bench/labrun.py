"""A `quote-lab serve` for the bench scripts: started on ports the kernel picks (its embedded
carrier too) with a fixed seed, asked over HTTP, stopped on exit; and `quote-lab storm`
against it. Shared by bench/amplification.py, bench/metastable.py, bench/goodput.py and
bench/metastability_map.py."""
import argparse
import glob
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bench_args(doc_name):
    """--binary (default build/quote-lab), --out (default docs/`doc_name`) and --smoke (tiny
    counts: the test suite runs the script so that it never rots)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "quote-lab"))
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", doc_name))
    parser.add_argument("--smoke", action="store_true")
    return parser.parse_args()


class Lab:
    """`with Lab(binary) as lab:` — lab.url once it listens; its log is shown if it cannot start.
    `serve_args` are added to `quote-lab serve`'s (e.g. --workers); `scenarios` (scenario files
    as dicts) are served beside the repository's scenarios/, from a folder of the lab's own."""

    def __init__(self, binary, serve_args=(), scenarios=()):
        self.binary = binary
        self.serve_args = list(serve_args)
        self.scenarios = list(scenarios)

    @staticmethod
    def scenario_folder(parent, scenarios):
        """The repository's scenarios and `scenarios` (dicts) in a new folder under `parent`."""
        folder = os.path.join(parent, "scenarios")
        os.makedirs(folder)
        for path in glob.glob(os.path.join(ROOT, "scenarios", "*.json")):
            shutil.copy(path, folder)
        for s in scenarios:
            with open(os.path.join(folder, s["name"] + ".json"), "w") as f:
                json.dump(s, f, indent=1)
        return folder

    def scenarios_dir(self):
        """The repository's scenarios and the generated ones in one folder: `--scenarios-dir`."""
        return ["--scenarios-dir", self.scenario_folder(self.dir.name, self.scenarios)]

    def __enter__(self):
        self.dir = tempfile.TemporaryDirectory(prefix="quote-lab-bench-")
        self.log = os.path.join(self.dir.name, "lab.log")
        extra = self.serve_args + (self.scenarios_dir() if self.scenarios else [])
        self.proc = subprocess.Popen([self.binary, "serve", "--port", "0", "--carrier-port", "0", "--seed", "1",
                                      "--state-file", os.path.join(self.dir.name, "state.json"), *extra],
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


def machine():
    """"2 cores (AMD EPYC), Debian 12.11, Linux 6.1.0, load average 1.52 at the start": what a
    measured document says it was measured on."""
    model, system = "", platform.system()
    if os.path.exists("/etc/debian_version"):
        system = "Debian " + open("/etc/debian_version").read().strip()
    if os.path.exists("/proc/cpuinfo"):
        found = re.search(r"^model name\s*:\s*(.+)$", open("/proc/cpuinfo").read(), re.M)
        model = f" ({found.group(1).strip()})" if found else ""
    return (f"{os.cpu_count()} cores{model}, {system}, Linux {platform.release().split('-')[0]}, "
            f"load average {os.getloadavg()[0]:.2f} at the start")


def write_doc(path, text):
    """Writes a generated doc (its folder made if need be) and says so."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    print(f"wrote {path}")
