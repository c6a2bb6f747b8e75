"""A worked solution whose computations were read and refused stays refused, with the
calculator rule's reason: the dispatch never falls back to the row's equation field. The GSM8K
importer fills that field with the solution's own computations joined; one of them as the whole
formalization gave a wrong value (GSM8K 99: "30-5" is 25, the gold is 5, because the last step
"25 total cars - 20 cars ... = 5" has no annotation). Rows built by the real importer's converter
from the real GSM8K test records."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.ingest.formats import TABLE, Ctx
from qcstation.core.ingest.readers import Raw
from tests.conftest import dataset


def _imported_row(number: int) -> dict[str, object]:
    """The seed row the GSM8K importer stores for test record ``number`` (1-based)."""
    lines = dataset("gsm8k/test.jsonl").read_text().splitlines()
    rec = json.loads(lines[number - 1])
    draft = TABLE["gsm8k"].convert(rec, Raw(number, number, rec), Ctx({}))
    return {"source": "gsm8k", "question": draft.question, "solution": draft.solution,
            "answer_text": draft.answer_text, "equation": draft.equation, "meta": json.dumps(draft.meta)}


@pytest.mark.parametrize("number", [99, 238, 351, 483])
def test_read_worked_solution_never_falls_back_to_the_equation_field(number: int) -> None:
    row = _imported_row(number)
    assert row["equation"], "the importer stores the solution's computations as the equation field"
    gold = Fraction(str(row["answer_text"]))
    try:
        res = rule_for_seed(row)
    except RuleError as exc:
        assert "equation rule" not in str(exc)
        return
    # made by a later reading of the solution: then from the solution itself, with the gold
    assert res.rule != "equation" and res.value == gold


def test_gsm8k_99_keeps_its_reason() -> None:
    row = _imported_row(99)
    with pytest.raises(RuleError) as err:
        rule_for_seed(row)
    assert "final answer 5 is not produced by any step" in str(err.value)


def test_a_solution_with_no_computation_may_use_an_equation_field() -> None:
    """Nothing read: a worked solution with no computation at all, beside its own equation."""
    seed = {"question": "Ann has 3 apples and buys 4 apples. How many apples does she have?",
            "solution": "She has three and four more.\n#### 7", "answer_text": "7", "equation": "x = 3 + 4"}
    assert rule_for_seed(seed).rule == "equation"


def test_an_annotated_solution_refused_is_not_rescued_by_its_equation() -> None:
    seed = {"question": "Ann has 3 apples and buys 4 apples. How many apples does she have?",
            "solution": "a 2+2=<<2+2=4>>4", "answer_text": "7", "equation": "x = 3 + 4"}
    with pytest.raises(RuleError, match="final answer 7 is not produced by any step") as err:
        rule_for_seed(seed)
    assert "equation rule" not in str(err.value)
