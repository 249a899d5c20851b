#!/usr/bin/env python3
"""deploy/kubernetes/ under `podman kube play` (podman 4.3.1), a smoke test: what podman runs
of the manifests, with the images deploy/podman/up builds from Debian's packages.

The manifests, as kustomization.yaml lists them, are played with two kinds of substitution, the
same as compose.replicas.offline.yml makes for compose: the registry images become the local
ones (quote-lab:local -> localhost/quote-lab:offline, redis:7, prom/prometheus:v2.42.0 -> the
offline Redis and Prometheus), and, since podman has no Services, a Service's name becomes the
names of the pods its selector picks (podman names a Deployment's pods DEPLOYMENT-pod-N and
resolves those names on the play's network): redis -> redis-pod-0 in the replicas'
STATE_BACKEND, carrier -> carrier-pod-0 in CARRIER_URL, the headless quote-lab-pods ->
quote-lab-pod-0..2 in Prometheus's DNS discovery. Nothing else changes.

Checked, from the host, on the pods' own addresses (a network of the test's own; the manifests
publish no port): the Deployments' replicas are that many pods, none publishes a host port;
each replica's /health; the lab's liveness probe, which podman turns into a health check, passes;
a live quote (the carrier reached by name); one breaker for the three replicas through the
Redis Deployment; Prometheus, configured by the ConfigMap, scrapes the three replicas. Not
checked (podman 4.3 does not do it): Services and their load balancing, readiness probes, a
restart on a failed liveness probe (without systemd a health check runs only when asked),
emptyDir per pod (podman makes one volume named after it for every pod), resources.
`podman kube down` at the end, always, and the play's network and volumes removed.

Skipped (exit 77, with the reason) without podman or podman-compose, when not root, or where
podman cannot run containers (deploy/podman/up exits 69).
Usage: test_kube_play.py <quote-lab binary> <source dir>"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
from checks import check, failures  # noqa: E402
from podman_stack import (DEADLINE_SPREAD_MS, UNAVAILABLE, Stack, get_json, one_breaker,  # noqa: E402
                          require_podman, skip)
from poll import eventually  # noqa: E402

BINARY, ROOT = sys.argv[1], pathlib.Path(sys.argv[2])
WHAT = "deploy/kubernetes/ under podman kube play"
MANIFESTS = ROOT / "deploy" / "kubernetes"
LOCAL_IMAGES = {"quote-lab:local": "localhost/quote-lab:offline", "redis:7": "localhost/quote-lab-redis:offline",
                "prom/prometheus:v2.42.0": "localhost/quote-lab-prometheus:offline"}
# A replica that starts before Redis answers exits and is restarted: allow for a few rounds.
READY_LIMIT_S = 90


def podman(*args):
    return subprocess.run(["podman", *args], capture_output=True, text=True)


def played(yaml):
    """The manifests as podman kube play gets them, and {Deployment: its pods' names}."""
    kustomization = yaml.safe_load((MANIFESTS / "kustomization.yaml").read_text(encoding="utf-8"))
    docs = [d for name in kustomization["resources"]
            for d in yaml.safe_load_all((MANIFESTS / name).read_text(encoding="utf-8")) if d]
    deployments = [d for d in docs if d["kind"] == "Deployment"]
    pods = {d["metadata"]["name"]: [f"{d['metadata']['name']}-pod-{n}" for n in range(d["spec"].get("replicas", 1))]
            for d in deployments}

    def picked(service):
        selector = service["spec"]["selector"]
        return next(pods[d["metadata"]["name"]] for d in deployments
                    if selector.items() <= d["spec"]["template"]["metadata"]["labels"].items())

    services = {s["metadata"]["name"]: picked(s) for s in docs if s["kind"] == "Service"}
    for deployment in deployments:
        for container in deployment["spec"]["template"]["spec"]["containers"]:
            container["image"] = LOCAL_IMAGES.get(container["image"], container["image"])
            for var in container.get("env", []):
                if "value" in var:
                    var["value"] = re.sub(r"(?<=//)([a-z0-9-]+)(?=:)",
                                          lambda m: services.get(m[1], [m[1]])[0], var["value"])
    for config in (d for d in docs if d["kind"] == "ConfigMap" and "prometheus.yml" in d.get("data", {})):
        prometheus = yaml.safe_load(config["data"]["prometheus.yml"])
        for job in prometheus["scrape_configs"]:
            for sd in job.get("dns_sd_configs", []):
                sd["names"] = [pod for name in sd["names"] for pod in services.get(name, [name])]
        config["data"]["prometheus.yml"] = yaml.safe_dump(prometheus)
    # Services go too: podman 4.3 ignores them (its kube play runs Pods, Deployments,
    # PersistentVolumeClaims and ConfigMaps).
    kept = [d for d in docs if d["kind"] != "Service"]
    return yaml.safe_dump_all(kept), pods, docs


def main():
    require_podman(WHAT)
    try:
        import yaml
    except ImportError:  # Debian's python3 has python3-yaml once podman-compose is installed
        if sys.executable != "/usr/bin/python3":
            os.execv("/usr/bin/python3", ["/usr/bin/python3", *sys.argv])
        raise
    # The images, as compose.replicas.yml's offline file builds them; no container starts.
    stack = Stack(ROOT, "compose.replicas.yml", BINARY)
    done, took = stack.run("up", "--build-only", limit=600)
    if done.returncode == UNAVAILABLE:
        skip(WHAT, done.stderr.strip().splitlines()[-1])
    check(done.returncode == 0, f"deploy/podman/up compose.replicas.yml --build-only builds the images ({took:.0f} s)")
    if done.returncode != 0:
        return

    text, pods, docs = played(yaml)
    volumes_before = set(podman("volume", "ls", "-q").stdout.split())
    network = f"quote-lab-kube-test-{os.getpid()}"
    with tempfile.TemporaryDirectory() as tmp:
        play = pathlib.Path(tmp) / "quote-lab.yaml"
        play.write_text(text, encoding="utf-8")
        try:
            podman("network", "create", network)
            result = podman("kube", "play", "--network", network, str(play))
            # Known and harmless here: no systemd for health check timers, no syslog.
            errors = [l for l in result.stderr.splitlines() if "systemd" not in l and "syslog" not in l]
            check(result.returncode == 0, f"podman kube play runs the manifests ({' '.join(errors)[-600:]})")
            expected = sorted(p for names in pods.values() for p in names)
            running = sorted(podman("pod", "ps", "--format", "{{.Name}}", "--filter", "status=running").stdout.split())
            check(set(expected) <= set(running), f"each Deployment's replicas are that many pods ({expected}; running: {running})")
            published = {p: podman("ps", "--filter", f"pod={p}", "--format", "{{.Ports}}").stdout.split() for p in expected}
            check(not any(published.values()), f"no pod publishes a host port ({published})")

            def address(pod):
                infra = podman("pod", "inspect", pod, "--format", "{{.InfraContainerID}}").stdout.strip()
                ip = podman("inspect", infra, "--format", f'{{{{(index .NetworkSettings.Networks "{network}").IPAddress}}}}')
                return ip.stdout.strip()

            labs = {pod: f"http://{address(pod)}:8080" for pod in pods["quote-lab"]}
            eventually(lambda: all(get_json(f"{url}/health", timeout=2)[0] == 200 for url in labs.values()),
                       READY_LIMIT_S, every=1.0)
            health = {pod: get_json(f"{url}/health", timeout=5)[0] for pod, url in labs.items()}
            check(all(status == 200 for status in health.values()) and len(health) == 3,
                  f"each of the three replicas answers /health on its pod's address ({health})")
            if not all(status == 200 for status in health.values()):
                return
            probe = podman("healthcheck", "run", "quote-lab-pod-0-lab")
            check(probe.returncode == 0, "the replica's liveness probe, as podman's health check, passes "
                                         f"({(probe.stdout + probe.stderr).strip()})")

            first = next(iter(labs.values()))
            status, _, quote = get_json(f"{first}/quote-resilient?scenario=ok")
            check(status == 200 and quote["quote"]["source"] == "live",
                  f"a live quote: the replica reaches the carrier's pod by name (HTTP {status}, "
                  f"{quote['quote']['source'] if status == 200 else quote})")
            status, _, quote = get_json(f"{first}/quote-resilient?scenario=provider_down")
            states = {pod: get_json(f"{url}/dependency/state")[2] for pod, url in labs.items()}
            check(status == 200 and quote["dependency"]["circuit_status"] == "open" and one_breaker(states)
                  and all(s["state_backend"]["kind"] == "redis" and s["state_backend"]["healthy"] for s in states.values()),
                  "one breaker for the three replicas through the Redis Deployment: a provider_down quote on one "
                  f"opens it, and all three report it open (one count of openings, deadlines within {DEADLINE_SPREAD_MS} ms; "
                  + ", ".join(f"{pod} {s['circuit_status']} until {s['opened_until']}, {s['open_events']} openings, "
                              f"{s['state_backend']['kind']}" for pod, s in states.items() if s) + ")")

            prometheus = f"http://{address(pods['prometheus'][0])}:9090"

            def scraped():
                _, _, answer = get_json(f"{prometheus}/api/v1/targets", timeout=2)
                targets = answer["data"]["activeTargets"] if answer else []
                return targets if len([t for t in targets if not t["lastScrape"].startswith("0001")]) == 3 else None

            targets = eventually(scraped, READY_LIMIT_S, every=0.5) or []
            check(sorted(t["health"] for t in targets) == ["up"] * 3,
                  f"Prometheus, configured by the ConfigMap, scrapes the three replicas "
                  f"({[(t['labels']['instance'], t['health']) for t in targets]})")
        finally:
            if failures:
                for pod in sorted(p for names in pods.values() for p in names):
                    logs = podman("pod", "logs", "--tail", "20", pod)
                    print(f"--- podman pod logs {pod}\n{logs.stdout}{logs.stderr}")
            down = podman("kube", "down", str(play))
            ours = [p for names in pods.values() for p in names]
            rest = [p for p in ours if podman("pod", "exists", p).returncode == 0]
            if rest:
                podman("pod", "rm", "-f", *rest)
            podman("network", "rm", "-f", network)
            # The play's volumes: its emptyDirs and ConfigMaps, made into volumes named after them.
            named = {v["name"] for d in docs if d["kind"] == "Deployment" for v in d["spec"]["template"]["spec"].get("volumes", [])}
            named |= {d["metadata"]["name"] for d in docs if d["kind"] == "ConfigMap"}
            created = [v for v in podman("volume", "ls", "-q").stdout.split() if v not in volumes_before and v in named]
            if created:
                podman("volume", "rm", "-f", *created)
            left = {"pods": [p for p in ours if podman("pod", "exists", p).returncode == 0],
                    "network": podman("network", "exists", network).returncode == 0,
                    "volumes": [v for v in podman("volume", "ls", "-q").stdout.split() if v not in volumes_before]}
            check(down.returncode == 0 and not rest and not any(left.values()),
                  f"podman kube down removes the pods; the network and the play's volumes go too "
                  f"(pods kube down left: {rest}; left now: {left})")


if __name__ == "__main__":
    main()
    sys.exit(1 if failures else 0)
