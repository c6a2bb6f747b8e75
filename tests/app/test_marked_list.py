"""The line Enter would run reads without colour: the highlighted option of the reject
reasons and of the dashboard's "Needs attention" list has a mark of its own (Textual shows it
by colour only: walked at 80x24 in tmux, Down and Enter ran another line than the one meant)."""

from __future__ import annotations

from pathlib import Path

from qcstation.app import make_app
from qcstation.widgets.dashboard_panels import AttentionList
from qcstation.widgets.marked_list import CURSOR_MARK
from screens.dialogs.reject_reason import RejectReasonModal
from tests.app.conftest import ANNOTATOR, make_config, screen_text, settle


def _marked(app) -> list[str]:
    return [line for line in screen_text(app).splitlines() if CURSOR_MARK in line]


async def test_the_reject_reasons_mark_the_highlighted_one(qc_db: Path) -> None:
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR, review="arithmetic")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, RejectReasonModal)
        marked = _marked(app)
        assert len(marked) == 1 and f"{CURSOR_MARK} 1  changes the answer" in marked[0], marked
        await pilot.press("down")
        await settle(pilot)
        marked = _marked(app)
        assert len(marked) == 1 and f"{CURSOR_MARK} 2  story words left in" in marked[0], marked


async def test_needs_attention_marks_the_line_enter_runs(qc_db: Path) -> None:
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        attention = app.screen.query_one("#attention", AttentionList)
        assert len(attention.items) >= 2, attention.items
        attention.focus()
        attention.highlighted = 0
        await settle(pilot)
        marked = _marked(app)
        assert len(marked) == 1 and f"{CURSOR_MARK} {attention.items[0].text[:30]}" in marked[0], marked
        await pilot.press("down")
        await settle(pilot)
        marked = _marked(app)
        assert len(marked) == 1 and f"{CURSOR_MARK} {attention.items[1].text[:30]}" in marked[0], marked
