"""The rules' independent checks and the make-time audit ask ``given_roles`` and ``stated_literals``
of one formalization twice: from its steps, and read back from its SMT-LIB. The answer is kept
for the last formalizations under a key of exactly what each check reads: the second asking is
answered from it, and the answer is always the one the check gives."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from db import Store
from qcstation.core.construct.check import literals, rolecheck, selfcheck
from qcstation.core.construct.make.rules import Name, Num, RuleError, rule_for_seed
from qcstation.core.construct.make.rules.dispatch import gold_from_seed
from qcstation.core.ingest.importer import import_file
from qcstation.core.reading.expr import BinOp, evaluate
from tests.conftest import dataset


def _from_steps(rule: Any) -> tuple[dict[str, Any], dict[str, Fraction]]:
    """The definitions and values :func:`dispatch.check_independently` asks with."""
    defs: dict[str, Any] = {str(g["name"]): Num(Fraction(str(g["value"])))
                            for g in [*rule.givens, *(rule.factors or [])]}
    values = {n: e.value for n, e in defs.items()}
    for st in rule.steps:
        defs[st.name] = st.expr
        values[st.name] = evaluate(st.expr, values)
    return defs, values


def test_the_audit_is_answered_from_the_rules_reading_and_the_answers_are_the_checks(tmp_path: Any) -> None:
    db = tmp_path / "g.db"
    with Store(db) as store:
        import_file(store, dataset("gsm8k/test.jsonl"), "gsm8k")
        rows = store.query("SELECT * FROM seeds WHERE status = 'active' ORDER BY id LIMIT 400")
    shared = 0
    for seed in rows:
        try:
            rule = rule_for_seed(seed)
        except RuleError:
            continue
        if any(st.expr is None for st in rule.steps):
            continue
        q, s = str(seed["question"]), str(seed["solution"] or "")
        defs, values = _from_steps(rule)
        parsed = selfcheck._smt_definitions(rule.smtlib)
        assert parsed is not None
        back_defs, back_values, _ = parsed
        assert (rolecheck._roles_key(defs, values, rule.givens, q, s)
                == rolecheck._roles_key(back_defs, back_values, rule.givens, q, s))
        assert literals._literals_key(defs, rule.givens, q) == literals._literals_key(back_defs, rule.givens, q)
        for d, v in ((defs, values), (back_defs, back_values)):
            assert rolecheck.given_roles(d, v, rule.givens, q, s) == rolecheck._given_roles(d, v, rule.givens, q, s)
            assert literals.stated_literals(d, rule.givens, q) == literals._stated_literals(d, rule.givens, q)
        shared += 1
    assert shared > 200 and gold_from_seed(rows[0]) is not None


def test_what_the_checks_read_is_in_the_key() -> None:
    q = "Ann has 5 apples and buys 7 more, then 2 more. How many apples?"
    s = "5+7=<<5+7=12>>12\n12+2=<<12+2=14>>14\n#### 14"
    givens = [{"name": "g1", "value": "5", "span": [8, 9], "kind": "number"},
              {"name": "g2", "value": "7", "span": [25, 26], "kind": "number"}]
    defs: dict[str, Any] = {"g1": Num(Fraction(5)), "g2": Num(Fraction(7)),
                            "s1": BinOp("+", Name("g1"), Name("g2")), "s2": BinOp("+", Name("s1"), Num(Fraction(2), "2"))}
    values = {"g1": Fraction(5), "g2": Fraction(7), "s1": Fraction(12), "s2": Fraction(14)}
    key = rolecheck._roles_key(defs, values, givens, q, s)
    lkey = literals._literals_key(defs, givens, q)
    # not read: a number's written text, a definition that only names a step
    same = {**defs, "g1": Num(Fraction(5), "5"), "answer": Name("s2")}
    assert rolecheck._roles_key(same, {**values, "answer": Fraction(14)}, givens, q, s) == key
    assert literals._literals_key(same, givens, q) == lkey
    # read: a given's place, kind or value, a step's shape, a value, the texts
    for g in ({**givens[0], "span": [9, 10]}, {**givens[0], "kind": "percent"}, {**givens[0], "span": (8, 9)}):
        assert rolecheck._roles_key(defs, values, [g, givens[1]], q, s) != key
        assert literals._literals_key(defs, [g, givens[1]], q) != lkey
    assert literals._literals_key(defs, [{**givens[0], "value": "1/2"}, givens[1]], q) != lkey
    other = {**defs, "s1": BinOp("*", Name("g1"), Name("g2"))}
    assert rolecheck._roles_key(other, values, givens, q, s) != key
    assert literals._literals_key({**defs, "s2": BinOp("+", Name("s1"), Num(Fraction(3)))}, givens, q) != lkey
    assert rolecheck._roles_key(defs, {**values, "s1": Fraction(13)}, givens, q, s) != key
    assert rolecheck._roles_key(defs, values, givens, q + " ", s) != key
    assert rolecheck._roles_key(defs, values, givens, q, s + " ") != key
    assert literals._literals_key(defs, givens, q + " ") != lkey
