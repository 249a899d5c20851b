#!/usr/bin/python3
"""The part of deploy/podman/up and deploy/podman/down that reads the compose files (Debian's
own python3, whose python3-yaml podman-compose brings). deploy/podman/up has installed and
configured podman, made the debian:bookworm base and staged the lab's binary before it runs
`stack.py up`.

  stack.py up FILE            build the images, create the containers, start them in order
  stack.py up FILE --build-only   only the images (deploy/kubernetes/'s smoke test)
  stack.py down FILE [-v]     stop and remove them (and their network; -v: their volumes too)
  stack.py configure          podman's settings for a machine without systemd

FILE is compose.yml or compose.replicas.yml; its override, compose.offline.yml or
compose.replicas.offline.yml, replaces the registry images with images built from Debian's
packages. The project is COMPOSE_PROJECT_NAME, else the file's `name:` (podman-compose 1.0.3
ignores `name:` and would name everything after the folder).

What podman-compose 1.0.3 does not do, and this script does instead:
- `depends_on: condition: service_healthy`: 1.0.3 only starts services with fewer
  dependencies first, one second apart, and never waits for a health check. Here the
  containers are created with `podman-compose up --no-start` and started one by one in
  depends_on order; before a service starts, each dependency it needs healthy is asked
  `podman healthcheck run` until it answers healthy (within its own start_period + retries x
  (interval + timeout), at least 60 s), and `up` returns once every health check passes.
- Health checks on a machine without systemd: podman runs a container's check from a systemd
  timer; without systemd there is none, so a check runs only when asked (`podman healthcheck
  run NAME`; `up` asks). Restart policies do not need systemd: podman restarts a container
  whose process exits (`restart: unless-stopped`), not one stopped with podman stop or kill.
- `${VAR:-}` (an empty default) is left as written, so compose.yml's
  `LAB_ADMIN_TOKEN: ${LAB_ADMIN_TOKEN:-}` would make the token that literal text: the offline
  files say `${LAB_ADMIN_TOKEN}` instead.
- A variable set but empty replaces `${VAR:-default}` with "" (docker compose takes the
  default): empty variables are not passed to podman-compose.
- A build or a `podman create` that fails leaves its exit status 0: each podman command's exit
  code in its output is read, and every container is checked to exist.
- `up` keeps a container whatever changed: here `up` recreates them (volumes kept).
- `down` leaves the project's network and the containers' anonymous volumes: they go here.
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import time

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
LOG_DIR = ROOT / "build" / "podman"
PROJECT_LABEL = "io.podman.compose.project"
CONTAINERS_CONF = pathlib.Path("/etc/containers/containers.conf")
# podman's settings on a machine without systemd (and with a lower open-files limit than
# podman's default ulimit): cgroups managed by podman itself, runc, the machine's own ulimits.
SETTINGS = [("containers", "default_ulimits", "[]"), ("engine", "cgroup_manager", '"cgroupfs"'),
            ("engine", "runtime", '"runc"')]


class Failure(Exception):
    pass


def say(line):
    print(line, flush=True)


def seconds(text, default):
    """A compose duration ("5s", "1m30s", "500ms") in seconds."""
    if text is None:
        return default
    total = 0.0
    for number, unit in re.findall(r"([\d.]+)(ms|s|m|h)", str(text)):
        total += float(number) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[unit]
    return total


class Stack:
    def __init__(self, file):
        path = pathlib.Path(file)
        if not path.is_absolute() and not path.exists():
            path = ROOT / path
        if not path.exists():
            raise Failure(f"{file}: no such compose file (compose.yml or compose.replicas.yml)")
        self.file = path.resolve()
        self.override = self.file.with_name(self.file.name[: -len(self.file.suffix)] + ".offline.yml")
        if not self.override.exists():
            raise Failure(f"{self.file.name} has no offline override beside it ({self.override.name}): "
                          "deploy/podman/up starts compose.yml or compose.replicas.yml")
        self.doc = yaml.safe_load(self.file.read_text(encoding="utf-8"))
        self.offline = yaml.safe_load(self.override.read_text(encoding="utf-8"))
        self.project = os.environ.get("COMPOSE_PROJECT_NAME") or self.doc.get("name") or self.file.parent.name
        self.left_out = dict(self.offline.get("x-left-out-offline") or {})
        every = self.doc.get("services") or {}
        self.services = {name: spec for name, spec in every.items() if name not in self.left_out}
        for name, spec in self.services.items():
            for dep in self.depends_on(spec):
                if dep in self.left_out:
                    raise Failure(f"{name} depends on {dep}, which is left out offline")
        self.env = {k: v for k, v in os.environ.items() if v != ""}
        LOG_DIR.mkdir(parents=True, exist_ok=True)

    @staticmethod
    def depends_on(spec):
        """{service: condition} of a service's depends_on (list or map form)."""
        deps = spec.get("depends_on") or {}
        if isinstance(deps, list):
            return {d: "service_started" for d in deps}
        return {d: (c or {}).get("condition", "service_started") for d, c in deps.items()}

    def container(self, service):
        return f"{self.project}_{service}_1"  # podman-compose 1.0.3's name for a service's container

    def compose(self, *args, log, what, every_command_succeeds=False):
        """podman-compose on FILE and its override; its (long) output goes to `log`. 1.0.3 exits
        0 when a podman command it ran failed (a build, a create): with
        `every_command_succeeds`, any `exit code: N` it prints but 0 is a failure."""
        command = ["podman-compose", "-p", self.project, "-f", str(self.file), "-f", str(self.override), *args]
        done = subprocess.run(command, cwd=ROOT, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, errors="replace")
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"\n$ {' '.join(command)}\n{done.stdout}")
        failed = done.returncode != 0 or (every_command_succeeds and re.search(r"^exit code: [1-9]", done.stdout, re.M))
        if failed:
            tail = "".join(done.stdout.splitlines(True)[-25:])
            raise Failure(f"{what} failed; the end of its output (all of it in {log}):\n{tail}")
        return done.stdout

    def order(self):
        """The services, each after everything it depends on."""
        ordered, seen = [], set()

        def visit(name, path):
            if name in seen:
                return
            if name in path:
                raise Failure(f"depends_on has a cycle through {name}")
            for dep in self.depends_on(self.services[name]):
                visit(dep, path | {name})
            seen.add(name)
            ordered.append(name)

        for name in self.services:
            visit(name, set())
        return ordered

    def health_bound(self, service):
        check = self.services[service].get("healthcheck") or {}
        patience = seconds(check.get("start_period"), 0) + check.get("retries", 3) * (
            seconds(check.get("interval"), 30) + seconds(check.get("timeout"), 30))
        return max(60.0, patience)

    def wait_healthy(self, service):
        """Asks the service's health check until it passes; seconds it took."""
        name, started = self.container(service), time.monotonic()
        bound = self.health_bound(service)
        while True:
            check = subprocess.run(["podman", "healthcheck", "run", name], capture_output=True, text=True)
            if check.returncode == 0:
                return time.monotonic() - started
            if time.monotonic() - started > bound:
                state = podman_output("inspect", name, "--format", "{{.State.Status}}, restarted {{.RestartCount}} times")
                logs = subprocess.run(["podman", "logs", "--tail", "20", name], capture_output=True, text=True)
                raise Failure(f"{service} ({name}) is not healthy after {bound:.0f} s ({state.strip()}); "
                              f"its last check: {(check.stdout + check.stderr).strip()}\n"
                              f"its log:\n{logs.stdout}{logs.stderr}")
            time.sleep(0.5)

    def build(self, log):
        """Every image the services start from, one build per image (compose.replicas.yml's
        carrier and replicas share the lab's); the images a new build replaced."""
        per_image, offline = {}, self.offline.get("services") or {}
        for service, spec in self.services.items():
            merged = {**spec, **(offline.get(service) or {})}
            if merged.get("build"):
                per_image.setdefault(merged.get("image"), service)
        say(f"== building {len(per_image)} images from Debian's packages (log: {log.relative_to(ROOT)})")
        replaced = []
        for image, service in per_image.items():
            t0 = time.monotonic()
            old = podman_output("image", "inspect", "--format", "{{.Id}}", image).strip()
            self.compose("build", service, log=log, what=f"building {image} ({service})", every_command_succeeds=True)
            say(f"   {image} ({service}): {time.monotonic() - t0:.0f} s")
            if old and podman_output("image", "inspect", "--format", "{{.Id}}", image).strip() != old:
                replaced.append(old)
        return replaced

    @staticmethod
    def forget(images):
        """A new binary makes a new image: the one it replaced goes, unless a container
        still uses it (podman rmi refuses then)."""
        if images:
            subprocess.run(["podman", "rmi", *images], capture_output=True)

    def up(self, build_only=False):
        log = LOG_DIR / f"{self.file.stem}-up.log"
        log.write_text("", encoding="utf-8")
        log.chmod(0o600)  # podman-compose prints the merged file, the admin token with it
        if self.left_out and not build_only:
            for service, why in self.left_out.items():
                say(f"== left out: {service} ({why})")
        replaced = self.build(log)
        if build_only:
            self.forget(replaced)
            return
        say(f"== creating {len(self.services)} containers (project {self.project}) with podman-compose")
        out = self.compose("up", "--no-start", "--no-build", "--force-recreate", *self.services, log=log,
                           what="creating the containers")
        absent = [s for s in self.services
                  if subprocess.run(["podman", "container", "exists", self.container(s)]).returncode != 0]
        if absent:
            errors = "\n".join(l for l in out.splitlines() if l.startswith("Error:") and "no container with name" not in l)
            raise Failure(f"podman-compose did not create {', '.join(map(self.container, absent))} "
                          f"(all of its output in {log}):\n{errors}")
        self.forget(replaced)
        say("== starting them in depends_on order")
        healthy = set()
        for service in self.order():
            spec = self.services[service]
            waited = []
            for dep, condition in self.depends_on(spec).items():
                if condition == "service_healthy" and dep not in healthy:
                    took = self.wait_healthy(dep)
                    healthy.add(dep)
                    say(f"   {dep} healthy ({took:.1f} s)")
                if condition == "service_healthy":
                    waited.append(dep)
            started = subprocess.run(["podman", "start", self.container(service)], capture_output=True, text=True)
            if started.returncode != 0:
                raise Failure(f"podman start {self.container(service)} failed: {started.stderr.strip()}")
            say(f"   {service} started" + (f" (after {', '.join(waited)} healthy)" if waited else ""))
        for service in self.order():
            if service not in healthy and (self.services[service].get("healthcheck") or {}).get("test"):
                took = self.wait_healthy(service)
                healthy.add(service)
                say(f"   {service} healthy ({took:.1f} s)")
        say(f"== up: {self.project}")
        for service in self.order():
            ports = podman_output("port", self.container(service)).split("\n")
            for line in filter(None, (p.strip() for p in ports)):
                inner, outer = line.split(" -> ")
                say(f"   {service}: http://{outer.replace('0.0.0.0', '127.0.0.1')} ({inner})")
        say("   (health checks run when asked here, without systemd: podman healthcheck run NAME)")

    def down(self, volumes):
        log = LOG_DIR / f"{self.file.stem}-down.log"
        log.write_text("", encoding="utf-8")
        log.chmod(0o600)
        label = f"label={PROJECT_LABEL}={self.project}"
        before = podman_output("ps", "-a", "-q", "--filter", label).split()
        # A container's anonymous volumes (an image's VOLUME no compose volume covers, as the
        # carrier's /var/lib/quote-lab) would outlive it: podman-compose 1.0.3 does not hand
        # them to the next container as docker compose does, so they go with it.
        mounted = podman_output("inspect", "--format", '{{range .Mounts}}{{if eq .Type "volume"}}{{.Name}} {{end}}{{end}}',
                                *before).split() if before else []
        anonymous = [v for v in mounted if podman_output("volume", "inspect", "--format", "{{.Anonymous}}", v).strip() == "true"]
        # Every service of the file, the left-out ones too (podman-compose says it has none of
        # them): named services would keep -v from removing the volumes.
        self.compose("down", "-t", "10", *(["-v"] if volumes else []), log=log, what="podman-compose down")
        # Whatever is left of the project: a service since removed from the file, its network.
        rest = podman_output("ps", "-a", "-q", "--filter", label).split()
        if rest:
            subprocess.run(["podman", "rm", "-f", "-t", "10", *rest], capture_output=True)
        if anonymous:
            subprocess.run(["podman", "volume", "rm", "-f", *anonymous], capture_output=True)
        networks = podman_output("network", "ls", "-q", "--filter", label).split()
        if networks:
            subprocess.run(["podman", "network", "rm", "-f", *networks], capture_output=True)
        kept = podman_output("volume", "ls", "-q", "--filter", label).split()
        if volumes and kept:
            subprocess.run(["podman", "volume", "rm", "-f", *kept], capture_output=True)
            kept = podman_output("volume", "ls", "-q", "--filter", label).split()
            if kept:
                raise Failure(f"could not remove the volumes {', '.join(kept)}")
        left = podman_output("ps", "-a", "-q", "--filter", label).split()
        if left:
            raise Failure(f"containers of {self.project} are still there: {' '.join(left)} (log: {log})")
        say(f"== down: {self.project}: {len(before)} containers and {len(networks)} network removed"
            + (f"; volumes kept: {', '.join(kept)} (down FILE --volumes removes them)" if kept else
               ("; volumes removed" if volumes else "")))


