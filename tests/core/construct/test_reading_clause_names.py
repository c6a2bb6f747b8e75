"""Which of "twice" and "half" a division by 2 undoes, by the people its line names (issue 26.1,
lane covB): "Nadia is twice as tall as Omar. ... Tess is half as tall as Ruth" / "Omar is 180 / 2"
(the "twice", undone) and "Tess is 150 / 2" (the "half"); never the role alone (both divide)."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from tests.core.construct.seeds import gsm8k_seed as _seed


_Q = ("Nadia is twice as tall as Omar. Ruth is 60 cm taller than Omar. Tess is half as tall as Ruth. "
      "If Nadia is 180 cm tall, how tall is Tess?")


def test_a_division_by_the_people_the_line_names() -> None:
    made = rule_for_seed(_seed(_Q, "Omar is 180 / 2 = <<180/2=90>>90 cm tall.\n"
                                   "Ruth is 90 + 60 = <<90+60=150>>150 cm tall.\n"
                                   "Tess is 150 / 2 = <<150/2=75>>75 cm tall.\n#### 75", "75"))
    assert made.value == 75
    terms = [st.sexpr for st in made.steps]
    assert terms[0].startswith("(/ g") and terms[0].endswith(" w_twice)")
    assert terms[2].endswith(" w_half_parts)")


def test_a_line_that_names_no_one_or_both_stays_refused() -> None:
    with pytest.raises(RuleError):
        rule_for_seed(_seed(_Q, "That is 180 / 2 = <<180/2=90>>90 cm.\n"
                                "Then 90 + 60 = <<90+60=150>>150 cm.\n"
                                "So 150 / 2 = <<150/2=75>>75 cm.\n#### 75", "75"))
    with pytest.raises(RuleError):  # the first line names Nadia's sentence and Ruth's
        rule_for_seed(_seed(_Q, "Omar, shorter than Nadia, is 180 / 2 = <<180/2=90>>90 cm and Ruth is not.\n"
                                "Ruth is 90 + 60 = <<90+60=150>>150 cm tall.\n"
                                "Tess is 150 / 2 = <<150/2=75>>75 cm tall.\n#### 75", "75"))


def test_a_word_of_the_other_sentence_keeps_the_role() -> None:
    # the line names Mia (the sentence of "half") and her uncle (the sentence of "twice"): the
    # product is "twice", by its role
    q = ("A bike costs $100. Mia has only half of the money she needs. Her aunt gives her $12, and her uncle "
         "twice as much as her aunt. How much more does Mia need?")
    made = rule_for_seed(_seed(q, "Mia has 100 / 2 = $<<100/2=50>>50.\n"
                                  "Mia's uncle gives her 12 * 2 = $<<12*2=24>>24.\n"
                                  "She needs 100 - 50 - 24 - 12 = $<<100-50-24-12=14>>14 more.\n#### 14", "14"))
    terms = [st.sexpr for st in made.steps]
    assert terms[0].endswith(" w_half_parts)") and terms[1].endswith(" w_twice)")
