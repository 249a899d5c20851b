#!/usr/bin/env python3
"""bench/goodput_doc.py and bench/map_doc.py: the documents' text from runs written by hand —
the command and the machine stated, every run in a table, the knees, the checks and the four
rows of Huang et al.'s Fig. 5 as the runs say."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from goodput_doc import Run, Sweep, goodput_doc  # noqa: E402
from map_doc import MapReport, map_doc  # noqa: E402
from map_grid import Fig5, Point  # noqa: E402
from overload_policies import LEGACY, ONE_RETRY  # noqa: E402

MACHINE = "2 cores (AMD EPYC), Debian 12.11, Linux 6.1.0, load average 1.00 at the start"


def run(policy, discipline, rate, goodput, not_sent=0, live=None):
    return Run(policy, discipline, rate, rate, goodput, goodput if live is None else live, not_sent, 1.5)


SWEEP = Sweep(
    command="python3 bench/goodput.py", machine=MACHINE, took_s=600, capacity_rps=50, setup="SETUP",
    disciplines=("fifo", "lifo", "codel"), policies=(LEGACY,),
    runs=(run("legacy", "fifo", 50, 48), run("legacy", "fifo", 100, 4, not_sent=7),
          run("legacy", "lifo", 50, 47), run("legacy", "lifo", 100, 30),
          run("legacy", "codel", 50, 46), run("legacy", "codel", 100, 80, live=44)),
    image="goodput.png", check_rate_rps=100)


class GoodputDoc(unittest.TestCase):
    text = goodput_doc(SWEEP, "DISCUSSION")

    def test_states_the_command_the_machine_and_the_time(self):
        self.assertIn("`python3 bench/goodput.py` on " + MACHINE, self.text)
        self.assertIn("took\n10 minutes", self.text)

    def test_links_the_image_and_keeps_the_setup_and_discussion(self):
        self.assertIn("](goodput.png)", self.text)
        self.assertIn("SETUP", self.text)
        self.assertIn("DISCUSSION", self.text)

    def test_each_curves_knee_and_collapse(self):
        self.assertIn("| legacy | fifo | knee at 50 rps (1× capacity); **collapses** past it: 4.0 rps", self.text)
        self.assertIn("| legacy | codel | knee at 50 rps (1× capacity); holds past it: 80.0 rps at the highest load, "
                      "peak 80.0 | knee at 50 rps (1× capacity); holds past it: 44.0 rps", self.text)

    def test_the_check_at_twice_capacity_is_on_live_quotes(self):
        self.assertIn("| legacy | codel: 44.0 rps | 4.0 rps | 11.0× | **yes** |", self.text)

    def test_every_run_with_its_share_and_what_was_not_sent(self):
        self.assertIn("| 100 rps (2×) | 4.0 rps (4%, 7 not sent) | 4.0 | 1.50 | 30.0 rps (30%) | 30.0 | 1.50 | "
                      "80.0 rps (80%) | 44.0 | 1.50 |",
                      self.text)


CRITICAL = Point("legacy", 0.8, 8, 0.6)
FIG5 = Fig5(CRITICAL, shallower_depth=0.4, shorter_length_s=2, lighter_load=0.4)
OUTCOMES = {CRITICAL: None, Point("legacy", 0.4, 8, 0.6): 0, Point("legacy", 0.8, 2, 0.6): 3,
            Point("legacy", 0.8, 8, 0.4): 5, Point("legacy", 0.8, 8, 0.2): 2,
            Point(ONE_RETRY.key, 0.8, 8, 0.4): 1, Point(ONE_RETRY.key, 0.8, 8, 0.6): None}


def report(failures=()):
    return MapReport(command="python3 bench/metastability_map.py", machine=MACHINE, took_s=1800, capacity_rps=50,
                     setup="SETUP", judgement="JUDGEMENT", window_s=20, policies=(LEGACY, ONE_RETRY),
                     outcomes=OUTCOMES, fig5=FIG5, bronson_policy=ONE_RETRY, failures=tuple(failures),
                     image="metastability-map.png")


class MapDoc(unittest.TestCase):
    text = map_doc(report(), "DISCUSSION")

    def test_states_the_command_the_machine_and_the_time(self):
        self.assertIn("`python3 bench/metastability_map.py` on " + MACHINE, self.text)
        self.assertIn("took\n30 minutes", self.text)
        self.assertIn("](metastability-map.png)", self.text)

    def test_the_four_rows_in_the_figures_order_beside_the_papers(self):
        rows = [line for line in self.text.splitlines() if line.startswith("| a shallower")
                or line.startswith("| the critical") or line.startswith("| a shorter") or line.startswith("| less load")]
        self.assertEqual(rows, [
            "| a shallower trigger | −40% for 8 s | 60% of capacity (30 rps) | 0 s | 10 s at −78 %: recovers |",
            "| the critical trigger | −80% for 8 s | 60% of capacity (30 rps) | **never** (in 20 s) | "
            "10 s at −80 %: never (load 3×, goodput −90 %) |",
            "| a shorter trigger | −80% for 2 s | 60% of capacity (30 rps) | 3 s | 9 s at −80 %: recovers |",
            "| less load | −80% for 8 s | 40% of capacity (20 rps) | 5 s | 10 s at −80 %, 30 % less load: recovers |"])

    def test_the_four_rows_again_with_poisson_arrivals(self):
        poisson = {"the critical trigger": [None, None, 4], "less load": [0, None, 1]}
        text = map_doc(MapReport(**{**report().__dict__, "poisson": poisson}), "")
        self.assertIn("| Huang et al., Fig. 5 | with Poisson arrivals, one run per seed |", text)
        self.assertIn("30 % less load: recovers | 0 s, never, 1 s |", text)
        self.assertIn("goodput −90 %) | never, never, 4 s |", text)
        self.assertIn("9 s at −80 %: recovers |  |", text)

    def test_the_bounds_per_policy(self):
        self.assertIn("| legacy | 4 | 12.5 rps (25%) | 1 | 1 of 1 | 40% | 60% |", self.text)
        self.assertIn("| resilient, no breaker | 2 | 25.0 rps (50%) | 1 | 1 of 1 | 40% | 60% |", self.text)
        self.assertIn("capacity ÷ 2 =\n  25 rps", self.text)

    def test_every_run_in_its_policys_map(self):
        self.assertIn("| offered load | −40%, 8 s | −80%, 2 s | −80%, 8 s |", self.text)
        self.assertIn("| 60% (30 rps) | 0 s | 3 s | never |", self.text)
        self.assertIn("| 20% (10 rps) |  |  | 2 s |", self.text)

    def test_says_which_checks_failed(self):
        self.assertIn("Every check held", self.text)
        failed = map_doc(report(["Fig. 5: less load never recovered"]), "")
        self.assertIn("- Fig. 5: less load never recovered", failed)
        self.assertNotIn("Every check held", failed)


if __name__ == "__main__":
    unittest.main()
