"""Two quantities the words give (issue 26.1): "Thomas then triples his money" is a word given 3
tied to "triples" (as "tripled" was), and "ten twenties" of money are $20 bills, a bill's worth
the named constant ``k_dollars_per_twenty`` where the step's line names the twenties; never a
given of equal value, never "in her twenties". The key information of a question whose clause
opens with an ordinal ("A third says 25% more") is no mixed number cut at its "and"."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.check.selfcheck import audit_artifact
from qcstation.core.construct.make.keyinfo import validate_keyinfo
from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
from qcstation.core.construct.make.rules import rule_for_seed
from qcstation.core.construct.make.rules.implied import implied_constant


def _steps(seed: dict) -> dict[str, str]:
    rule = rule_for_seed(seed)
    assert rule.value == int(seed["answer_text"])
    return {st.name.split("_")[0]: st.sexpr for st in rule.steps}


def test_triples_is_a_word_given(gsm8k: dict) -> None:
    # 1175 "Thomas then triples his money": "20*3=60 bills"
    rule = rule_for_seed(gsm8k["1175"])
    steps = {st.name.split("_")[0]: st.sexpr for st in rule.steps}
    assert "w_triples" in steps["s4"]
    assert any(g["name"] == "w_triples" and g["words"] == "triples" for g in rule.givens)


def test_twenties_are_twenty_dollar_bills(gsm8k: dict) -> None:
    # 786 "ten twenties and 140 quarters ... 3/5 of the twenties": "6*$20 = $120" of the twenties
    steps = _steps(gsm8k["786"])
    assert "k_dollars_per_twenty" in steps["s3"]
    assert implied_constant(Fraction(20), "She spent $5 in her twenties.", "the twenties: 6*20", "times") is None
    assert implied_constant(Fraction(20), "She has ten twenties in her wallet and $5.", "6 twenties * 20", "times") \
        == "k_dollars_per_twenty"


def test_a_clause_opened_by_an_ordinal_is_no_split_mixed_number(gsm8k: dict) -> None:
    # 32 "One says 80. Another says 20 more ... A third says 25% more than the first one."
    seed = gsm8k["32"]
    rule = rule_for_seed(seed)
    f = keyinfo_from_annotations(seed["question"], seed["solution"], rule.steps, givens=rule.givens)
    assert "A third says 25% more than the first one" in f["known_quantities"]
    assert validate_keyinfo(f, seed["question"]) == []
    assert audit_artifact("understanding", f, seed) == []


@pytest.mark.parametrize("seed_id", ["786", "1175"])
def test_key_information_follows(gsm8k: dict, seed_id: str) -> None:
    seed = gsm8k[seed_id]
    rule = rule_for_seed(seed)
    f = keyinfo_from_annotations(seed["question"], seed["solution"], rule.steps, givens=rule.givens)
    assert validate_keyinfo(f, seed["question"]) == []
