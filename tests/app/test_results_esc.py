"""Esc in the results browser: from the item pane to the rows, from the rows back, and the
footer saying which, after Enter and p as after Enter alone (issue 28.4)."""

from __future__ import annotations

from pathlib import Path

from qcstation.app import make_app
from screens.results import ResultsScreen
from tests.app.conftest import ANNOTATOR, make_config, screen_text, settle
from tests.app.test_eval_screens import SIZE, eval_db  # noqa: F401


async def test_enter_p_then_two_esc_leave_the_results(eval_db: Path) -> None:
    """Esc goes from the item pane to the rows, and from the rows back: after Enter and p as
    after Enter alone (it took three presses)."""
    app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ResultsScreen)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        seen = [app.focused.id if app.focused else None]
        # the footer says what Esc does where the focus is (walk9: 'esc Back' in the pane,
        # where Esc only went back to the rows)
        footer = screen_text(app).splitlines()[-1]
        assert "esc Rows" in footer and "esc Back" not in footer, footer
        await pilot.press("escape")
        await settle(pilot)
        seen.append(app.focused.id if app.focused else None)
        assert app.screen is screen and app.focused is screen.query_one("#results_table"), seen
        footer = screen_text(app).splitlines()[-1]
        assert "esc Back" in footer and "esc Rows" not in footer, footer
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is not screen, seen
