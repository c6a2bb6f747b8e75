"""An unknown never keeps a percent the question contradicts: a solution's slip ("One cheesecake
was 30% cheaper than the apple pie, which means, it was 25/100 * 12 = $3 cheaper" where the
question says "25% cheaper", GSM8K train, read in a fresh held-out reading) was shipped as key
information that tells the annotator the wrong percent. Now the draft is refused with the reason;
the same line with the question's own percent is made as before, and a percent the solution says
with words of its own (GSM8K test 1026: "150% of" beside the question's "50% more") stays."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.keyinfo import KeyInfoError
from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
from qcstation.core.construct.make.rules import rule_for_seed

LAMP = ("Tom bought a lamp and a rug. The rug cost $80, and the lamp was 25% cheaper than the rug. "
        "How much did Tom pay for both?")


def _keyinfo(question: str, solution: str, answer: str) -> dict:
    seed = {"question": question, "solution": solution, "answer_text": answer, "source": "gsm8k"}
    rule = rule_for_seed(seed)
    return keyinfo_from_annotations(question, solution, rule.steps, givens=rule.givens)


def _solution(percent: str) -> str:
    return (f"The lamp was {percent} cheaper than the rug, so it was 25/100 * 80 = $<<25/100*80=20>>20 cheaper.\n"
            "The lamp cost 80 - 20 = $<<80-20=60>>60.\n"
            "Both cost 80 + 60 = $<<80+60=140>>140.")


def test_a_percent_the_question_does_not_state_is_refused() -> None:
    with pytest.raises(KeyInfoError, match=r"Q1 would read '35% cheaper than', where the question says 25% cheaper than"):
        _keyinfo(LAMP, _solution("35%"), "140")


def test_the_question_s_own_percent_is_kept() -> None:
    fields = _keyinfo(LAMP, _solution("25%"), "140")
    assert fields["unknown_quantities"][0] == "Q1: The lamp was 25% cheaper than the rug, so it was ? cheaper."
    assert fields["relationships_and_constraints"] == ["Q1 = 25 ÷ 100 × 80", "Q2 = 80 − Q1", "Q3 = 80 + Q2"]


def test_a_percent_said_with_other_words_stays() -> None:
    q = ("A dwarf mines 12 pounds of ore a day by hand. He mines twice as much with an iron pickaxe and 50% more "
         "with a steel pickaxe than with an iron pickaxe. How many pounds a day does he mine with a steel pickaxe?")
    sol = ("With an iron pickaxe he mines 12 * 2 = <<12*2=24>>24 pounds a day.\n"
           "With a steel pickaxe he mines 150% of that, 24 * 1.5 = <<24*1.5=36>>36 pounds a day.")
    fields = _keyinfo(q, sol, "36")
    assert "150% of that" in fields["unknown_quantities"][1]
