"""Fixing an item in place, on a database the real pipeline made from the shipped sample (offline),
checked through real Z3 (qcstation/core/review/fixes.py)."""

from __future__ import annotations

import json
import re

import pytest

from db import Store
from db.artifacts import current_artifact
from qcstation.common.errors import ReviewError
from qcstation.core.review.decisions import decide
from qcstation.core.review.fixes import editable_text, fix_in_place
from qcstation.core.review.gate import gate
from qcstation.core.review.items import get_item
from tests import factories as f
from tests.core.review.helpers import claim


def test_fix_a_notation_question_in_place_through_z3(shipped: Store) -> None:
    item = claim(shipped, "ann", "arithmetic")
    text = editable_text(item)
    assert text.startswith("Let ") and text.endswith("?")
    # a wrong edit is refused by Z3 and stores nothing
    wrong = re.sub(r"= (\d+)", lambda m: f"= {int(m.group(1)) + 1}", text, count=1)
    versions = shipped.scalar("SELECT COUNT(*) FROM artifacts")
    with pytest.raises(ReviewError, match="Z3 does not verify the edited question"):
        fix_in_place(shipped, item.item_id, wrong, actor="ann", reason="story words left in")
    with pytest.raises(ReviewError, match="drifted from its rendering: the given number"):
        fix_in_place(shipped, item.item_id, "What is 2 + 2?", actor="ann", reason="x")
    with pytest.raises(ReviewError, match="say what was wrong"):
        fix_in_place(shipped, item.item_id, text.replace("Let ", "Let  "), actor="ann")
    assert shipped.scalar("SELECT COUNT(*) FROM artifacts") == versions
    assert shipped.scalar("SELECT COUNT(*) FROM reviews") == 0
    # a right edit (a variable renamed) is verified, linked and accepted by its author
    name = re.match(r"Let (\w+) =", text).group(1)  # type: ignore[union-attr]
    fixed = re.sub(rf"\b{name}\b", "q1", text)
    done = fix_in_place(shipped, item.item_id, fixed, actor="Ann", reason="unclear names")
    new = shipped.one("SELECT * FROM artifacts WHERE id = ?", (done["artifact_id"],))
    assert (new["generator"], new["author"], new["replaces_id"], new["status"]) == \
        ("human", "ann", item.artifact_id, "accepted")
    assert json.loads(new["content"])["notation"] == fixed
    assert json.loads(new["verify_result"])["status"] == "verified"
    assert f.artifact_status(shipped, item.artifact_id) == "superseded"
    old_reviews = [(r["verdict"], r["reason"]) for r in shipped.query(
        "SELECT verdict, reason FROM reviews WHERE sample_item_id = ?", (item.item_id,))]
    assert old_reviews == [("reject", "fixed in place: unclear names")]
    g = gate(shipped, "arithmetic", threshold=0.05)
    assert g.open_rejects == 0 and g.defects == 1     # the fixed version was a defect
    shown = get_item(shipped, done["new_item_id"])
    assert shown.author == "ann" and shown.requeued and shown.outcome == "accept"


def test_fix_key_information_of_a_rejected_item(shipped: Store) -> None:
    item = claim(shipped, "ann", "understanding")
    decide(shipped, item.item_id, "ann", "reject", "wrong goal")
    text = editable_text(item)
    assert "Goal: " in text and "Known Quantities:" in text
    with pytest.raises(ReviewError, match="Goal is empty"):
        fix_in_place(shipped, item.item_id, re.sub(r"Goal: .*", "Goal:", text), actor="bob")
    with pytest.raises(ReviewError, match="missing field"):
        fix_in_place(shipped, item.item_id, "Goal: x\n", actor="bob")
    fixed = re.sub(r"Goal: .*", "Goal: Find the final amount asked for.", text)
    done = fix_in_place(shipped, item.item_id, fixed, actor="bob")
    assert not done["rejected_first"]                  # it was rejected already
    cur = current_artifact(shipped, item.seed_id, "understanding")
    assert cur is not None and cur["author"] == "bob" and cur["status"] == "accepted"
    assert json.loads(cur["content"])["goal"] == "Find the final amount asked for."
    assert gate(shipped, "understanding", threshold=0.05).open_rejects == 0
