"""What a batch of score rows costs SQLite does not grow with the scores stored before it
(issue 30.6: the live scoring worker beside a running evaluation). The batch's verdicts were
counted by a statement that walked a whole index of ``eval_scores`` (every score of every
run) at each batch: 3.1 s a batch on a database of 1M scores. Counted here in SQLite's own
virtual-machine steps (``set_progress_handler``), not in time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from db import Store
from db.kept_eval import batch_statements, store_scores
from db.store import now
from qcstation.eval.scorers import INSERT_SCORE
from tests.eval_factory import make_run


def _rows(run: int, seeds: range) -> list[tuple[Any, ...]]:
    at = now()
    return [(run, sid, 0, metric, task, "correct" if sid % 3 else "wrong", 1.0, "42",
             '{"gold": "42"}', "test-1", "gsm8k", "easy", at)
            for sid in seeds for task, metric in (("final", "fi"), ("final", "fi_s"),
                                                  ("arithmetic", "ar"), ("arithmetic", "ar_s"))]


def _steps(store: Store, rows: list[tuple[Any, ...]]) -> int:
    """SQLite's virtual-machine steps (in hundreds) of storing ``rows`` as the live scoring
    worker does (one transaction)."""
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    store.conn.set_progress_handler(count, 100)
    try:
        with store.transaction():
            store_scores(store.conn, INSERT_SCORE, rows)
    finally:
        store.conn.set_progress_handler(None, 100)
    return steps[0]


def test_a_batch_costs_the_same_steps_beside_many_stored_scores(tmp_path: Path) -> None:
    costs = []
    for earlier in (0, 5000):
        with Store(tmp_path / f"db-{earlier}.db") as store:
            other = make_run(store, model="earlier")
            for start in range(1, earlier + 1, 500):      # another run's scores, stored before
                with store.transaction():
                    store_scores(store.conn, INSERT_SCORE, _rows(other, range(start, start + 500)))
            run = make_run(store, model="now")
            costs.append(_steps(store, _rows(run, range(1, 33))))
    small, big = costs
    # 20,000 scores stored before: the batch of 128 rows reads what it wrote, not them
    assert big < small * 1.3, costs


def test_the_batch_counts_read_the_new_rows_by_the_tables_key(tmp_path: Path) -> None:
    _, counts = batch_statements()
    with Store(tmp_path / "plan.db") as store:
        plan = " | ".join(str(r[3]) for r in store.conn.execute("EXPLAIN QUERY PLAN " + counts, (0,)))
    assert "INTEGER PRIMARY KEY (rowid>?)" in plan and "eval_scores_page_mv" not in plan, plan
