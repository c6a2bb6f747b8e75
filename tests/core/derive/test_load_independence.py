"""A derived set does not depend on the machine's load: the same parents and parameters give the
same items and refusals on a quiet and on a busy machine. Derive's Z3 checks are decided by Z3's
resource count (``STEADY_RLIMIT`` units), the wall clock is only a safety net, and a check the
clock stops first stops the run with an error (its batch not stored, to be resumed), never a
refusal or a missing item. Nothing here depends on timing: the busy machine is made by a
``[verify] timeout_s`` of a millisecond, and by Z3 workers that are stopped (SIGSTOP), which
answer nothing however long they are given. Real SQLite, real Z3."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
from pathlib import Path

import pytest

from db import Store
from qcstation.common.config import load_config
from qcstation.core.derive.runner import run_derive, verify_limits
from qcstation.core.derive.store import DeriveError
from qcstation.core.derive.transforms import Options
from qcstation.core.verify.outcome import STEADY_RLIMIT, STEADY_WALL_S, VerifyLimits
from qcstation.core.verify.pool import VerifierPool
from tests.core.derive.helpers import make_db

CFG = load_config(None, env={})
INVERSE = Options(inverse_per_seed=1, rng_seed=4)
EASY = "(declare-const answer Int) (assert (= answer (* 3 60))) (check-sat)"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_db(tmp_path_factory.mktemp("load"), ["james", "janet", "jacket"])


def _copy(template: Path, tmp_path: Path, name: str) -> Path:
    out = tmp_path / f"{name}.db"
    shutil.copy(template, out)
    return out


def _set(db: Path, name: str = "inverse") -> tuple[list[tuple], list[tuple]]:
    """(items, refusals) of a set, independent of row ids."""
    with Store(db) as s:
        items = [tuple(r.values()) for r in s.query(
            "SELECT p.orig_id, di.tag, di.answer_value, di.params, s.question FROM derived_items di "
            "JOIN seeds s ON s.id = di.seed_id JOIN seeds p ON p.id = di.parent_id JOIN "
            "derive_sets ds ON ds.id = di.set_id WHERE ds.name = ? ORDER BY p.orig_id, di.idx",
            (name,))]
        refused = [(r["orig_id"], r["status"], d["code"], d["reason"])
                   for r in s.query("SELECT p.orig_id, j.status, j.detail FROM derive_jobs j JOIN "
                                    "seeds p ON p.id = j.parent_id JOIN derive_sets ds ON "
                                    "ds.id = j.set_id WHERE ds.name = ? ORDER BY p.orig_id", (name,))
                   for d in json.loads(r["detail"])]
    return items, refused


def test_derive_checks_are_decided_by_the_resource_count() -> None:
    limits = verify_limits(CFG)
    assert limits.rlimit == STEADY_RLIMIT and limits.timeout_s >= STEADY_WALL_S
    tiny = dataclasses.replace(CFG, verify=dataclasses.replace(CFG.verify, timeout_s=0.001))
    assert verify_limits(tiny) == limits          # a tiny [verify] timeout_s changes nothing


def test_a_millisecond_of_wall_clock_changes_no_item(template: Path, tmp_path: Path) -> None:
    # before: with [verify] timeout_s = 0.001 Z3's own timer refused the inverse items as
    # z3-timeout (a busy machine did the same to one item of three with 5 s)
    quiet, busy = _copy(template, tmp_path, "quiet"), _copy(template, tmp_path, "busy")
    run_derive(quiet, CFG, kind="inverse", opts=INVERSE)
    tiny = dataclasses.replace(CFG, verify=dataclasses.replace(CFG.verify, timeout_s=0.001))
    run_derive(busy, tiny, kind="inverse", opts=INVERSE)
    items, refused = _set(quiet)
    assert len(items) == 3 and refused == []
    assert _set(busy) == (items, refused)


def test_a_check_the_clock_stops_stops_the_run_and_the_rerun_resumes(template: Path,
                                                                     tmp_path: Path) -> None:
    quiet, busy = _copy(template, tmp_path, "quiet"), _copy(template, tmp_path, "busy")
    run_derive(quiet, CFG, kind="inverse", opts=INVERSE)
    # a pool whose one worker is stopped: it answers nothing, as on a machine too busy to run
    # it; its wall-clock safety net (0.5 s) kills it and times its job out
    limits = VerifyLimits(timeout_s=60.0, wall_s=0.5, rlimit=STEADY_RLIMIT)
    with VerifierPool(workers=1, limits=limits) as pool:
        assert [o.status for o in pool.verify_many([(EASY, "180")])] == ["verified"]  # up, ready
        stopped = pool.worker_pids()
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        try:
            with pytest.raises(DeriveError, match=r"(?s)Z3 could not check the reasoning of "
                                                  r"inverse item .*too busy.*run the same derive "
                                                  r"command again"):
                run_derive(busy, CFG, kind="inverse", opts=INVERSE, pool=pool)
        finally:
            for pid in stopped:
                try:
                    os.kill(pid, signal.SIGCONT)
                except ProcessLookupError:
                    pass
    # nothing of the batch was stored, nothing refused: its parents wait to be resumed
    with Store(busy) as s:
        jobs = s.query("SELECT status, detail FROM derive_jobs")
    assert [(j["status"], j["detail"]) for j in jobs] == [("pending", "[]")] * 3
    assert _set(busy) == ([], [])
    run_derive(busy, CFG, kind="inverse", opts=INVERSE)         # the same command again
    assert _set(busy) == _set(quiet) and len(_set(quiet)[0]) == 3
