"""Whether another parent's item of a set already asks an item's question (the ``repeated``
refusal) is found from the seeds with that question, not by walking the set: its cost does not
grow with the items stored in the set (issue 30.6: SQLite walked every item of the set and
looked each one's seed up, at every item stored, ~3 ms an item at 2,700 items). Counted in
SQLite's own virtual-machine steps, not in time; real SQLite files."""

from __future__ import annotations

import hashlib
from fractions import Fraction
from pathlib import Path

from db import Store
from db.store import now
from qcstation.core.derive.model import DerivedItem
from qcstation.core.derive.store import JobOutcome, _not_repeated, open_set
from tests.factories import add_seed


def _item(question: str) -> DerivedItem:
    return DerivedItem(transform="variant", idx=0, level=None, tag="v0", params={},
                       question=question, solution=None, answer=Fraction(7), answer_text="7",
                       contents={}, generators={})


def _stored(store: Store, set_id: int, parent: int, n: int, start: int) -> None:
    """``n`` variant items of ``parent`` in the set, each a seed of its own question."""
    with store.transaction():
        for k in range(n):
            question = f"Question {start + k}?"
            sid = store.insert("seeds", {
                "source": "gsm8k", "orig_id": f"gsm8k-p{parent}-v{start + k}", "question": question,
                "answer_text": "7", "answer_value": "7", "solution": None, "equation": None,
                "level": "easy", "status": "derived",
                "content_hash": hashlib.sha256(f"{question}\x007".encode()).hexdigest(),
                "meta": {}, "imported_at": now(), "steps": 2})
            store.insert("derived_items", {
                "seed_id": sid, "set_id": set_id, "parent_id": parent, "transform": "variant",
                "family": "variant", "level": None, "idx": start + k, "tag": f"v{start + k}",
                "params": "{}", "answer_value": "7", "dimensions": "[]", "ops": 1,
                "created_at": now()})


def _steps(store: Store, info: object, parent: dict[str, object], question: str) -> tuple[int, list[str]]:
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    out = JobOutcome(job_id=0, parent=parent, items=[_item(question)], refused=[])
    store.conn.set_progress_handler(count, 100)
    try:
        _not_repeated(store, info, out, {})  # type: ignore[arg-type]
    finally:
        store.conn.set_progress_handler(None, 100)
    return steps[0], [r.code for r in out.refused]


def test_a_repeated_question_is_found_at_the_same_cost_in_a_large_set(tmp_path: Path) -> None:
    costs = []
    for n in (10, 3000):
        with Store(tmp_path / f"set-{n}.db") as store:
            parent_id = add_seed(store, 1)
            other = add_seed(store, 2)
            info = open_set(store, "dyn", "variants", {"per_seed": 1}, "alice")
            _stored(store, info.id, other, n, 0)
            parent = dict(store.one("SELECT * FROM seeds WHERE id = ?", (parent_id,)) or {})
            # a question the set asks already (another parent's item): refused as repeated
            steps, codes = _steps(store, info, parent, "Question 5?")
            assert codes == ["repeated"]
            # a new one: kept, and its cost counted
            steps, codes = _steps(store, info, parent, "A question no item asks?")
            assert codes == []
            costs.append(steps)
    small, big = costs
    assert big <= small + 2, costs
