"""Metrics and report on runs made by the real runner and scored by the real scorers:
the reference backend must come out at 100% on every scored metric, Understanding (no
judge) and All-Pass as not scored, never as a number."""

from __future__ import annotations

from pathlib import Path

import pytest

from db import Store
from qcstation.eval import metrics as M
from qcstation.eval import scorers
from qcstation.eval.report import write_report
from qcstation.eval.runner import execute_run
from qcstation.eval.runs import create_run
from tests.eval_helpers import config, copy_db, quickstart_db
from tests.must import must


@pytest.fixture
def qs_db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_db(quickstart_db(tmp_path_factory.getbasetemp()), tmp_path / "eval.db")


def test_reference_runs_through_metrics_and_report(qs_db: Path, tmp_path: Path) -> None:
    cfg = config()
    with Store(qs_db) as s:
        full = create_run(s, cfg, model="reference", shots=0, limit=12, name="full")
        part = create_run(s, cfg, model="reference", shots=0, limit=12, name="part",
                          tasks=["final", "reasoning"])
    for run in (full, part):
        assert execute_run(qs_db, run, cfg).status == "unscored"
        scorers.score_run(qs_db, run, cfg)

    with Store(qs_db) as s:
        a, b = M.leaderboard(s, None, n_boot=200)             # every finished run
        assert (a.run_id, b.run_id) == (full, part)
        assert a.values["rm_ungated"].value is None        # two-step (the default): not defined
        for code in ("re", "ar", "rt", "rm", "fi", "all_no_un", "ar_s", "fi_s", "rm_s", "rt_s"):
            mv = a.values[code]
            assert (mv.value, mv.hi, mv.n) == (1.0, 1.0, 12), code
            assert 0.7 < must(mv.lo) < 1.0, code            # Wilson: never zero width at 100%
        assert a.values["un"].value is None and "no judge" in (a.values["un"].note or "")
        assert a.values["all"].value is None
        assert b.values["fi"].value == 1.0 and b.values["re"].value == 1.0
        for code in ("un", "ar", "rt", "rm", "all", "all_no_un"):
            assert b.values[code].value is None
            assert (b.values[code].note or "").startswith("not run"), code
        conf = M.confusion(s, full)
        assert all((c.tp, c.fp, c.fn, c.tn) == (12, 0, 0, 0) for c in conf.values())
        cmp_ = M.compare(s, full, part, "fi")
        assert cmp_.n == cmp_.both_correct and cmp_.p_value == 1.0
        assert cmp_.only_in_a + cmp_.n == 12
        groups = M.breakdown(s, full, "source", n_boot=0)
        assert sum(g["fi"].n for g in groups.values()) == 12
        path = write_report(s, full, tmp_path / "rep", compare=part, n_boot=100)
    text = path.read_text()
    assert "| ACC@Fi | 100.0% [75.8, 100.0] | 100.0% [75.8, 100.0] | 12 / 12 |" in text   # Wilson
    assert "| ACC@Fi | 12 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 12 |" in text
    assert "| LLM@Un | 0 | 0 | 0 | 0 | 12 | 0 | 0 | 0 | 0 | 12 |" in text      # all not scored
    assert "| release | working set |" in text
    assert "| final answer P (correct) | TP 12 (100.0%) | FN 0 (0.0%) |" in text
