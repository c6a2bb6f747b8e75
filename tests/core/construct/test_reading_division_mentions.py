"""A division the solution writes as its whole computation ("his math grade is 400/5 =
<<400/5=80>>80") divides two numbers: it states no fraction 80, so the question's "80 or
higher" is no number the solution uses (GSM8K 387: both the rules' reading of the text and
the audit's reading of the annotations). A fraction the question writes stays a fraction
("200 x 2/5 =", 96), and a numerator an earlier step computed is that step's ("<<12-4=8>>",
"<<8/2=4>>", 491)."""

from __future__ import annotations

import json
from fractions import Fraction

from qcstation.core.construct.check.selfcheck import _solution_numbers, audit_artifact
from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
from qcstation.core.construct.make.notation import render_notation
from qcstation.core.construct.make.rules import rule_for_seed


def _audits(seed: dict) -> list:
    rule = rule_for_seed(seed)
    content = {"smtlib": rule.smtlib, "givens": rule.givens, "links": rule.links}
    notation = render_notation(rule.smtlib).text
    fields = keyinfo_from_annotations(seed["question"], seed["solution"], rule.steps, givens=rule.givens)
    return (audit_artifact("reasoning", json.dumps(content), seed)
            + audit_artifact("arithmetic", json.dumps({"notation": notation, "smtlib": rule.smtlib}), seed)
            + audit_artifact("understanding", json.dumps(fields), seed))


def test_387_the_average_is_no_fraction_of_the_question(gsm8k: dict) -> None:
    seed = gsm8k["387"]
    rule = rule_for_seed(seed)
    assert rule.value == 80
    assert "(assert (= s2_math_grade (/ s1_math_tests g6_test)))" in rule.smtlib
    assert not any(g["value"] == "80" for g in rule.givens)  # "80 or higher" is not used
    assert _audits(seed) == []


def test_a_question_fraction_and_an_earlier_result_are_read_as_before(gsm8k: dict) -> None:
    assert rule_for_seed(gsm8k["96"]).value == 40     # "200 x 2/5 =": the question's 2/5
    assert _audits(gsm8k["491"]) == []               # "<<8/2=4>>": 8 is "<<12-4=8>>"'s


def test_the_audits_reading_of_a_division() -> None:
    solution = "He needs $12 - $4 = $<<12-4=8>>8.\nIt takes $8 / $2 = <<8/2=4>>4 days, 400/5 = <<400/5=80>>80."
    assert _solution_numbers(solution, "") == {Fraction(12), Fraction(4), Fraction(2), Fraction(400), Fraction(5)}
    # the question writes the fraction: it is one
    assert Fraction(80) in _solution_numbers(solution, "It is 400/5 of the rest.")
