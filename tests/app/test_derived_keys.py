"""The dashboard's curator keys on a derived set's own sample and gate: `e` extends the
derived set's sample, `F` draws a fresh round of it (issue 28.1; `s` is in
test_derived_sets.py). Real SQLite, real derive (Z3), the pilot pressing keys."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from db import Store
from qcstation.app import make_app
from qcstation.core.review.curation import exclude_seed
from qcstation.core.review.decisions import decide, next_item
from qcstation.core.review.gate import gate as qc_gate
from qcstation.core.review.sampling import draw_sample, list_samples, open_sample
from screens.dashboard import DashboardScreen
from tests.app.conftest import (ANNOTATOR, derived_template, flat, make_config, notifications,
                                screen_text, settle)

SIZE = (80, 24)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three GSM8K seeds; the working set's arithmetic sample all accepted; the derived set
    dyn (variants) built, not sampled."""
    return derived_template(tmp_path_factory.mktemp("dkeys"))


@pytest.fixture
def db(template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "d.db"
    shutil.copy(template, path)
    return path


def _sizes(db: Path, scope: str) -> list[int]:
    with Store(db) as store:
        return [s.size for s in list_samples(store, "arithmetic", scope=scope)]


async def test_e_extends_the_derived_sets_sample(db: Path) -> None:
    with Store(db) as store:
        first = draw_sample(store, "arithmetic", rate=0.2, rng_seed=1, actor=ANNOTATOR,
                            min_size=1, scope="dyn")
        while (item := next_item(store, ANNOTATOR, scope="dyn")) is not None:
            decide(store, item.item_id, ANNOTATOR, "accept")
        g = qc_gate(store, "arithmetic", threshold=0.7, scope="dyn")
        assert not g.passed and g.extend_by > 0
    config = make_config(curators=[ANNOTATOR], defect_threshold=0.7, min_sample=1,
                         dimensions=["arithmetic"])
    app = make_app(db, config=config, account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, DashboardScreen)
        await pilot.press("e")                    # asks first, naming the derived set
        await settle(pilot)
        assert "Notation questions of set dyn: add" in flat(screen_text(app))
        await pilot.press("y")
        await settle(pilot)
    sizes = _sizes(db, "dyn")
    assert len(sizes) == 1 and sizes[0] > first.size           # the same sample, grown
    assert _sizes(db, "") == [3]                               # the working set's untouched


async def test_F_draws_a_fresh_round_of_the_derived_set(db: Path) -> None:  # noqa: N802
    with Store(db) as store:
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor=ANNOTATOR, min_size=1,
                    scope="dyn")
        bad = None
        while (item := next_item(store, ANNOTATOR, scope="dyn")) is not None:
            verdict = "reject" if bad is None else "accept"
            decide(store, item.item_id, ANNOTATOR, verdict, "wrong number" if bad is None else None)
            bad = bad or item
        assert bad is not None
        # the defect found is dealt with (its seed taken out): no open reject, none pending,
        # and with that defect counted the gate is out of reach at a 50% threshold (a fresh
        # round of the five items left, with no defect, can pass it)
        exclude_seed(store, bad.seed_id, reason="cannot be fixed", actor=ANNOTATOR,
                     curators=[ANNOTATOR])
        g = qc_gate(store, "arithmetic", threshold=0.5, scope="dyn")
        assert (g.defects, g.pending, g.open_rejects, g.passed) == (1, 0, 0, False)
        assert not g.plan.get("reachable", True)
        before = _sizes(db, "dyn")
    config = make_config(curators=[ANNOTATOR], defect_threshold=0.5, min_sample=1,
                         dimensions=["arithmetic"], sample_rate=0.5)
    app = make_app(db, config=config, account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("F")
        await settle(pilot)
        assert "Notation questions of set dyn: 1 defect(s) found and corrected" in \
            flat(screen_text(app))
        await pilot.press("y")
        await settle(pilot)
        assert any("Notation questions of set dyn: round 2" in n for n in notifications(app))
    with Store(db) as store:
        fresh = open_sample(store, "arithmetic", "dyn")
        assert fresh is not None and fresh.round == 2
    assert len(_sizes(db, "dyn")) == len(before) + 1
    assert _sizes(db, "") == [3]
