"""A real lab and a real Prometheus (Debian's) on 127.0.0.1, for the observability tests.

Prometheus runs with the repository's own observability/prometheus.yml, only its target
(`lab:8080`, the compose service) pointed at the test's lab, so the tests measure the scrape
interval and timeout that a class gets; or with observability/prometheus-replicas.yml, its
three targets (lab1..lab3:8080, labelled `replica`) pointed at three labs of the test. Everything lives in one temporary folder and is
stopped by `Stack.close()`, which prints the logs' tails when the test failed. Both bind
port 0 and the test reads the port each reports in its log (support/lab_http.py)."""
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from lab_http import Lab  # noqa: E402
from poll import eventually  # noqa: E402

COMPOSE_TARGET = "lab:8080"  # the scrape target in observability/prometheus.yml
# What Prometheus logs once its web listener is bound (port 0: the kernel's choice).
PROMETHEUS_LISTENING = re.compile(r'msg="Listening on" address=127\.0\.0\.1:(\d+)')


class Checks:
    """Named checks: a failure is printed with its detail and the run goes on."""

    def __init__(self):
        self.count = 0
        self.failures = []

    def check(self, name, ok, detail=""):
        self.count += 1
        if not ok:
            self.failures.append(name)
            print(f"FAIL {name}: {detail}", flush=True)

    def exit(self):
        print(f"{self.count - len(self.failures)} passed, {len(self.failures)} failed")
        sys.exit(1 if self.failures else 0)


