"""Each written occurrence of a word given is its own given, tied to its span, and each step
uses the occurrence its words name (issue 26, point 1;
:mod:`qcstation.core.construct.make.rules.word_places`): one name for two "half"s tied every use
to the first."""

from __future__ import annotations

import re
from fractions import Fraction as F

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.word_places import split_word_givens
from qcstation.core.reading.expr import BinOp, Expr, Name, Num


def _word_uses(seed: dict) -> dict[str, str]:
    """Each step that uses a word given -> the question's words around that given's span."""
    rule = rule_for_seed(seed)
    q = seed["question"]
    at = {str(g["name"]): q[g["span"][0]:g["span"][0] + 14] for g in rule.givens if str(g["name"]).startswith("w_")}
    out = {}
    for st in rule.steps:
        names = [n for n in re.findall(r"\bw_\w+", st.sexpr) if n in at]
        if names:
            out[st.name.split("_")[0]] = at[names[0]]
    return out


def test_each_step_uses_the_occurrence_its_sentence_names(gsm8k: dict) -> None:
    # 1093 "A Tyrannosaurus rex ate half ... velociraptors scavenged half of what was left": the
    # solution works backwards, the velociraptors' half first
    assert _word_uses(gsm8k["1093"]) == {"s1": "half of what w", "s2": "half of a smal"}
    # 234 "One-third of them jump in and swim ... Another one-third go inside the cave"
    assert _word_uses(gsm8k["234"]) == {"s1": "One-third of t", "s2": "one-third go i"}


def test_the_other_half_is_the_second_occurrence(gsm8k: dict) -> None:
    # 1250 "4 small candles each for half the rooms and 5 medium candles each for the other half"
    uses = _word_uses(gsm8k["1250"])
    assert uses["s4"] == "half the rooms"
    assert uses["s5"] == "half of the ro"


def test_one_sentence_two_clauses(gsm8k: dict) -> None:
    # 684 "mowing half in turtle mode and half in rabbit mode": "60/2=30 minutes in turtle mode",
    # "40/2=20 minutes in rabbit mode"
    assert _word_uses(gsm8k["684"]) == {"s1": "half in turtle", "s2": "half in rabbit"}


def test_names_in_one_sentence_each_tell_their_occurrence(gsm8k: dict) -> None:
    # 1125 "Seth gave half of his stickers to Luis. Luis used half of the stickers and gave the
    # rest to Kris": "Luis gave half of his stickers to Kris ... 16 x 2" is Luis's half
    assert _word_uses(gsm8k["1125"]) == {"s2": "half of the st", "s3": "half of his st"}


def test_no_words_no_split() -> None:
    q = "Ann ate half of the cake. Bob ate half of the pie. How much is left?"
    exprs: list[Expr] = [BinOp("/", Num(F(10), "10"), Name("w_half_parts")),
                         BinOp("/", Num(F(8), "8"), Name("w_half_parts"))]
    order: list[tuple[str, F, Expr]] = [("w_half_parts", F(2), Num(F(2)))]
    with pytest.raises(RuleError, match="no words tell which step uses which"):
        split_word_givens(exprs, q, order, ["10/2 = 5", "8/2 = 4"], {"w_half_parts": "half"}, {})
    out, names = split_word_givens(exprs, q, order, ["Ann ate 10/2 = 5", "8/2 = 4"], {"w_half_parts": "half"}, {})
    assert [n for n, _, _ in names] == ["w_half_parts", "w_half_at2_parts"]
    assert out[1] == BinOp("/", Num(F(8), "8"), Name("w_half_at2_parts"))


def test_a_co_operand_in_one_place_s_clause_places_the_value(gsm8k: dict) -> None:
    # 1075 "Teddy finished half of a 500 piece puzzle, and then ... another 500 piece puzzle":
    # "1/2 * 500" is the first puzzle (its clause states the half), "250 + 500" the other one
    rule = rule_for_seed(gsm8k["1075"])
    assert rule.value == 750
    q = gsm8k["1075"]["question"]
    spans = {str(g["name"]): g["span"][0] for g in rule.givens}
    s1 = next(st for st in rule.steps if st.name.startswith("s1"))
    g = re.findall(r"\bg\d+\w*", s1.sexpr)[0]
    assert q[spans[g] - 10:spans[g]] == "half of a "
