"""A derive stopped from outside (the app's worker cancelled when the app quits) stops
between batches, keeps what it stored, and a later run resumes it to the same items.
walk28a: quitting the app with a derive going left a blank terminal for minutes while the
whole set was built, though the quit dialog said it stops. Real SQLite, real Z3."""

from __future__ import annotations

import shutil
from pathlib import Path

from db import Store
from qcstation.common.config import load_config
from qcstation.core.derive.runner import run_derive
from qcstation.core.derive.transforms import Options
from tests.core.derive.helpers import make_db
from tests.core.derive.test_runner import _items

CFG = load_config(None, env={})


def _pending(db: Path) -> int:
    with Store(db) as s:
        return int(s.scalar("SELECT COUNT(*) FROM derive_jobs WHERE status = 'pending'") or 0)


def test_a_cancelled_derive_stops_between_batches_and_resumes(tmp_path: Path) -> None:
    template = make_db(tmp_path / "tpl", ["james", "janet", "jacket"], copies=2)
    stopped, whole = tmp_path / "s.db", tmp_path / "w.db"
    for db in (stopped, whole):
        shutil.copy(template, db)
    opts = Options(rng_seed=5)
    stored: list[int] = []
    summary = run_derive(stopped, CFG, kind="counterfactual", opts=opts, workers=0,
                         z3_workers=1, batch=1, cancel=lambda: len(stored) >= 2,
                         progress=lambda done, total, msg: stored.append(done))
    assert summary.stopped and summary.to_dict()["stopped"] is True
    assert stored == [1, 2] and summary.jobs == 2      # before: every parent was built
    assert _pending(stopped) == 6 - 2
    again = run_derive(stopped, CFG, kind="counterfactual", opts=opts, workers=0, z3_workers=1)
    assert not again.stopped and _pending(stopped) == 0
    run_derive(whole, CFG, kind="counterfactual", opts=opts, workers=0, z3_workers=1)
    assert _items(stopped, "counterfactual") == _items(whole, "counterfactual") != []
