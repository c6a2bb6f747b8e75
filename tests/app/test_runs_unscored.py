"""The runs screen on a run answered and not scored (issue 30.5: ``eval run --no-score`` left
it reading ``done``): it reads ``unscored``, says Enter scores it, and Enter makes it ``done``.
A real database, the real runner (reference backend) and a pilot."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from db import Store
from qcstation.app import make_app
from qcstation.eval.evaluate import run_and_score
from qcstation.eval.runs import create_run
from tests.app.conftest import ANNOTATOR, flat, make_config, screen_text, settle

SIZE = (80, 24)


async def until(pilot: Pilot[Any], done: Any, timeout_s: float = 300.0) -> None:
    """Let the app run until ``done()`` holds (a bound for a loaded machine, not a pace)."""
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline, "the app never got there"
        await pilot.pause(0.05)


async def test_an_unscored_run_reads_so_and_enter_scores_it(qc_db: Path) -> None:
    """Issue 30.5: a run answered and not scored (``eval run --no-score``) read ``done``; the
    runs screen shows it ``unscored``, says Enter scores it, and Enter makes it ``done``."""
    cfg = make_config()
    with Store(qc_db) as store:
        run_id = create_run(store, cfg, model="reference", tasks=["final"], shots=0, limit=8)
    answered = await asyncio.to_thread(run_and_score, qc_db, run_id, cfg, score=False)   # a loop of its own
    assert answered.progress.status == "unscored"
    app = make_app(qc_db, config=cfg, account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        await until(pilot, lambda: "#1 reference working set unscored 8/8" in flat(screen_text(app)))
        assert "Answered, not scored" in flat(screen_text(app))
        await pilot.press("enter")
        await until(pilot, lambda: "#1 reference working set done 8/8" in flat(screen_text(app)))
    with Store(qc_db) as store:
        assert store.scalar("SELECT status FROM eval_runs WHERE id = ?", (run_id,)) == "done"
        assert store.scalar("SELECT COUNT(*) FROM eval_scores WHERE run_id = ?", (run_id,)) > 0
