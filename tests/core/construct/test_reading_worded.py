"""Computations a solution writes in words ("200 minus 174 equals 26") are steps as
``expression = number`` is, where their arithmetic checks out and no computation read
otherwise has the answer; one an annotation carries ("83 plus 91 equals <<83+91=174>>174") is
the annotation's."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from qcstation.core.construct.check.selfcheck import audit_artifact
from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.worded import worded_computations


def test_483_the_last_step_written_in_words(gsm8k: dict, z3pool) -> None:
    # "They need to raise $26 more because 200 minus 174 equals 26."
    seed = gsm8k["483"]
    rule = rule_for_seed(seed)
    asserts = {line for line in rule.smtlib.splitlines() if line.startswith("(assert")}
    assert "(assert (= s2_raise_because (- g3 s1_plus_equals)))" in asserts
    spans = {g["name"]: seed["question"][g["span"][0]:g["span"][1] + 9] for g in rule.givens}
    assert spans == {"g1": "83 and Tash", "g2": "91. How muc", "g3": "200 for the "}
    assert z3pool.verify(rule.smtlib, seed["answer_text"]).ok
    content = {"smtlib": rule.smtlib, "givens": rule.givens, "links": rule.links}
    assert audit_artifact("reasoning", json.dumps(content), seed) == []


def test_worded_computations_read_only_what_checks_out() -> None:
    found = worded_computations("so 12 plus 14 plus 4 equals 30, and 8 times 1/2 equals 4; "
                                "3.65 divided by .05 equals 73 and 2 minus 1 equals 5.")
    assert [(raw, text) for _, _, raw, text, *_ in found] == [
        ("12 plus 14 plus 4 equals 30", "12 + 14 + 4"), ("8 times 1/2 equals 4", "8 * 1/2"),
        ("3.65 divided by .05 equals 73", "3.65 / .05")]


def test_words_are_read_only_where_no_step_has_the_answer(gsm8k: dict) -> None:
    # 152 writes "1 times 1 equals 1" beside annotations that reach the gold: not read (the rules
    # refuse 152 for the unicycle's 1 that "10 plus 9 plus 1" writes, tied to no words, not for it)
    with pytest.raises(RuleError, match="writes the number 1") as exc:
        rule_for_seed(gsm8k["152"])
    assert "(* 1 1)" not in str(exc.value)
    from qcstation.core.construct.make.rules import smt_from_calculator_annotations

    seed = gsm8k["152"]
    with pytest.raises(RuleError, match="step 3 writes the number 1"):
        smt_from_calculator_annotations(seed["solution"], Fraction(seed["answer_text"]), question=seed["question"])


def test_a_false_worded_computation_is_no_step() -> None:
    seed = {"question": "Ann had 200 dollars and spent 174 dollars. How many dollars are left?",
            "solution": "She has 26 left because 200 minus 174 equals 36.", "answer_text": "26", "source": "gsm8k"}
    with pytest.raises(RuleError, match="no computation written"):
        rule_for_seed(seed)
