#!/usr/bin/env python3
"""The teacher's kit's container line (docs/clase/plan.md, for a teacher on macOS or Windows),
run as written but for two things: the image is the one deploy/podman/up builds from Debian's
packages with this build's binary (localhost/quote-lab:offline, the same CMD and working folder
as the Dockerfile's; test_container.py builds the Dockerfile itself, when asked), and the
published port is a loopback port of the test's own (this machine's servers bind 127.0.0.1:
the line's `-p 8080:8080`, every interface, is checked as text).

From the host: /health answers; the lab speaks Spanish to a curl (LAB_LANGUAGE=es); class-wide
routes need the kit's token (401 without it, 200 with it); a student's step 0 claims a name;
the lab printed no warning of an open lab without a token; Ctrl-C on `podman run` stops it.

Skipped (exit 77, with the reason) without podman or podman-compose, when not root, or where
podman cannot run containers (deploy/podman/up exits 69).
Usage: test_teacher_container.py <quote-lab binary> <source dir>"""
import json
import os
import pathlib
import shlex
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures, picked_port  # noqa: E402
from podman_stack import UNAVAILABLE, Stack, get, require_podman, skip, stops_on_ctrl_c  # noqa: E402
from poll import eventually  # noqa: E402

BINARY, ROOT = sys.argv[1], pathlib.Path(sys.argv[2])
WHAT = "the teacher's container line"
OFFLINE_IMAGE = "localhost/quote-lab:offline"
START_LIMIT_S = 60


def kit_line():
    """plan.md's `podman build ... && podman run ...` line that carries the teacher's token."""
    for line in (ROOT / "docs" / "clase" / "plan.md").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line.startswith("podman build") and " && podman run " in line and "LAB_ADMIN_TOKEN" in line:
            return line
    raise SystemExit("FAIL docs/clase/plan.md has no `podman build ... && podman run ... LAB_ADMIN_TOKEN=...` line")


def main():
    require_podman(WHAT)
    line = kit_line()
    build_part, run_part = line.split(" && ", 1)
    run_args = shlex.split(run_part)
    image = run_args[-1]
    env = dict(a.split("=", 1) for prev, a in zip(run_args, run_args[1:]) if prev == "-e")
    check(f"-t {image}" in build_part, f"the kit builds the image it runs: {line}")
    check("-p 8080:8080" in run_part, "the kit's run publishes port 8080 on every interface (the classroom's network)")
    check(env.get("LAB_LANGUAGE") == "es" and env.get("LAB_ADMIN_TOKEN"),
          f"the kit's run sets the teacher's token and the Spanish of `--language es` ({env})")
    token = env.get("LAB_ADMIN_TOKEN", "")

    done, took = Stack(ROOT, "compose.yml", BINARY).run("up", "--build-only", limit=600)
    if done.returncode == UNAVAILABLE:
        skip(WHAT, done.stderr.strip().splitlines()[-1])
    check(done.returncode == 0, f"deploy/podman/up compose.yml --build-only builds the lab's image ({took:.0f} s)")
    if done.returncode != 0:
        return

    port = picked_port()
    name = f"quote-lab-teacher-test-{os.getpid()}"
    args = shlex.split(run_part.replace("-p 8080:8080", f"-p 127.0.0.1:{port}:8080"))
    args[-1] = OFFLINE_IMAGE
    args[2:2] = ["--name", name]  # after `podman run`: so the clean-up finds it
    lab = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        started = time.monotonic()
        up = eventually(lambda: proc.poll() is not None or get(f"{lab}/health", timeout=2)[0] == 200,
                        START_LIMIT_S, every=0.3)
        status, _, body = get(f"{lab}/health")
        check(up and status == 200, f"GET /health from the host answers 200 ({time.monotonic() - started:.1f} s "
                                    f"after `podman run`; HTTP {status})")
        if status != 200:
            return

        denied, _, body = get(f"{lab}/class/reset", method="POST")
        message = (json.loads(body) if body.startswith("{") else {}).get("message", "")
        check(denied == 401 and "token del docente" in message,
              f"a class-wide reset without the token is refused in Spanish (HTTP {denied}: {message!r})")
        allowed, _, _ = get(f"{lab}/class/reset", method="POST", headers={"Authorization": f"Bearer {token}"})
        check(allowed == 200, f"the kit's token resets the class (HTTP {allowed})")
        claimed, _, body = get(f"{lab}/claim?name=ana", method="POST")
        answer = json.loads(body) if body.startswith("{") else {}
        check(claimed == 201 and answer.get("lab_key") and "guarda" in answer.get("message", ""),
              f"a student's step 0 claims her name, answered in Spanish (HTTP {claimed}: {answer.get('message')!r})")

        stopped = stops_on_ctrl_c(proc)  # Ctrl-C in the teacher's terminal
        check(stopped, "Ctrl-C on `podman run` stops the lab within 20 s")
        out = proc.stdout.read()
        check("sin token del docente" not in out and "without a teacher token" not in out,
              "the lab, open on the container's network with the token, warns of no open lab")
    finally:
        if proc.poll() is None:
            proc.kill()
        subprocess.run(["podman", "rm", "-f", "-i", name], capture_output=True)
        if failures and proc.stdout and not proc.stdout.closed:
            print("--- the container's output ---\n" + proc.stdout.read()[-3000:])


if __name__ == "__main__":
    main()
    sys.exit(1 if failures else 0)
