"""The live scorer (the run's scoring worker) keeps the answer fields of a bounded number of
items between batches, and scores exactly as one that keeps every item: over a run of a
million items its memory stays that of a few thousand. Real SQLite, the real checker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from db import Store
from qcstation.eval import scorers
from qcstation.eval.runs import create_run
from qcstation.eval.scorers import LiveScorer, scorer_versions
from tests.eval_helpers import config, copy_db, gold_text, local_model, quickstart_db


@pytest.fixture
def qs_db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_db(quickstart_db(tmp_path_factory.getbasetemp()), tmp_path / "eval.db")


def test_the_live_scorer_keeps_few_items_and_scores_the_same(qs_db: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = config(models={"m": local_model("http://127.0.0.1:9/v1")})
    tasks = ("final", "arithmetic", "refinement")
    with Store(qs_db) as s:
        run_id = create_run(s, cfg, model="m", tasks=list(tasks), shots=0, limit=40)
        records = [json.loads(r[0]) for r in s.conn.execute(
            "SELECT record FROM eval_items WHERE run_id = ? AND role = 'eval' ORDER BY seed_id", (run_id,))]
        # right, wrong and unreadable answers, in the order a run stores them
        outputs = [(int(r["seed_id"]), task, 0,
                    f"The answer is {gold_text(r)}." if i % 3 == 0 else
                    "The answer is 7." if i % 3 == 1 else "I cannot tell.")
                   for i, r in enumerate(records) for task in tasks]
        versions = scorer_versions(cfg)
        whole = LiveScorer(run_id, versions)
        try:
            expected = whole.rows(s, outputs)
            assert len(whole._items) == len(records) == 40
        finally:
            whole.close()
        monkeypatch.setattr(scorers, "LIVE_ITEMS_KEPT", 5)
        kept = LiveScorer(run_id, versions)
        got: list[tuple[object, ...]] = []
        most = 0
        try:
            for i in range(0, len(outputs), 4):
                got += kept.rows(s, outputs[i:i + 4])
                most = max(most, len(kept._items))
        finally:
            kept.close()
    assert most <= 5
    assert {row[5] for row in expected} >= {"correct", "wrong", "unparseable"}
    assert sorted(row[:-1] for row in got) == sorted(row[:-1] for row in expected)