def podman_output(*args):
    done = subprocess.run(["podman", *args], capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else ""


def parses(toml_text):
    import tomllib
    try:
        tomllib.loads(toml_text)
        return True
    except tomllib.TOMLDecodeError:
        return False


def configure():
    """Sets SETTINGS in /etc/containers/containers.conf where missing or different, keeping
    everything else in it; says what it changed."""
    import tomllib
    text = CONTAINERS_CONF.read_text(encoding="utf-8") if CONTAINERS_CONF.exists() else ""
    try:
        current = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise Failure(f"{CONTAINERS_CONF} is not valid TOML ({e}): fix it or move it aside")
    changed = []
    for table, key, value in SETTINGS:
        wanted = tomllib.loads(f"v = {value}")["v"]
        had = current.get(table, {}).get(key, None)
        if had == wanted:
            continue
        lines = text.splitlines()
        header = next((i for i, l in enumerate(lines) if l.strip() == f"[{table}]"), None)
        if header is None:
            lines += ["", f"[{table}]", f"{key} = {value}"]
        else:
            end = next((i for i in range(header + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
            at = next((i for i in range(header + 1, end) if re.match(rf"\s*{key}\s*=", lines[i])), None)
            if at is None:
                lines.insert(header + 1, f"{key} = {value}")
            else:  # the old value may span lines (an array): up to where it parses
                stop = next((j for j in range(at + 1, end + 1) if parses("\n".join(lines[at:j]))), at + 1)
                lines[at:stop] = [f"{key} = {value}"]
        text = "\n".join(lines).lstrip("\n") + "\n"
        changed.append(f"[{table}] {key} = {value}" + (f" (was {json.dumps(had)})" if had is not None else ""))
    if changed:
        if not parses(text):  # never write a file podman cannot read
            raise Failure(f"could not set {', '.join(changed)} in {CONTAINERS_CONF}: set them by hand")
        CONTAINERS_CONF.parent.mkdir(parents=True, exist_ok=True)
        CONTAINERS_CONF.write_text(text, encoding="utf-8")
        for change in changed:
            say(f"== podman: set {change} in {CONTAINERS_CONF}")


def main(argv):
    try:
        if argv[:1] == ["configure"]:
            configure()
        elif len(argv) in (2, 3) and argv[0] == "up" and argv[2:] in ([], ["--build-only"]):
            Stack(argv[1]).up(build_only=bool(argv[2:]))
        elif len(argv) >= 2 and argv[0] == "down" and set(argv[2:]) <= {"-v", "--volumes"}:
            Stack(argv[1]).down(volumes=bool(argv[2:]))
        else:
            print(__doc__.split("\n\n")[1], file=sys.stderr)
            return 2
    except Failure as e:
        print(f"deploy/podman/{argv[0]}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
