#!/usr/bin/env python3
"""bench/goodput_curve.py: a goodput curve's knee, its collapse, and the ≥ 2× comparison of
carrier disciplines, on curves written by hand."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from goodput_curve import Knee, beats, describe_knee, goodput_at, knee  # noqa: E402

# A carrier of 50 rps: goodput tracks the load up to it, then either holds or collapses.
HOLDS = [(25, 25), (50, 48), (75, 49), (100, 47), (150, 46)]
COLLAPSES = [(100, 3), (25, 25), (50, 47), (75, 30), (150, 0.5)]


class KneeAndCollapse(unittest.TestCase):
    def test_a_curve_that_saturates_holds_past_its_knee(self):
        self.assertEqual(knee(HOLDS), Knee(50, 49, 46, False, 150))

    def test_a_curve_that_falls_collapses_whatever_the_order_of_its_runs(self):
        self.assertEqual(knee(COLLAPSES), Knee(50, 47, 0.5, True, 150))

    def test_no_knee_when_goodput_never_tracks_the_load(self):
        k = knee([(25, 10), (50, 5)])
        self.assertIsNone(k.knee_rps)
        self.assertIn("no knee", describe_knee(k, 50))

    def test_a_curve_that_tracks_every_load_run_has_no_knee(self):
        self.assertEqual(describe_knee(knee([(25, 25), (150, 144)]), 50),
                         "no knee: tracks the offered load up to the highest rate run (150 rps, 144.0 rps of goodput)")

    def test_the_description_gives_the_knee_in_capacities(self):
        self.assertEqual(describe_knee(knee(COLLAPSES), 50),
                         "knee at 50 rps (1× capacity); **collapses** past it: 0.5 rps at the highest load, peak 47.0")


class Disciplines(unittest.TestCase):
    CURVES = {("legacy", "fifo"): [(100, 4), (50, 48)], ("legacy", "lifo"): [(100, 9), (50, 48)],
              ("legacy", "codel"): [(100, 40), (50, 47)],
              ("resilient", "fifo"): [(100, 30)], ("resilient", "lifo"): [(100, 50)],
              ("resilient", "codel"): [(100, 45)]}

    def test_the_best_of_codel_and_lifo_against_fifo(self):
        self.assertEqual(beats(self.CURVES, "legacy", 100), (True, "codel", 40, 4))

    def test_less_than_twice_does_not_hold(self):
        self.assertEqual(beats(self.CURVES, "resilient", 100), (False, "lifo", 50, 30))

    def test_nothing_against_nothing_does_not_hold(self):
        curves = {("p", d): [(100, 0)] for d in ("fifo", "lifo", "codel")}
        self.assertFalse(beats(curves, "p", 100)[0])

    def test_a_load_that_was_not_run_is_an_error(self):
        with self.assertRaises(ValueError):
            goodput_at(HOLDS, 60)


if __name__ == "__main__":
    unittest.main()
