"""A size the question writes ("ten 2 x 4 x 10 boards") that the solution names a thing by, as the
plural of a name ("She bought the 2 x 4s"), is that thing's name: its numbers are no places of
quantities, for the rules (:mod:`qcstation.core.construct.make.rules.calculator`) and the check
(:func:`qcstation.core.construct.check.bindings.binding_problems`) alike
(:func:`qcstation.core.reading.words.size_names`; issue 26.1, lane cover38)."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.reading.words import blank_size_names, size_names


def test_a_size_the_solution_names_boards_by_is_no_place(gsm8k: dict) -> None:
    # 116 "She has leftover ten 2 x 4 x 10 boards that cost her $10 each. She also has five 4 x 4 x
    # 10 boards she bought for $16 each." / "She bought the 2 x 4s for $100 because 10 x 10 = 100":
    # the ten boards at $10, not a board's length of 10 (was refused: the 2 and 4 of "the 2 x 4s"
    # read as numbers it computes with, and the 10s tied by order)
    result = rule_for_seed(gsm8k["116"])
    assert result.value == 90
    got = [ln for ln in result.smtlib.splitlines() if ln.startswith("(assert")]
    for line in ("(assert (= s1_because (* g1_boards g2)))", "(assert (= s2_because (* g3_boards g4)))",
                 "(assert (= s4_same_because (* s3_lumber_because (+ 1 g5_pct))))",
                 "(assert (= s5_profit_because (- s4_same_because s3_lumber_because)))"):
        assert line in got
    q = gsm8k["116"]["question"]
    places = {g["name"]: q[g["span"][0]:g["span"][0] + 12] for g in result.givens}
    assert places == {"g1_boards": "ten 2 x 4 x ", "g2": "10 each. She", "g3_boards": "five 4 x 4 x",
                      "g4": "16 each. If ", "g5_pct": "50% in the l"}


def test_a_size_the_solution_does_not_name_a_thing_by_stays_places(gsm8k: dict) -> None:
    # the trap: "the 2 x 4 boards" names no thing by the size; the 10 of "2 x 4 x 10" stays a place
    # of 10 beside the ten boards and their $10, which no words tell apart: refused
    seed = dict(gsm8k["116"])
    seed["solution"] = seed["solution"].replace("the 2 x 4s", "the 2 x 4 boards").replace("the 4 x 4s", "the 4 x 4 boards")
    assert "4s" not in seed["solution"]
    with pytest.raises(RuleError):
        rule_for_seed(seed)


def test_a_size_it_computes_with_is_no_name() -> None:
    q = "A 10 x 12 room is carpeted with 2 x 4s left over from ten 2 x 4 x 8 boards."
    assert size_names(q, "The room is 10 x 12 = 120 square feet.") == ([], [])
    sol = "She cut the 2 x 4s into 3 pieces."
    q_spans, sol_spans = size_names(q, sol)
    assert [q[a:b] for a, b in q_spans] == ["2 x 4", "2 x 4 x 8"]
    assert [sol[a:b] for a, b in sol_spans] == ["2 x 4s"]
    assert len(blank_size_names(q, sol)) == len(q) and "10 x 12" in blank_size_names(q, sol)
