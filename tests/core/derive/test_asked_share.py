"""A share the question asks for stays a share (issue 26.3, a story's hidden constraint).
GSM8K train 115 asks "what percentage of his money will he spend on Valentine?" (90: 18 cards
at $2 of his $40). A variant with "$4 each" stored 180, and changed numbers with "70% of them"
stored 105: he would spend more than all his money (lead's held-out reading, rng 1701). A new
value that takes the asked share past the whole is refused as implausible; values that keep it
within the whole are still made."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from db import Store
from qcstation.common.config import load_config
from qcstation.core.construct.pipeline import Pipeline
from qcstation.core.derive.bindings import Refusal
from qcstation.core.derive.parent import Parent, load_parent, with_values
from qcstation.core.ingest.importer import import_file

MO = {"question": "Mo is buying valentine's day cards for the class. There are 30 students and he wants to "
                  "give a Valentine to 60% of them. They cost $2 each. If he has $40, what percentage of his "
                  "money will he spend on Valentine?",
      "answer": "He buys 18 cards because 30 x .6 = <<30*.6=18>>18\nHe will spend $36 on them because 18 x 2 = "
                "<<18*2=36>>36\nHe spends 90% of his money because (36/40) x 100 = <<(36/40)*100=90>>90\n#### 90"}


@pytest.fixture(scope="module")
def mo(tmp_path_factory: pytest.TempPathFactory) -> Parent:
    tmp = tmp_path_factory.mktemp("share")
    src = tmp / "mo.jsonl"
    src.write_text(json.dumps(MO) + "\n", encoding="utf-8")
    db = tmp / "mo.db"
    with Store(db) as store:
        import_file(store, src, "gsm8k")
    with Pipeline(db, load_config(None, env={})) as p:
        p.generate()
    with Store(db) as store:
        seed = store.one("SELECT * FROM seeds")
        assert seed is not None
        arts = {r["dimension"]: r for r in store.query(
            "SELECT dimension, status, generator, content FROM artifacts WHERE seed_id = ? "
            "AND status IN ('verified', 'accepted')", (seed["id"],))}
    return load_parent(seed, arts)


def _given(parent: Parent, words: str) -> str:
    return next(g.name for g in parent.givens if g.words == words)


def test_a_share_past_the_whole_is_refused(mo: Parent) -> None:
    price = _given(mo, "2")
    with pytest.raises(Refusal) as exc:
        with_values(mo, {price: Fraction(4)})            # 18 x $4 = $72 of his $40: 180%
    assert exc.value.code == "implausible" and "percentage of" in str(exc.value) and "180" in str(exc.value)
    pct = _given(mo, "60")
    with pytest.raises(Refusal):
        with_values(mo, {pct: Fraction(7, 10)})          # 21 x $2 = $42 of $40: 105%


def test_a_share_within_the_whole_is_made(mo: Parent) -> None:
    pct = _given(mo, "60")
    item = with_values(mo, {pct: Fraction(2, 5)})        # 12 x $2 = $24 of $40: 60%
    assert item.rule.value == 60 and "40% of them" in str(item.seed["question"])
    money = _given(mo, "40")
    item = with_values(mo, {money: Fraction(48)})        # $36 of $48: 75%, below the parent's 90
    assert item.rule.value == 75 and "$48" in str(item.seed["question"])
