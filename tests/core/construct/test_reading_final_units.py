"""A final answer the question asks in cents where the solution's last step is in dollars
("how much will each pump cost, in cents?", "24/240 = $0.10", gold 10): one more step converts
it with the named factor ``k_cents_per_dollar`` (issue 26.1: a quantity the words imply is a
named constant, never a given of equal value). Only where the question asks "in cents", the
last result is written in dollars, and the conversion gives the gold exactly."""

from __future__ import annotations

import json

import pytest

from qcstation.core.construct.check.selfcheck import audit_artifact
from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
from qcstation.core.construct.make.rules import RuleError, rule_for_seed


def _asserts(smtlib: str) -> set[str]:
    return {line for line in smtlib.splitlines() if line.startswith("(assert")}


@pytest.mark.parametrize("sid, last", [
    # "24/240 = $<<24/240=0.10>>0.10", asked "in cents"
    ("608", "(assert (= s3_cents (* s2_washes_wash k_cents_per_dollar)))"),
    # "15/30 = $0.50" (written, not annotated), asked "in cents"
    ("1244", "(assert (= s3_cents (* s2_jerky_stick k_cents_per_dollar)))"),
])
def test_the_last_dollars_converted_to_the_cents_asked(gsm8k: dict, z3pool, sid: str, last: str) -> None:
    seed = gsm8k[sid]
    rule = rule_for_seed(seed)
    asserts = _asserts(rule.smtlib)
    assert last in asserts and "(assert (= k_cents_per_dollar 100))" in asserts
    assert "(assert (= answer s3_cents))" in asserts
    assert not any(g["value"] == "100" for g in rule.givens)  # a named factor, no given
    assert z3pool.verify(rule.smtlib, seed["answer_text"]).ok
    content = {"smtlib": rule.smtlib, "givens": rule.givens, "links": rule.links}
    assert audit_artifact("reasoning", json.dumps(content), seed) == []


def test_key_information_names_the_conversion(gsm8k: dict) -> None:
    seed = gsm8k["1244"]
    rule = rule_for_seed(seed)
    fields = keyinfo_from_annotations(seed["question"], seed["solution"], rule.steps, givens=rule.givens)
    assert fields["unknown_quantities"][-1] == "Q3: That is Q2 dollars, or ? cents. (the value asked for)"
    assert fields["relationships_and_constraints"][-1] == "Q3 = Q2 × 100"
    assert audit_artifact("understanding", json.dumps(fields), seed) == []


_PENS = {"question": "A pack of 4 pens costs $2. How much does each pen cost, in cents?",
         "solution": "Each pen costs 2/4 = $<<2/4=0.5>>0.5", "answer_text": "50", "source": "gsm8k"}


def test_a_made_up_seed_converts_and_its_near_misses_do_not() -> None:
    rule = rule_for_seed(_PENS)
    assert rule.value == 50 and "(assert (= s2_cents (* s1_pen k_cents_per_dollar)))" in _asserts(rule.smtlib)
    # not asked in cents
    with pytest.raises(RuleError, match="final answer 50 is not produced"):
        rule_for_seed({**_PENS, "question": _PENS["question"].replace(", in cents", "")})
    # the last result not written in dollars
    with pytest.raises(RuleError, match="final answer 50 is not produced"):
        rule_for_seed({**_PENS, "solution": "Each pen costs 2/4 = <<2/4=0.5>>0.5"})
    # the conversion does not give the gold
    with pytest.raises(RuleError, match="final answer 5 is not produced"):
        rule_for_seed({**_PENS, "answer_text": "5"})
