#!/usr/bin/env python3
"""The README's one-line container run for a student's laptop, run as the README writes it:
`podman build ... && podman run ...` from the source folder, on a port of our own (still
bound to 127.0.0.1 only). From outside the container: /health answers, a quote is live, the
dashboard is served, and Ctrl-C on `podman run` stops the lab.

Podman is optional on the machines that run the suite (`.ci/test` does not install it), and
the test runs only when asked, with QUOTE_LAB_CONTAINER_TEST=1: every change under lab/
invalidates the image's compiled layer, and compiling the lab inside the container took
25-30 minutes on two loaded cores, which every `ctest -LE fast` on a machine with podman
would otherwise pay. Not asked, without podman, or without a `debian:bookworm` image on a
machine that cannot reach a registry, the script says which and exits 77, which ctest
reports as skipped (SKIP_RETURN_CODE), never as passed.
Usage: test_container.py <source dir>"""
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures, picked_port  # noqa: E402
from podman_stack import stops_on_ctrl_c  # noqa: E402

ROOT = pathlib.Path(sys.argv[1])
SKIP = 77
BUILD_LIMIT_S = 1800  # a first build on a new machine downloads Debian's compiler into the image
START_LIMIT_S = 60


def skip(reason):
    print(f"SKIP the README's container run is not checked: {reason}", flush=True)
    sys.exit(SKIP)


def readme_one_liner():
    """The README's container line: the first `podman build ... && podman run ...` of its
    first screen (the newcomer's part, which test_readme.py keeps within 60 lines)."""
    head = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()[:60]
    for line in head:
        if line.startswith("podman build") and " && podman run " in line:
            return line.strip()
    raise SystemExit("FAIL README.md's first 60 lines have no `podman build ... && podman run ...` line")


def get(url, accept="application/json", timeout=5):
    req = urllib.request.Request(url, headers={"Accept": accept})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


def main():
    if os.environ.get("QUOTE_LAB_CONTAINER_TEST") != "1":
        skip("not asked: it builds the image (minutes); run it with QUOTE_LAB_CONTAINER_TEST=1 "
             "(cd build && QUOTE_LAB_CONTAINER_TEST=1 ctest -R container_one_liner --output-on-failure)")
    podman = shutil.which("podman")
    if podman is None:
        skip("podman is not installed (apt-get install podman runc, then run this test again)")
    if subprocess.run([podman, "image", "exists", "debian:bookworm"]).returncode != 0:
        # Where a registry answers, `podman build` pulls the base itself; here none does.
        probe = subprocess.run([podman, "pull", "-q", "docker.io/library/debian:bookworm"],
                               capture_output=True, text=True, timeout=120)
        if probe.returncode != 0:
            skip("podman has no debian:bookworm image and cannot pull one; make it from Debian's "
                 "packages: mmdebstrap --variant=minbase bookworm /tmp/bookworm.tar && "
                 "podman import /tmp/bookworm.tar debian:bookworm")

    line = readme_one_liner()
    build_part, run_part = line.split(" && ", 1)
    check("-p 127.0.0.1:8080:8080" in run_part,
          "the README's run publishes the lab on 127.0.0.1:8080 only (a student laptop, not the room)")
    check("--rm" in run_part, "the README's run removes its container on exit (--rm)")
    image = shlex.split(run_part)[-1]
    check(f"-t {image}" in build_part, f"the README builds the image it runs: {line}")

    started = time.monotonic()
    build = subprocess.run(shlex.split(build_part), cwd=ROOT, capture_output=True, text=True,
                           timeout=BUILD_LIMIT_S)
    build_s = time.monotonic() - started
    built = build.returncode == 0
    check(built, f"`{build_part}` builds (took {build_s:.0f} s)" + ("" if built else ":\n" + build.stderr[-1500:]))
    if not built:
        return

    port = picked_port()
    name = f"quote-lab-readme-test-{os.getpid()}"
    run_args = shlex.split(run_part.replace("127.0.0.1:8080:8080", f"127.0.0.1:{port}:8080"))
    run_args[2:2] = ["--name", name]  # after `podman run`: so the cleanup can find it
    lab = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    proc = subprocess.Popen(run_args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        status, body = 0, ""
        while time.monotonic() - started < START_LIMIT_S and proc.poll() is None:
            try:
                status, body = get(f"{lab}/health", timeout=2)
                if status == 200:
                    break
            except OSError:
                pass
            time.sleep(0.3)
        ready_s = time.monotonic() - started
        check(status == 200 and json.loads(body).get("status") == "ok",
              f"GET /health from outside the container answers 200 ({ready_s:.1f} s after `podman run`)")
        if status != 200:
            return

        status, body = get(f"{lab}/quote-resilient?scenario=ok")
        quote = json.loads(body)
        check(status == 200 and quote.get("status") == "completed" and quote["quote"]["source"] == "live",
              f"a quote from outside the container is live (HTTP {status}, {quote.get('status')}, "
              f"{(quote.get('quote') or {}).get('source')})")
        status, body = get(f"{lab}/", accept="text/html")
        check(status == 200 and "<html" in body.lower(), "a browser opening / gets the dashboard")
        # Only loopback: the published port is not on the machine's other addresses.
        inspect = subprocess.run([podman, "port", name], capture_output=True, text=True)
        check(re.fullmatch(rf"8080/tcp -> 127\.0\.0\.1:{port}", inspect.stdout.strip()) is not None,
              f"the container's port is bound to 127.0.0.1 ({inspect.stdout.strip()})")

        # Ctrl-C in the terminal that runs `podman run` reaches the lab, which saves and exits.
        stopped = stops_on_ctrl_c(proc)
        check(stopped, "Ctrl-C on `podman run` stops the lab within 20 s")
    finally:
        if proc.poll() is None:
            proc.kill()
        subprocess.run([podman, "rm", "-f", "-i", name], capture_output=True)
        out = proc.stdout.read() if proc.stdout else ""
        if failures:
            print("--- the container's output ---\n" + out[-3000:])


if __name__ == "__main__":
    main()
    sys.exit(1 if failures else 0)
