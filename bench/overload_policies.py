"""The policies the open-loop benches storm (bench/goodput.py, bench/metastability_map.py): each
with its `quote-lab storm` arguments and its worst-case amplification, the most carrier calls
one quote can make (docs/policies.md), which Theorem 2's bound divides the capacity by."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Policy:
    key: str                    # how tables and images name it
    what: str                   # one line for a reader
    storm_args: tuple           # after `quote-lab storm`
    worst_amplification: int    # most carrier calls per quote

    def retries(self):
        return self.worst_amplification - 1


NO_BREAKER = ("--param", "circuit_breaker=false")

LEGACY = Policy("legacy", "4 attempts of 360 ms, no backoff, no breaker", ("--mode", "legacy"), 4)
RESILIENT = Policy("resilient", "2 attempts of 220 ms, backoff, breaker (2 failures, open 30 s), fallback",
                   ("--mode", "resilient"), 2)
ONE_RETRY = Policy("resilient, no breaker", "resilient's 2 attempts of 220 ms without its breaker: one retry",
                   ("--mode", "resilient", *NO_BREAKER), 2)
THROTTLED = Policy("throttled", "resilient's 2 attempts, adaptive throttling (SRE book, K 1.5) instead of a breaker",
                   ("--mode", "throttled"), 2)
ADAPTIVE_LIMIT = Policy("adaptive_limit", "resilient's 2 attempts under Envoy's gradient concurrency limit",
                        ("--mode", "adaptive_limit"), 2)

BY_KEY = {p.key: p for p in (LEGACY, RESILIENT, ONE_RETRY, THROTTLED, ADAPTIVE_LIMIT)}


def storm_command(policy, extra):
    """The storm's command line as the documents print it."""
    return " ".join(["build/quote-lab", "storm", *policy.storm_args, *extra])
