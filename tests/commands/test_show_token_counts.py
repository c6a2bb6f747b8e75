"""eval show says when a run's token counts are not known (issue 30.5, lane attack30): a
server that sends no usage left 'spent 0 prompt + 0 completion tokens' for a run of replies,
a figure that could not be computed shown as 0. Real loopback server, real SQLite, real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from db import Store
from qcstation.eval.runner import execute_run
from qcstation.eval.runs import create_run
from tests.conftest import ROOT
from tests.eval_helpers import config, copy_db, local_model, quickstart_db
from tests.fake_openai import FakeOpenAI, fake_openai  # noqa: F401


def _show(db: Path, run_id: int) -> str:
    out = subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), "eval", "show", str(run_id)],
                         capture_output=True, text=True, cwd=ROOT, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_a_run_whose_replies_came_with_no_token_count_says_so(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, fake_openai: FakeOpenAI) -> None:
    db = copy_db(quickstart_db(tmp_path_factory.getbasetemp()), tmp_path / "eval.db")
    priced = {"price_in_per_mtok": 1.0, "price_out_per_mtok": 2.0, "retries": 0, "concurrency": 1}
    cfg = config({"m": local_model(fake_openai.base_url, max_tokens=64, **priced),
                  "m2": local_model(fake_openai.base_url, max_tokens=64, model="other", **priced)})
    fake_openai.hostile(text="18", usage={})                                   # no usage at all
    with Store(db) as s:
        silent = create_run(s, cfg, model="m", tasks=["final"], shots=0, limit=3)
    execute_run(db, silent, cfg)
    fake_openai.hostile(text="18", usage={"prompt_tokens": 12, "completion_tokens": 3})
    with Store(db) as s:
        counted = create_run(s, cfg, model="m2", tasks=["final"], shots=0, limit=3)
    execute_run(db, counted, cfg)
    text = _show(db, silent)
    assert "3 replies came with none: their tokens and cost are not known" in text, text
    assert "spent 0 prompt + 0 completion tokens (all" not in text, text
    text = _show(db, counted)               # counts the server sent: shown as before
    assert "spent 36 prompt + 9 completion tokens, $0.0001 (all sessions" in text, text
    assert "not known" not in text, text
