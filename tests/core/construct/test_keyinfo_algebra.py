"""Key information of the ``gsm8k-algebra`` rule's formalizations (issue 26: Understanding was
refused for every seed whose Reasoning that rule makes, "key information rules need a
calculator-annotated solution"). The unknown the solution names is Q1, described by the words it
names it with ("Let x be the number of silver coins Gretchen has"), and its equation is Q1's
relationship; the answer's computation from it is Q2 ("the team won 22 - 7"), or Q1 is the value
asked for. Real seeds; the pipeline end to end with real Z3 and SQLite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from db import Store
from qcstation.common.config import load_config
from qcstation.core.construct.check.selfcheck import audit_artifact
from qcstation.core.construct.make.keyinfo import validate_keyinfo
from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
from qcstation.core.construct.make.rules import rule_for_seed
from qcstation.core.construct.pipeline import Pipeline


def _fields(seed: dict) -> dict:
    rule = rule_for_seed(seed)
    assert rule.rule == "gsm8k-algebra"
    return keyinfo_from_annotations(seed["question"], seed["solution"], rule.steps, givens=rule.givens)


@pytest.mark.parametrize(("sid", "unknowns", "relations"), [
    ("34", ["Q1: Number of silver coins Gretchen has is ?",
            "Q2: Gretchen has ? gold coins (the value asked for)"],
     ["Q1 + Q1 + 30 = 110", "Q2 = Q1 + 30"]),
    # "the team won 22 - 7": the answer a computation of the unknown
    ("85", ["Q1: Number of losses is ?", "Q2: Therefore, the team won ? games. (the value asked for)"],
     ["Q1 + 8 + Q1 = 22", "Q2 = 22 − Q1"]),
    # "answer = X": the unknown is the value asked for
    ("25", ["Q1: Original price of the book is ? (the value asked for)"],
     ["Q1 − Q1 × (25 ÷ 100) = 19.5"]),
    ("1182", ["Q1: Colin's age now is ? (the value asked for)"],
     ["(Q1 + 7) × 5 = (Q1 + 25) × 3"]),
    # of two unknowns, the one the equation is in (was "Number of copies Marilyn sold (m ...)",
    # the first one named, for "10h + h = 88,000"; 1226 "Number of brownies (b ...)" for c)
    ("89", ["Q1: The number Harald sold is ? (the value asked for)"],
     ["10 × Q1 + Q1 = 88000"]),
    ("1226", ["Q1: The number of cupcakes is ? (the value asked for)"],
     ["3 × Q1 − 2 + Q1 = 5 × 2"]),
])
def test_the_unknown_is_named_by_its_words_and_defined_by_its_equation(gsm8k: dict, sid: str, unknowns: list[str],
                                                                       relations: list[str]) -> None:
    f = _fields(gsm8k[sid])
    assert f["unknown_quantities"] == unknowns
    assert f["relationships_and_constraints"] == relations
    assert validate_keyinfo(f, gsm8k[sid]["question"]) == []
    assert audit_artifact("understanding", f, gsm8k[sid]) == []


def test_three_and_a_half_is_never_cut_into_two_known_quantities(gsm8k: dict) -> None:
    # 1003: "Lisa sold three and a half boxes" was cut at its "and" ("Lisa sold three", "A half
    # boxes of chocolate bars") and refused; the mixed number is one number of its clause
    f = _fields(gsm8k["1003"])
    assert f["known_quantities"] == ["Lisa sold three and a half boxes of chocolate bars",
                                     "Peter sold four and a half boxes", "They sold 64 chocolate bars together"]
    assert f["relationships_and_constraints"] == ["(3 + 1/2) × Q1 + (4 + 1/2) × Q1 = 64"]
    assert validate_keyinfo(f, gsm8k["1003"]["question"]) == []


def test_generate_makes_algebra_key_information_offline(tmp_path: Path, db_file: Path, gsm8k: dict) -> None:
    from qcstation.core.ingest.importer import import_file
    from tests.conftest import dataset

    rows = dataset("gsm8k/test.jsonl").read_text().splitlines()
    sample = tmp_path / "algebra.jsonl"
    sample.write_text("\n".join(rows[i - 1] for i in (25, 34, 1003)) + "\n")
    with Store(db_file) as store:
        import_file(store, sample, "gsm8k")
    with Pipeline(db_file, load_config(None, env={})) as p:
        p.generate(dimensions=["reasoning", "understanding"])
    with Store(db_file) as store:
        rows_ = store.query("SELECT s.question, a.status, a.content FROM artifacts a JOIN seeds s ON s.id = a.seed_id "
                            "WHERE a.dimension = 'understanding' ORDER BY s.id")
    made = {r["question"][:20]: (r["status"], json.loads(r["content"]) if r["content"] else None) for r in rows_}
    kyle = next(v for k, v in made.items() if k.startswith("Kyle"))
    assert kyle[0] == "verified" and kyle[1] is not None
    assert kyle[1]["relationships_and_constraints"] == ["Q1 − Q1 × (25 ÷ 100) = 19.5"]
    assert next(v for k, v in made.items() if k.startswith("Gretchen"))[0] == "verified"
    # (its mixed numbers "three and a half" are read whole: made)
    assert next(v for k, v in made.items() if k.startswith("Lisa"))[0] == "verified"
