"""A given whose line names nothing after its value, vouched for by elimination (issue 26.1,
:mod:`qcstation.core.construct.check.elimination`): the question states the value at several
places, the formalization declares one given for each, every other given is named by its lines
with the words of one place, and the given is named for the one place left. The same seeds with
the two givens crossed (each step using the other's given, as a binder that placed them by order
would write them) are still refused, by the rules' check and by the make-time audit."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from qcstation.core.construct.check.selfcheck import audit_artifact
from qcstation.core.construct.make.rules import BinOp, Name, Neg, RuleError, rule_for_seed
from qcstation.core.construct.make.rules.dispatch import check_independently


def _crossed(e: Any, a: str, b: str) -> Any:
    if isinstance(e, Name):
        return Name(b) if e.name == a else Name(a) if e.name == b else e
    if isinstance(e, BinOp):
        return BinOp(e.op, _crossed(e.left, a, b), _crossed(e.right, a, b))
    if isinstance(e, Neg):
        return Neg(_crossed(e.operand, a, b))
    return e


CASES = [
    # "Tom plants 10 trees a year ... After 10 years": "He gets 10-2=8 new trees a year"
    ("193", "(- g1_trees g2_trees)", "g1_trees", "g3_years"),
    # "3 customers were kicked out ... Three times the number of shoplifters": "7 customers * 3"
    ("368", "(* s2_customers g4_times)", "g2_customers", "g4_times"),
    # "3 trees each had 7 blue birds ... 1 final tree had 3 blue birds": "21+8+3"
    ("1136", "(+ s1_blue_birds s2_blue_birds g5_blue)", "g2_trees", "g5_blue"),
    # "Four children ... Alessandro is 4 years old": "20 years / 4"
    ("997", "(/ g1 g2_children)", "g2_children", "g4_years"),
]


@pytest.mark.parametrize(("seed", "term", "a", "b"), CASES)
def test_the_place_left_over_is_the_given_named_for_it(gsm8k: dict, seed: str, term: str, a: str, b: str) -> None:
    rule = rule_for_seed(gsm8k[seed])
    assert term in rule.smtlib
    flags = audit_artifact("reasoning", {"smtlib": rule.smtlib}, gsm8k[seed])
    assert "given-words" not in {f.code for f in flags}


@pytest.mark.parametrize(("seed", "term", "a", "b"), CASES)
def test_the_two_givens_crossed_are_still_refused(gsm8k: dict, seed: str, term: str, a: str, b: str) -> None:
    s = gsm8k[seed]
    rule = copy.deepcopy(rule_for_seed(s))
    for st in rule.steps:
        st.expr = _crossed(st.expr, a, b)
    with pytest.raises(RuleError, match="given-words|given-role|given-place"):
        check_independently(rule, s["question"], s["solution"])
    # the stored SMT-LIB of the crossed reading, as the make-time audit reads it
    smtlib = rule_for_seed(s).smtlib
    for st in rule_for_seed(s).steps:
        crossed = st.sexpr.replace(a, "\0").replace(b, a).replace("\0", b)
        smtlib = smtlib.replace(f"(assert (= {st.name} {st.sexpr}))", f"(assert (= {st.name} {crossed}))")
    assert smtlib != rule_for_seed(s).smtlib
    flags = audit_artifact("reasoning", {"smtlib": smtlib}, s)
    assert "given-words" in {f.code for f in flags}
