"""The dashboard's highlight after a pushed screen (issue 28, lane ui28): Esc back from the
queue, review or any screen rebuilds 'Needs attention', and the highlight must stay on the
line the user was on, told apart from its neighbours by everything Enter acts on (the queue's
state filter, the set), not only by its action and dimension."""

from __future__ import annotations

from pathlib import Path

import pytest

from db import Store
from qcstation.app import make_app
from qcstation.core.review.curation import queue, resolve_item
from qcstation.core.review.decisions import decide, next_item
from qcstation.core.review.sampling import draw_sample
from qcstation.widgets.dashboard_panels import AttentionList
from screens.dashboard import DashboardScreen
from screens.queue import QueueScreen
from tests.app.conftest import make_config, settle
from tests.factories import populate

SIZE = (80, 24)


def _rejects_and_disagreements(db: Path) -> None:
    """A notation sample, every item reviewed by ann and bob: ann rejects the two overlap
    items (bob accepts: two disagreements) and one other item (an open reject)."""
    with Store(db) as store:
        populate(store, {"gsm8k": 20})
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=2, actor="lead", overlap_rate=0.1)
        rejected_one = False
        while (item := next_item(store, "ann", "arithmetic")) is not None:
            reject = item.overlap or not rejected_one
            rejected_one = rejected_one or not item.overlap
            decide(store, item.item_id, "ann", "reject" if reject else "accept",
                   "changes the answer" if reject else None)
        while (item := next_item(store, "bob", "arithmetic")) is not None:
            decide(store, item.item_id, "bob", "accept")


async def test_esc_back_from_the_queue_keeps_the_highlight_on_its_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The disagreements' line and the open reject's line both open the queue on the same
    dimension (states 'disagreed' and 'rejected'). Enter on the disagreements, one settled,
    Esc: the line now reads '1 disagreement' and the highlight must be on it, not on the
    rejects' line above it (found by action and dimension alone, the first match won)."""
    monkeypatch.setattr(DashboardScreen, "AUTO_REFRESH_S", 0.0)
    db = tmp_path / "qc.db"
    _rejects_and_disagreements(db)
    app = make_app(db, config=make_config(), account="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        attention = app.screen.query_one("#attention", AttentionList)
        states = [(i.action, i.state) for i in attention.items]
        assert ("queue", "rejected") in states and ("queue", "disagreed") in states, states
        at = states.index(("queue", "disagreed"))
        await pilot.press(*["down"] * (at - (attention.highlighted or 0)))
        assert attention.highlighted == at
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, QueueScreen)
        with Store(db) as store:                    # the curator settles one of the two
            one = queue(store, state="disagreed")[0]
            resolve_item(store, one.item_id, kind="settle", verdict="accept",
                         reason="the reject misread it", actor="alice", curators=["alice"])
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, DashboardScreen)
        chosen = attention.items[attention.highlighted or 0]
        assert (chosen.action, chosen.state) == ("queue", "disagreed"), (
            chosen, [i.text for i in attention.items])
        assert chosen.text.startswith("1 disagreement"), chosen.text
