#!/usr/bin/env python3
"""bench/overload_scenarios.py: the carriers the open-loop benches write as scenario files."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from overload_scenarios import Carrier, Trigger, scenario  # noqa: E402

CARRIER = Carrier(capacity=5, service_ms=100, queue_max=40)


class Carriers(unittest.TestCase):
    def test_capacity_is_calls_at_once_over_the_service_time(self):
        self.assertEqual(CARRIER.capacity_rps(), 50)
        self.assertEqual(CARRIER.queue_wait_s(), 0.8)

    def test_a_fifo_carrier_without_trigger(self):
        s = scenario("bench_fifo", CARRIER, "fifo")
        self.assertEqual(s["then"], {"latency_ms": [90, 110], "response": "ok"})
        self.assertEqual(s["shedding"], {"capacity": 5, "queue": {"discipline": "fifo", "max": 40}})
        self.assertIn("5 calls at a time of 100 ms, a fifo queue of 40", s["description"]["en"])
        self.assertIn("5 llamadas a la vez de 100 ms, una cola fifo de 40", s["description"]["es"])

    def test_codel_takes_facebooks_target_and_interval(self):
        queue = scenario("bench_codel", CARRIER, "codel")["shedding"]["queue"]
        self.assertEqual(queue, {"discipline": "codel", "max": 40, "target_ms": 5, "interval_ms": 100})

    def test_a_trigger_in_milliseconds(self):
        trigger = Trigger(after_s=4, length_s=8, capacity_drop=0.8)
        s = scenario("map_1", CARRIER, "fifo", trigger)
        self.assertEqual(s["shedding"]["trigger"], {"after_ms": 4000, "length_ms": 8000, "capacity_drop": 0.8})
        self.assertEqual(trigger.end_s(), 12)
        self.assertIn("loses 80% of its capacity for 8 s", s["description"]["en"])


if __name__ == "__main__":
    unittest.main()
