"""The one run-and-score sequence (qcstation.eval.evaluate), on the shipped sample generated
offline into a real SQLite file, the reference backend, real Z3 and the real answer checker."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from db import Store
from qcstation.eval import evaluate, scorers
from qcstation.eval.evaluate import run_and_score
from qcstation.eval.runs import create_run, finished_runs
from tests.eval_helpers import config, copy_db, quickstart_db


@pytest.fixture
def qs_db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_db(quickstart_db(tmp_path_factory.getbasetemp()), tmp_path / "eval.db")


def _scores(db: Path, run_id: int) -> dict[tuple[int, int, str], str]:
    with Store(db) as s:
        return {(int(r["seed_id"]), int(r["sample_idx"]), r["metric"]): r["verdict"] for r in s.query(
            "SELECT seed_id, sample_idx, metric, verdict FROM eval_scores WHERE run_id = ?", (run_id,))}


def test_run_then_score_the_same_rows_as_the_two_passes(qs_db: Path) -> None:
    cfg = config()
    with Store(qs_db) as s:
        one = create_run(s, cfg, model="reference", shots=0, limit=8)
        two = create_run(s, cfg, model="reference", shots=0, limit=8)
    seen: list[Any] = []
    outcome = run_and_score(qs_db, one, cfg, on_scoring=seen.append)
    assert outcome.progress.status == "done" and outcome.note is None
    assert seen == [outcome.progress]                    # told once, as scoring starts
    assert outcome.scores is not None and outcome.scores.counts["re"] == {"correct": 8}
    from qcstation.eval.runner import execute_run

    execute_run(qs_db, two, cfg)
    scorers.score_run(qs_db, two, cfg)
    a, b = _scores(qs_db, one), _scores(qs_db, two)
    # every metric of every item, as apart: un, re, ar, ar_s, fi, fi_s, rt, rt_s, rm, rm_s (rt_s since 27.1)
    assert {m for (_i, _k, m) in a} == {"un", "re", "ar", "ar_s", "fi", "fi_s", "rt", "rt_s", "rm", "rm_s"}
    assert len(a) == 8 * 10 and a == b
    assert set(a.values()) == {"correct", "not_scored"}  # no judge: Understanding not scored


def test_no_score_and_cancel_leave_the_run_unscored(qs_db: Path) -> None:
    cfg = config()
    with Store(qs_db) as s:
        plain = create_run(s, cfg, model="reference", shots=0, limit=4, tasks=["final"])
        stopped = create_run(s, cfg, model="reference", shots=0, limit=4, tasks=["final"])
    outcome = run_and_score(qs_db, plain, cfg, score=False,
                            on_scoring=lambda p: pytest.fail("no scoring pass without score"))
    assert outcome.progress.status == "unscored" and outcome.scores is None
    assert _scores(qs_db, plain) == {}                   # nothing scored live either
    with Store(qs_db) as s:   # answered, not scored: not `done`, not on the default board (issue 30.5)
        assert s.scalar("SELECT status FROM eval_runs WHERE id = ?", (plain,)) == "unscored"
        assert plain not in finished_runs(s)
    again = run_and_score(qs_db, plain, cfg)             # resuming it scores it, asks nothing
    assert again.progress.status == "done" and again.scores is not None and _scores(qs_db, plain)
    with Store(qs_db) as s:
        assert s.scalar("SELECT status FROM eval_runs WHERE id = ?", (plain,)) == "done"
        assert plain in finished_runs(s)
    cancel = threading.Event()
    cancel.set()
    outcome = run_and_score(qs_db, stopped, cfg, cancel=cancel)
    assert outcome.progress.status == "interrupted" and outcome.scores is None
    assert outcome.progress.done == 0


def test_a_missing_scorer_package_is_a_note_only_where_asked(qs_db: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = config()
    with Store(qs_db) as s:
        run = create_run(s, cfg, model="reference", shots=0, limit=3, tasks=["final"])

    def missing(*_a: Any, **_k: Any) -> Any:
        raise ModuleNotFoundError("No module named 'math_verify'", name="math_verify")

    monkeypatch.setattr(evaluate, "score_run", missing)
    with pytest.raises(ModuleNotFoundError):
        run_and_score(qs_db, run, cfg)
    with Store(qs_db) as s:                              # answered, its scoring failed: unscored
        assert s.scalar("SELECT status FROM eval_runs WHERE id = ?", (run,)) == "unscored"
    outcome = run_and_score(qs_db, run, cfg, missing_scorer_ok=True)
    assert outcome.scores is None and outcome.note is not None
    assert outcome.progress.status == "unscored"
    assert "math_verify" in outcome.note and "qcstation eval score" in outcome.note


def test_a_scored_outcome_carries_the_figures_the_store_holds(qs_db: Path) -> None:
    from qcstation.eval.metrics import leaderboard

    cfg = config()
    with Store(qs_db) as s:
        run = create_run(s, cfg, model="reference", shots=0, limit=5, tasks=["final", "arithmetic"])
    plain = run_and_score(qs_db, run, cfg, score=False, figures=True)
    assert plain.figures is None                         # not scored: nothing to carry
    outcome = run_and_score(qs_db, run, cfg, figures=True)
    assert outcome.figures is not None and outcome.figures.metrics is not None
    with Store(qs_db) as s:
        assert outcome.figures.counts == scorers.summarize_verdicts(s, run)
        (row,) = leaderboard(s, [run])
    assert outcome.figures.counts["fi"] == {"correct": 5}
    assert outcome.figures.metrics.values["fi"].value == 1.0
    assert outcome.figures.metrics == row
    assert run_and_score(qs_db, run, cfg).figures is None   # only where asked
