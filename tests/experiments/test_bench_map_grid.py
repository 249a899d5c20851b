#!/usr/bin/env python3
"""bench/map_grid.py: the metastability map's grid and the checks its document states
(Huang et al.'s Fig. 5 shape, Theorem 2, Bronson's capacity ÷ 2), on outcomes written by hand."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from map_grid import Fig5, Point, check_bronson, check_fig5, check_theorem2, grid, stability_edge  # noqa: E402
from overload_policies import BY_KEY, LEGACY, ONE_RETRY  # noqa: E402

CAPACITY = 50
CRITICAL = Point("legacy", 0.8, 8, 0.6)
FIG5 = Fig5(CRITICAL, shallower_depth=0.4, shorter_length_s=2, lighter_load=0.4)


def fig5_outcomes(changed=None):
    """The shape as it should be (the critical trigger never recovers, the others after 3 s),
    with `changed` (row label → outcome) instead."""
    outcomes = {point: 3 for _, point in FIG5.rows()}
    outcomes[CRITICAL] = None
    rows = dict(FIG5.rows())
    for label, value in (changed or {}).items():
        outcomes[rows[label]] = value
    return outcomes


class Grid(unittest.TestCase):
    def test_every_combination_once(self):
        points = grid(["legacy", "resilient"], [0.4, 0.8], [2, 8], [0.2, 0.6])
        self.assertEqual(len(points), 16)
        self.assertEqual(len(set(points)), 16)
        self.assertEqual(points[0], Point("legacy", 0.4, 2, 0.2))
        self.assertEqual(points[-1], Point("resilient", 0.8, 8, 0.6))


class Fig5Shape(unittest.TestCase):
    def test_the_four_rows_change_one_thing_each(self):
        rows = dict(FIG5.rows())
        self.assertEqual(rows["a shallower trigger"], Point("legacy", 0.4, 8, 0.6))
        self.assertEqual(rows["the critical trigger"], CRITICAL)
        self.assertEqual(rows["a shorter trigger"], Point("legacy", 0.8, 2, 0.6))
        self.assertEqual(rows["less load"], Point("legacy", 0.8, 8, 0.4))

    def test_holds_when_only_the_critical_trigger_never_recovers(self):
        self.assertEqual(check_fig5(FIG5, fig5_outcomes()), [])

    def test_fails_when_the_critical_trigger_recovers(self):
        failures = check_fig5(FIG5, fig5_outcomes({"the critical trigger": 5}))
        self.assertEqual(len(failures), 1)
        self.assertIn("the critical trigger", failures[0])
        self.assertIn("recovered after 5 s", failures[0])

    def test_fails_for_each_other_row_that_never_recovers(self):
        failures = check_fig5(FIG5, fig5_outcomes({"less load": None}))
        self.assertEqual(failures, ["Fig. 5: less load (legacy, −80% for 8 s at 40% of capacity) never recovered; it should"])

    def test_fails_for_a_row_not_run(self):
        outcomes = fig5_outcomes()
        del outcomes[Point("legacy", 0.8, 2, 0.6)]
        self.assertIn("was not run", check_fig5(FIG5, outcomes)[0])


class Theorem2(unittest.TestCase):
    def test_only_points_below_each_policys_own_bound_must_recover(self):
        # legacy's bound: 50 / 4 = 12.5 rps (25 %); one retry's: 25 rps (50 %).
        outcomes = {Point("legacy", 0.8, 8, 0.2): 4, Point("legacy", 0.8, 8, 0.3): None,
                    Point("resilient, no breaker", 0.8, 8, 0.4): 1,
                    Point("resilient, no breaker", 0.8, 8, 0.6): None}
        self.assertEqual(check_theorem2(outcomes, BY_KEY, CAPACITY), ([], 2))

    def test_a_point_below_the_bound_that_never_recovers_fails(self):
        outcomes = {Point("legacy", 0.8, 8, 0.2): None, Point("resilient, no breaker", 0.8, 8, 0.4): None}
        failures, below = check_theorem2(outcomes, BY_KEY, CAPACITY)
        self.assertEqual(below, 2)
        self.assertEqual(len(failures), 2)
        self.assertIn("below legacy's bound (12.5 rps)", failures[0])


class Bronson(unittest.TestCase):
    @staticmethod
    def runs(never_from):
        """One retry's outcomes over four loads and two triggers: the deep one never recovers
        from load `never_from` on."""
        out = {}
        for load in (0.2, 0.4, 0.6, 0.8):
            out[Point(ONE_RETRY.key, 0.4, 2, load)] = 1
            out[Point(ONE_RETRY.key, 0.8, 8, load)] = None if load >= never_from else 2
        return out

    def test_the_edge_is_the_last_load_before_some_trigger_never_recovers(self):
        self.assertEqual(stability_edge(self.runs(0.6), ONE_RETRY.key), (0.4, 0.6))
        self.assertEqual(stability_edge(self.runs(9), ONE_RETRY.key), (0.8, None))

    def test_holds_when_stability_ends_between_40_and_60_percent(self):
        self.assertEqual(check_bronson(self.runs(0.6), ONE_RETRY, CAPACITY), [])

    def test_fails_when_it_ends_well_below_half(self):
        failures = check_bronson(self.runs(0.2), ONE_RETRY, CAPACITY)
        self.assertEqual(len(failures), 1)
        self.assertIn("never recovered at 20% of capacity", failures[0])

    def test_fails_when_it_never_ends(self):
        failures = check_bronson(self.runs(9), ONE_RETRY, CAPACITY)
        self.assertEqual(len(failures), 1)
        self.assertIn("recovered from every trigger up to 80%", failures[0])

    def test_uses_the_policys_own_retries(self):
        # legacy retries 3 times: its edge belongs near 25 %, so 60 % is well past it.
        runs = {Point("legacy", 0.8, 8, l): (None if l >= 0.6 else 1) for l in (0.2, 0.4, 0.6)}
        self.assertIn("well past capacity ÷ 4", check_bronson(runs, LEGACY, CAPACITY)[0])


if __name__ == "__main__":
    unittest.main()
