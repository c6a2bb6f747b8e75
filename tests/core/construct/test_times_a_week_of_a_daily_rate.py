""""N times a week" right after a rate per day ("40 minutes/day four times a week") counts days: a
line that writes it "4 days/week" names it as the question does, and the role check no longer reads
a count of occasions against a time. A "times a week" with no daily rate before it keeps the check.
The seeds are written for these tests."""

from __future__ import annotations

from qcstation.core.construct.check.rolecheck import _times_a_week_of_a_daily_rate
from qcstation.core.construct.make.rules import rule_for_seed
from tests.core.construct.seeds import gsm8k_seed as _seed


def test_times_a_week_after_a_daily_rate_are_days(z3pool) -> None:
    question = ("Nora spends 40 minutes/day four times a week swimming and 25 minutes/day 2 days a week "
                "running. How much time does she spend training each week?")
    solution = ("Swimming: 40 minutes/day * 4 days/week = <<40*4=160>>160 minutes/week\n"
                "Running: 25 minutes/day * 2 days/week = <<25*2=50>>50 minutes/week\n"
                "Add those two times: 160 minutes/week + 50 minutes/week = <<160+50=210>>210 minutes/week\n#### 210")
    seed = _seed(question, solution, "210")
    rule = rule_for_seed(seed)
    assert any(question[g["span"][0]:g["span"][1]] == "four" for g in rule.givens if g.get("span"))
    assert z3pool.verify(rule.smtlib, seed["answer_text"]).ok


def test_only_times_a_week_right_after_a_daily_rate() -> None:
    q = "Nora spends 40 minutes/day four times a week swimming. She goes to the pool three times a week."
    four, three = q.index("four"), q.index("three")
    assert _times_a_week_of_a_daily_rate(q, four, four + 4)
    assert not _times_a_week_of_a_daily_rate(q, three, three + 5)
