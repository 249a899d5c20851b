#!/usr/bin/env python3
"""bench/recovery.py: the metastability map's recovery judgment and its two bounds, on
timelines written by hand."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from recovery import Judgement, bronson_bound_rps, recovered_after_s, theorem2_bound_rps  # noqa: E402

OFFERED = [20] * 30  # 20 arrivals every second


def timeline(bad_until, length=30, good=20, bad=1):
    """Goodput per second: `bad` before second `bad_until`, `good` from it on."""
    return [bad if s < bad_until else good for s in range(length)]


class RecoveryJudgement(unittest.TestCase):
    def test_recovers_seven_seconds_after_the_trigger(self):
        self.assertEqual(recovered_after_s(timeline(17), OFFERED, trigger_end_s=10), 7)

    def test_never_when_goodput_stays_low(self):
        self.assertIsNone(recovered_after_s(timeline(99), OFFERED, trigger_end_s=10))

    def test_healthy_at_once_is_zero_seconds(self):
        self.assertEqual(recovered_after_s(timeline(10), OFFERED, trigger_end_s=10), 0)

    def test_what_happens_during_the_trigger_does_not_count(self):
        # Healthy before the trigger, down from second 10, healthy again from 17; it ended at 15.
        goodput = [20] * 10 + [0] * 7 + [20] * 13
        self.assertEqual(recovered_after_s(goodput, OFFERED, trigger_end_s=15), 2)

    def test_a_trigger_ending_inside_a_second_counts_from_the_next_whole_one(self):
        self.assertEqual(recovered_after_s(timeline(17), OFFERED, trigger_end_s=9.2), 7)

    def test_the_share_is_of_that_seconds_arrivals(self):
        # 18 of 20 is 90 %: healthy; 17 is not.
        self.assertEqual(recovered_after_s(timeline(12, good=18), OFFERED, 10), 2)
        self.assertIsNone(recovered_after_s(timeline(12, good=17), OFFERED, 10))
        arrivals = [20] * 12 + [10] * 18
        self.assertEqual(recovered_after_s(timeline(12, good=9), arrivals, 10), 2)

    def test_one_healthy_second_is_not_a_recovery(self):
        goodput = timeline(99)
        goodput[12] = 20
        self.assertIsNone(recovered_after_s(goodput, OFFERED, 10))

    def test_a_later_collapse_is_another_episode(self):
        goodput = timeline(13)
        goodput[18:30] = [0] * 12
        self.assertEqual(recovered_after_s(goodput, OFFERED, 10), 3)

    def test_a_run_cut_by_the_end_of_the_window_is_not_a_recovery(self):
        self.assertIsNone(recovered_after_s(timeline(29), OFFERED, 10))
        self.assertEqual(recovered_after_s(timeline(28), OFFERED, 10), 18)

    def test_a_longer_run_is_stricter(self):
        goodput = timeline(13)
        goodput[15] = 0
        self.assertEqual(recovered_after_s(goodput, OFFERED, 10, Judgement(0.9, 2)), 3)
        self.assertEqual(recovered_after_s(goodput, OFFERED, 10, Judgement(0.9, 3)), 6)
        self.assertEqual(recovered_after_s(goodput, OFFERED, 10, Judgement(0.9, 1)), 3)


class Bounds(unittest.TestCase):
    def test_theorem2_divides_capacity_by_the_worst_amplification(self):
        self.assertEqual(theorem2_bound_rps(50, 4), 12.5)  # legacy: 4 attempts

    def test_bronson_one_retry_halves_capacity(self):
        self.assertEqual(bronson_bound_rps(300, 1), 150)  # the paper's database


if __name__ == "__main__":
    unittest.main()