def get(url, timeout=30):
    """(HTTP status, body bytes); an HTTP error status is an answer, not an exception."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def wait_until(fn, seconds, what):
    if not eventually(fn, seconds):
        raise SystemExit(f"timed out waiting for {what}")


def duration_s(text):
    """Seconds in a Prometheus or Grafana duration such as "1s", "500ms" or "1m30s".
    Raises ValueError for anything else, so a config the test cannot read fails loudly."""
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)", text.strip())
    if not parts or "".join(n + u for n, u in parts) != text.strip():
        raise ValueError(f"not a duration: {text!r}")
    return sum(float(n) * units[u] for n, u in parts)


def values(data):
    """{frozenset(labels): value} of an instant vector answer."""
    out = {}
    for r in data.get("data", {}).get("result", []):
        out[frozenset(r["metric"].items())] = float(r["value"][1])
    return out


def series(data):
    """{frozenset(labels): [finite values]} of a range query answer: what a Grafana time
    series panel draws (NaN, e.g. a quantile over no requests, is a gap)."""
    out = {}
    for r in data.get("data", {}).get("result", []):
        out[frozenset(r["metric"].items())] = [v for v in (float(x) for _, x in r["values"]) if not math.isnan(v)]
    return out


def by(data, **labels):
    """The values of an instant vector answer whose series carry all of `labels`."""
    return [v for k, v in values(data).items() if all((n, l) in k for n, l in labels.items())]


class Stack:
    """A lab (`quote-lab serve` with `lab_args`), any others `add_lab()` starts, and the
    Prometheus servers `start_prometheus()` starts to scrape them."""

    def __init__(self, binary, source, lab_args=()):
        self.binary, self.source = binary, source
        self.extra_labs = []
        self.tmp = tempfile.mkdtemp(prefix="quote-lab-prom-")
        self.procs = []
        self.failed = True  # until the test says otherwise: a SystemExit shows the logs too
        try:
            self.lab_process = Lab(binary, self.tmp, "lab", lab_args)
        except BaseException:
            shutil.rmtree(self.tmp, ignore_errors=True)
            raise
        self.lab_port = self.lab_process.port
        self.lab = self.lab_process.url

    def add_lab(self, name, lab_args=()):
        """Another lab in the same folder (its log kept with the others'), stopped by `close()`."""
        lab = Lab(self.binary, self.tmp, name, lab_args)
        self.extra_labs.append(lab)
        return lab

    def start_prometheus(self, config_name="prometheus.yml", targets=None):
        """Starts Prometheus with the repository's observability/`config_name`, each of its
        compose targets (`targets`: {"lab1:8080": lab}, by default this stack's lab as
        COMPOSE_TARGET) pointed at a lab of the test, and waits until it answers queries.
        Its first scrape comes ~5 s later (service discovery batches its first update):
        `wait_for_first_scrape()`, with other work in between."""
        targets = targets or {COMPOSE_TARGET: self.lab_process}
        with open(os.path.join(self.source, "observability", config_name)) as f:
            config_text = f.read()
        for compose_target, lab in targets.items():
            if config_text.count(f'"{compose_target}"') != 1:
                raise SystemExit(f"observability/{config_name} no longer scrapes \"{compose_target}\": update prom_stack.py")
            config_text = config_text.replace(f'"{compose_target}"', f'"127.0.0.1:{lab.port}"')
        name = os.path.splitext(config_name)[0]
        config = os.path.join(self.tmp, config_name)
        with open(config, "w") as f:
            f.write(config_text)
        proc = self._start(f"{name}.log", ["prometheus", f"--config.file={config}",
                                           f"--storage.tsdb.path={self.tmp}/{name}-data", "--web.listen-address=127.0.0.1:0"])
        return Prometheus(proc, os.path.join(self.tmp, f"{name}.log"), len(targets))

    def _start(self, log_name, argv):
        with open(os.path.join(self.tmp, log_name), "wb") as log:
            proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
        self.procs.append((log_name, proc))
        return proc

    def close(self):
        labs = [(f"{lab.name}.log", lab.proc) for lab in [self.lab_process] + self.extra_labs]
        for _, p in reversed(labs + self.procs):
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if self.failed:
            for log_name in [name for name, _ in labs + self.procs]:
                path = os.path.join(self.tmp, log_name)
                print(f"--- {log_name} (tail)\n" + open(path, errors="replace").read()[-6000:])
        shutil.rmtree(self.tmp, ignore_errors=True)


class Prometheus:
    """A started Prometheus (Stack.start_prometheus): waits until it answers, then asks it."""

    def __init__(self, proc, log_path, target_count):
        self.target_count = target_count

        def ready():
            if proc.poll() is not None:
                raise SystemExit(f"Prometheus exited ({proc.returncode}) at start")
            listening = PROMETHEUS_LISTENING.search(open(log_path, errors="replace").read())
            if not listening:
                return False
            self.port = int(listening.group(1))
            return get(f"http://127.0.0.1:{self.port}/-/ready", 1)[0] == 200

        wait_until(ready, 30, "Prometheus")

    def wait_for_first_scrape(self):
        """Until every target has been scraped once."""
        wait_until(lambda: len(values(self.query("up"))) == self.target_count, 15, "the first scrape")

    def target(self):
        """The (first) lab as Prometheus sees it: its job, effective scrape interval and
        timeout (s). The timeout is Prometheus's resolved one (the interval when the file
        sets none)."""
        status, body = get(f"http://127.0.0.1:{self.port}/api/v1/targets?state=active")
        t = json.loads(body)["data"]["activeTargets"][0]
        return t["labels"]["job"], duration_s(t["scrapeInterval"]), duration_s(t["scrapeTimeout"])

    def query(self, expr, at=None):
        """An instant query's JSON answer, evaluated now or at `at` (Unix seconds)."""
        params = {"query": expr, **({"time": f"{at:.3f}"} if at is not None else {})}
        return json.loads(get(f"http://127.0.0.1:{self.port}/api/v1/query?" + urllib.parse.urlencode(params))[1])

    def query_range(self, expr, start, end, step_s):
        """A range query's JSON answer, as a Grafana time series panel asks for it."""
        params = {"query": expr, "start": f"{start:.3f}", "end": f"{end:.3f}", "step": f"{step_s:g}"}
        return json.loads(get(f"http://127.0.0.1:{self.port}/api/v1/query_range?" + urllib.parse.urlencode(params))[1])
