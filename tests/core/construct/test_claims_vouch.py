"""A given whose line names nothing after its value, vouched for by the places another value
claims (issue 26.1, :mod:`qcstation.core.construct.check.claims`): "10% faster" is the place of the
formalization's given of 1/10, so its given of 10 is "won by 10 minutes"; "One-fourth" is the
place of its given of 1/4, so its given of 4 is "4 rows"; a given divided by the percent's 100 in
every use is the one percent the question states. The same shapes bound wrong are still refused:
one given in two roles (a percent and "$10"), a given of 4 that divides (it may be the fourth), a
percent whose fraction the question also states elsewhere, a given named for a percent that the
claims leave at "50 deer"."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest

from qcstation.core.construct.check.bindings import binding_problems
from qcstation.core.construct.check.selfcheck import audit_artifact
from qcstation.core.construct.make.rules import BinOp, Name, Neg, RuleError, rule_for_seed
from qcstation.core.construct.make.rules.dispatch import check_independently
from qcstation.core.reading.expr import Num, evaluate

MADE = [
    # "James finishes the swim 10% faster ... If Jon won by 10 minutes": "170+10=180"
    ("444", "(+ s2_minutes g6_minutes)"),
    # "4 rows of seats ... One-fourth of the seats": "4 x 18 = 72 seats"
    ("619", "(* g1_rows g2_seats)"),
    # "70% of the total questions ... The first test has 70 questions": "70 + 40 = 110"
    ("1245", "(+ g1_questions g2_questions)"),
    # "a geometry set at $10 ... a 10% discount": "10/100 x $30"
    ("551", "(* (/ g7_discount k_percent) s3)"),
]


@pytest.mark.parametrize(("seed", "term"), MADE)
def test_the_place_another_value_leaves_is_the_given(gsm8k: dict, seed: str, term: str) -> None:
    rule = rule_for_seed(gsm8k[seed])
    assert term in rule.smtlib
    flags = audit_artifact("reasoning", {"smtlib": rule.smtlib}, gsm8k[seed])
    assert "given-words" not in {f.code for f in flags}


def _renamed(e: Any, old: str, new: Any) -> Any:
    if isinstance(e, Name):
        return new if e.name == old else e
    if isinstance(e, BinOp):
        return BinOp(e.op, _renamed(e.left, old, new), _renamed(e.right, old, new))
    if isinstance(e, Neg):
        return Neg(_renamed(e.operand, old, new))
    return e


def _problems(rule: Any, seed: dict[str, str], question: str | None = None) -> list[str]:
    defs: dict[str, Any] = {str(g["name"]): Num(Fraction(str(g["value"]))) for g in [*rule.givens, *(rule.factors or [])]}
    values = {n: e.value for n, e in defs.items()}
    for st in rule.steps:
        defs[st.name] = st.expr
        values[st.name] = evaluate(st.expr, values)
    return [b.describe() for b in binding_problems(defs, values, question or seed["question"], seed["solution"])]


def _step(rule: Any, name: str) -> Any:
    return next(st for st in rule.steps if st.name == name)


def test_one_given_as_the_percent_and_as_the_price_is_refused(gsm8k: dict) -> None:
    s = gsm8k["551"]
    rule = copy.deepcopy(rule_for_seed(s))
    st = _step(rule, "s3")  # "$7.50 + $0.50 + $12 + $10": the geometry set's $10 read as the percent's given
    st.expr = _renamed(st.expr, "g6", Name("g7_discount"))
    assert any("10" in p for p in _problems(rule, s))
    with pytest.raises(RuleError, match="given-words|given-role|given-place"):
        check_independently(rule, s["question"], s["solution"])


def test_a_given_of_four_that_divides_may_be_the_fourth(gsm8k: dict) -> None:
    s = gsm8k["619"]
    rule = copy.deepcopy(rule_for_seed(s))
    st = _step(rule, "s2_seats_occupied")  # "72 x1/4": read as 72 / 4 with the rows' given
    st.expr = BinOp("/", Name("s1_seats_school"), Name("g1_rows"))
    # and the fraction's given still used (by a step of its own): it claims "One-fourth", but the
    # rows' given divides, so it may be the fourth as well; its "4 x 18" is not vouched for
    extra = copy.deepcopy(st)
    extra.name, extra.expr = "s6_fourth", BinOp("*", Name("s5_seats_occupied"), Name("w_one_fourth"))
    rule.steps.append(extra)
    assert any(p.startswith("s1_seats_school uses 4") for p in _problems(rule, s))


def test_the_percent_of_the_same_value_used_as_a_count_too_is_refused(gsm8k: dict) -> None:
    s = gsm8k["444"]
    rule = copy.deepcopy(rule_for_seed(s))
    # "40*.1": the 10% read as the given of 10 over the percent's 100, the fraction's given gone
    rule.factors = [*(rule.factors or []), {"name": "k_percent", "value": "100"}]
    st = _step(rule, "s3_minutes_faster")
    st.expr = BinOp("*", Name("g2_minutes"), BinOp("/", Name("g6_minutes"), Name("k_percent")))
    assert any("uses 10" in p for p in _problems(rule, s))


def test_a_fraction_the_question_also_states_elsewhere_claims_nothing(gsm8k: dict) -> None:
    s = gsm8k["1245"]
    rule = rule_for_seed(s)
    assert _problems(rule, s) == []
    # the question also writes 0.7 elsewhere: the given of 7/10 may be that place, not "70%"
    other = s["question"] + " Last year she answered 0.7 of a test right."
    assert any("uses 70" in p for p in _problems(rule, s, other))


def test_a_given_named_for_the_percent_left_at_another_place_is_refused(gsm8k: dict) -> None:
    # 696: "50 deer ... 50 percent of them are bucks" read as 50(.50), the deer's 50 named for
    # (and tied to) the words "50 percent" (g1_pct): the claims leave "50 deer", which the given
    # is not named for; named for the deer, it is vouched for
    s = gsm8k["696"]
    for name, refused in (("g1_pct", True), ("g1_deer", False)):
        defs: dict[str, Any] = {name: Num(Fraction(50)), "g2_pct": Num(Fraction(1, 2)), "g3_pct": Num(Fraction(1, 5))}
        defs["s1"] = BinOp("*", Name(name), Name("g2_pct"))
        defs["s2_bucks"] = BinOp("*", Name("s1"), Name("g3_pct"))
        values: dict[str, Fraction] = {}
        for n, e in defs.items():
            values[n] = evaluate(e, values)
        found = [b.describe() for b in binding_problems(defs, values, s["question"], s["solution"])]
        assert any(f.startswith("s1 uses 50") for f in found) is refused, found


ANCHORED = [
    # "3 large bags weighing 10 ounces each ... puts 10 in each small bag": "3*10=30 ounces" and
    # "900/10=90 bags", each place named by the words after its step's result
    ("1126", "(* g1_large g2_ounces)", "g2_ounces", "g4_small"),
    # "starting with 50 cows and 20 chickens ... brings him 20 cows per day": "21*20 = 420 cows",
    # so the "50+20+210+420" adds the 20 chickens
    ("1139", "(+ g4_cows g5_chickens s3_chickens s2_cows)", "g2_cows", "g5_chickens"),
    # "Each guest will eat 2 hot dogs ... costs $2": "2*20=40 hot dogs", so "6*2=$12" is the $2
    ("1283", "(* s3_packs_hotdogs g5)", "g1_hot", "g5"),
]


def _crossed(e: Any, a: str, b: str) -> Any:
    if isinstance(e, Name):
        return Name(b) if e.name == a else Name(a) if e.name == b else e
    if isinstance(e, BinOp):
        return BinOp(e.op, _crossed(e.left, a, b), _crossed(e.right, a, b))
    if isinstance(e, Neg):
        return Neg(_crossed(e.operand, a, b))
    return e


@pytest.mark.parametrize(("seed", "term", "a", "b"), ANCHORED)
def test_a_place_another_given_names_by_its_lines_is_taken(gsm8k: dict, seed: str, term: str, a: str, b: str) -> None:
    rule = rule_for_seed(gsm8k[seed])
    assert term in rule.smtlib
    flags = audit_artifact("reasoning", {"smtlib": rule.smtlib}, gsm8k[seed])
    assert "given-words" not in {f.code for f in flags}


@pytest.mark.parametrize(("seed", "term", "a", "b"), ANCHORED)
def test_the_two_givens_crossed_are_still_refused(gsm8k: dict, seed: str, term: str, a: str, b: str) -> None:
    s = gsm8k[seed]
    rule = copy.deepcopy(rule_for_seed(s))
    for st in rule.steps:
        st.expr = _crossed(st.expr, a, b)
    # both crossed uses are refused: each given's name is for the other's place
    assert len(_problems(rule, s)) >= 2
    with pytest.raises(RuleError, match="given-words|given-role|given-place"):
        check_independently(rule, s["question"], s["solution"])


def test_one_given_for_both_places_is_refused(gsm8k: dict) -> None:
    # 1283 with the $2 read as the hot dogs' given: one given in two roles, the $2 place unused
    s = gsm8k["1283"]
    rule = copy.deepcopy(rule_for_seed(s))
    st = _step(rule, "s4")
    st.expr = _renamed(st.expr, "g5", Name("g1_hot"))
    rule.givens = [g for g in rule.givens if g["name"] != "g5"]
    assert any("uses 2" in p for p in _problems(rule, s))
