"""Bare 1s whose words say what they are (issue 26.1, lane covB): the whole of "1 - (2/3) = 1/3"
written on a line before the step that uses its result. Never a 1 the words do not tie."""

from __future__ import annotations

from qcstation.core.construct.make.rules import rule_for_seed


def _seed(question: str, solution: str, answer: str) -> dict[str, str]:
    return {"question": question, "solution": solution, "answer_text": answer, "source": "gsm8k"}


def test_the_whole_less_a_fraction_written_before_its_use() -> None:
    q = "A tank holds 60 liters. 3/4 of it is full. How many liters are empty?"
    made = rule_for_seed(_seed(q, "1/4 of the tank is empty because 1 - (3/4) = 1/4\n"
                                  "So 60 x (1/4) = <<60*(1/4)=15>>15 liters are empty.\n#### 15", "15"))
    assert made.value == 15
    # the 1 is the whole tank the question's 3/4 is of; the 4 no given of its own
    assert [st.sexpr for st in made.steps] == ["(- 1 g1_full)", "(* g2_liters s1_empty_because)"]
    assert {g["value"] for g in made.givens} == {"3/4", "60"}
