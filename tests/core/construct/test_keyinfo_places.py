"""Rule-made key information places each given of the question in the clause that states it,
by the given's own place and value (issue 26): "forty-two 75-pound bales" states 42 though its
words, read one by one, are 40 and 2 (460, 750 were refused: "the question's givens could not be
placed in clauses: 42"); "the last quarter" is no 1/4 the solution uses, since no step divides
by 4 (668 multiplies by the 4 quarters)."""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import pytest

from qcstation.core.construct.make.keyinfo_draft import _used_values, keyinfo_from_annotations
from qcstation.core.construct.make.rules import rule_for_seed
from qcstation.core.construct.make.rules.dispatch import gold_from_seed
from qcstation.core.review.fix_checks import keyinfo_fix_problems


def _keyinfo(seed: dict) -> dict:
    rule = rule_for_seed(seed)
    return keyinfo_from_annotations(seed["question"], seed["solution"], rule.steps, givens=rule.givens)


@pytest.mark.parametrize(("seed", "known", "relationship"), [
    ("460", "Hay is the main diet of his horses, so he buys forty-two 75-pound bales", "Q3 = 42 × 75"),
    ("750", "In a school activity, fifty-four students are to be separated into six groups of equal size",
     "Q1 = 54 ÷ 6"),
    ("668", "Sarah’s basketball games are 4 quarters that are each 12 minutes long", "Q1 = 12 × 4"),
])
def test_a_given_is_placed_by_its_place(gsm8k: dict, seed: str, known: str, relationship: str) -> None:
    fields = _keyinfo(gsm8k[seed])
    assert known in fields["known_quantities"]
    assert relationship in fields["relationships_and_constraints"]
    # the relationships, evaluated in order, give the gold answer from the question's numbers
    assert not [p for p in keyinfo_fix_problems(fields, gsm8k[seed]["question"], gold_from_seed(gsm8k[seed]))
                if "gold" in p or "evaluated" in p]
    assert all(u.count("?") == 1 for u in fields["unknown_quantities"])


def test_a_unit_fraction_counts_as_used_only_where_a_step_divides_by_it() -> None:
    question = "Ann has 12 apples. Bob has 1/3 as many. In the last quarter of the day they sold 4 pears."
    divides = [SimpleNamespace(expr_text="12 / 3"), SimpleNamespace(expr_text="4 * 2")]
    assert Fraction(1, 3) in _used_values(question, divides, None)
    assert Fraction(1, 4) not in _used_values(question, divides, None)
    multiplies = [SimpleNamespace(expr_text="12 * 3")]
    assert Fraction(1, 3) not in _used_values(question, multiplies, None)


@pytest.mark.parametrize(("seed", "known"), [
    # "and a photo frame for $5" has no verb of its own: cut off, "A photo frame for $5" is no
    # fact (the known-fragment refusal); it is said by the clause before it
    ("1297", "Ellen bought a pair of leggings for $100 and a photo frame for $5"),
    ("608", "The directions say to use 2 pumps of shampoo and this will give you 120 washings"),
])
def test_a_phrase_after_and_stays_with_its_clause(gsm8k: dict, seed: str, known: str) -> None:
    fields = _keyinfo(gsm8k[seed])
    assert known in fields["known_quantities"]
    assert not [k for k in fields["known_quantities"] if k != known and k in known]


def test_a_pronoun_clause_keeps_who_it_is_across_a_dependent_clause(gsm8k: dict) -> None:
    # 460: "He only wants enough carrots to feed the horses while the vegetables are fresh, so he
    # buys four 12-pound bags" was listed as "The vegetables are fresh, so he buys four 12-pound
    # bags" (bags of what; "while" stated as a fact)
    known = _keyinfo(gsm8k["460"])["known_quantities"]
    assert ("He only wants enough carrots to feed the horses while the vegetables are fresh, so he buys "
            "four 12-pound bags") in known
    assert not any(k.startswith("The vegetables are fresh") for k in known)
