"""Pilot test: a model-made Reasoning artifact is reviewed in the app by default, its pane
showing who made it and every flag (issue 31.4), at 80x24 on a real SQLite file."""

from __future__ import annotations

from pathlib import Path

from db import Store
from qcstation.app import make_app
from qcstation.core.review.sampling import draw_sample
from screens.review import ReviewScreen
from tests import factories as f
from tests.app.conftest import make_config, settle, static_text
from tests.core.release.test_flag_gate import _flag_reasoning


async def test_model_made_reasoning_is_reviewed_with_its_flags_and_maker(tmp_path: Path) -> None:
    db = tmp_path / "qc.db"
    with Store(db) as store:
        seeds = f.populate(store, {"gsm8k": 8})
        _flag_reasoning(store, seeds[0], model="weak-gen")
        draw_sample(store, "reasoning", rate=1.0, rng_seed=3, actor="curator")
    config = make_config()   # the default [qc] dimensions: arithmetic, understanding
    app = make_app(db, config=config, account="bob", review="reasoning")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "reasoning" in app.settings.dimensions      # joined: a model made one
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.item is not None
        while screen.item.seed_id != seeds[0]:
            await pilot.press("n")
            await settle(pilot)
        from qcstation.widgets.review_views import ArtifactView

        pane = " ".join(static_text(screen.query_one(ArtifactView)).split())
        assert "made by model weak-gen" in pane
        assert "flag (blocks the release until fixed or overridden)" in pane
        for flag in screen.item.flags or []:
            assert str(flag["code"]) in pane
