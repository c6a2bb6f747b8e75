"""A fraction the question states twice, once as "a/b" and once as a percent ("2/5 of the apples",
"40% of the red apples"): a step that writes "2/5*200" is the place written "2/5", the form deciding
(the binder bound it to the percent by order, and the check refused it). A line that names the
percent ("40% is 2/5 of them") or writes a decimal (".4") is left as before. The seeds are written
for these tests."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.check.written_forms import vouched_by_written_form
from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.reading.words import question_occurrences
from tests.core.construct.seeds import gsm8k_seed as _seed

QUESTION = ("2/5 of the apples in a crate are red. If Tom eats 40% of the red apples, how many red apples are "
            "left if there were 200 apples in the crate?")


def _solution(first: str) -> str:
    return (f"{first} = <<2/5*200=80>>80\n"
            "Tom eats 40/100*80 = <<40/100*80=32>>32 apples.\n"
            "The red apples left are 80-32 = <<80-32=48>>48\n#### 48")


def test_a_fraction_written_as_the_question_writes_it_is_that_place(z3pool) -> None:
    seed = _seed(QUESTION, _solution("The red apples are 2/5*200"), "48")
    rule = rule_for_seed(seed)
    spans = {g["name"]: QUESTION[g["span"][0]:g["span"][1]] for g in rule.givens if g.get("span")}
    s1 = next(ln for ln in rule.smtlib.splitlines() if ln.startswith("(assert (= s1"))
    fraction = next(n for n, text in spans.items() if text == "2/5")
    assert fraction in s1 and not any(n.endswith("_pct") and n in s1 for n in spans), (spans, s1)
    assert z3pool.verify(rule.smtlib, seed["answer_text"]).ok


def test_a_line_naming_the_percent_is_not_read_by_the_form() -> None:
    # "40% of them, 2/5*200": the line writes the fraction's form and names the percent
    with pytest.raises(RuleError):
        rule_for_seed(_seed(QUESTION, _solution("The red apples, not the 40% Tom eats, are 2/5*200"), "48"))


def test_the_check_vouches_only_for_the_form_the_line_writes() -> None:
    cands = [o for o in question_occurrences(QUESTION) if o.value == Fraction(2, 5)]
    line = "The red apples are 2/5*200 = <<2/5*200=80>>80"
    assert vouched_by_written_form("g1_apples", line, Fraction(2, 5), cands)
    assert not vouched_by_written_form("g1_pct", line, Fraction(2, 5), cands)  # the percent is not written so
    assert not vouched_by_written_form("g1_apples", "The red apples are .4*200 = <<.4*200=80>>80",
                                       Fraction(2, 5), cands)  # a decimal is either's form
