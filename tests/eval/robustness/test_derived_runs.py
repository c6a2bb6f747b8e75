"""`eval run` on a derived release: each item is asked the tasks it carries (and the final
answer), its frozen record names its parent, transform and params, and the reference
backend answers every one of them right (real Z3, real answer checker)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from db import Store
from qcstation.cli import main
from qcstation.eval.evaluate import run_and_score
from qcstation.eval.runs import create_run, resolve_release
from tests.eval.robustness.helpers import copy_released
from tests.eval_helpers import config


@pytest.fixture
def db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_released(tmp_path_factory.getbasetemp(), tmp_path / "r.db")


def test_a_mixed_derived_release_asks_each_item_what_it_carries(db: Path) -> None:
    cfg = config()
    with Store(db) as s:
        run = create_run(s, cfg, model="reference", release=resolve_release(s, "lad-rel@1"),
                         shots=0)
        items = {int(r["seed_id"]): json.loads(r["record"]) for r in s.query(
            "SELECT seed_id, record FROM eval_items WHERE run_id = ?", (run,))}
        expected = sum(1 + len(r["dimensions"]) for r in items.values())   # + final
        assert s.scalar("SELECT n_requests FROM eval_runs WHERE id = ?", (run,)) == expected
    outcome = run_and_score(db, run, cfg)
    assert outcome.progress.status == "done"
    with Store(db) as s:
        asked = {(int(r["seed_id"]), r["task"]) for r in s.query(
            "SELECT seed_id, task FROM eval_outputs WHERE run_id = ?", (run,))}
        errors = s.scalar("SELECT COUNT(*) FROM eval_outputs WHERE run_id = ? AND status = 'error'",
                          (run,))
        verdicts = {r["verdict"] for r in s.query(
            "SELECT verdict FROM eval_scores WHERE run_id = ? AND metric != 'un'", (run,))}
        joined = s.query(
            "SELECT ei.record, di.transform, di.params, di.level, p.source || '-' || p.orig_id AS parent "
            "FROM eval_items ei JOIN derived_items di ON di.seed_id = ei.seed_id "
            "JOIN seeds p ON p.id = di.parent_id WHERE ei.run_id = ?", (run,))
    assert errors == 0 and verdicts == {"correct"}
    for sid, rec in items.items():
        assert asked & {(sid, t) for t in ("understanding", "reasoning", "arithmetic", "refinement",
                                           "final")} == {(sid, t) for t in [*rec["dimensions"], "final"]}
    transforms = {r["transform"] for r in joined}
    assert transforms == {"noise", "digits", "errors"} and len(joined) == len(items)
    for r in joined:    # the frozen record says what derived_items says
        rec = json.loads(r["record"])
        assert (rec["parent"], rec["transform"], rec["params"], rec["level"]) == \
            (r["parent"], r["transform"], json.loads(r["params"]), r["level"])
        assert isinstance(rec["level"], int)     # k sentences, d digits, n errors; not the difficulty


def test_eval_run_takes_a_derived_release_by_name_at_version(db: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--db", str(db), "eval", "run", "--model", "reference", "--release", "back-rel@1",
                 "--shots", "0", "--tasks", "reasoning,final", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    run = int(out["run"])
    with Store(db) as s:
        rows = s.query("SELECT task, COUNT(*) AS n, SUM(status = 'error') AS e FROM eval_outputs "
                       "WHERE run_id = ? GROUP BY task", (run,))
    assert {r["task"]: (r["n"], r["e"]) for r in rows} == {"reasoning": (6, 0), "final": (6, 0)}
