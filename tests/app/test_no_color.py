"""With NO_COLOR (a monochrome terminal) every cursor is still seen: tables and option lists
draw theirs in reverse video, not by a background colour alone (issue 28.4; walk7 walked the
curator queue with NO_COLOR=1: the highlighted row, the item the pane below shows, differed
from the others by a shade of grey and bold, as the header row is bold)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from qcstation.app import make_app
from screens.queue import QueueScreen
from tests.app.conftest import make_config, open_screen, settle
from tests.app.test_eval_screens import eval_db  # noqa: F401


def _cursor_line_reversed(table: DataTable) -> bool:
    strip = table.render_line(1 + table.cursor_row)          # line 0: the header
    return any(seg.style is not None and seg.style.reverse for seg in strip
               if seg.text.strip())


@pytest.mark.parametrize("no_color", [True, False])
async def test_the_queues_cursor_is_drawn_in_reverse_without_colour(
        qc_db: Path, monkeypatch: pytest.MonkeyPatch, no_color: bool) -> None:
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    app = make_app(qc_db, config=make_config(curators=["carol"]), account="carol")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.no_color is no_color
        await pilot.press("c")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueueScreen)
        table = screen.query_one("#queue_table", DataTable)
        assert table.row_count > 1
        await pilot.press("slash")                  # the filter has the focus: the rows' too
        await settle(pilot)
        assert not table.has_focus
        assert _cursor_line_reversed(table) is no_color
        await pilot.press("down")                   # the rows have the focus
        await settle(pilot)
        assert table.has_focus
        assert _cursor_line_reversed(table) is no_color


@pytest.mark.parametrize("no_color", [True, False])
async def test_the_focused_pane_is_told_by_its_border_without_colour(
        eval_db: Path, monkeypatch: pytest.MonkeyPatch, no_color: bool) -> None:
    """The results' rows and item pane, focused or not, differed by their border's colour
    alone (round either way): with NO_COLOR the focused one's border is double."""
    from screens.results import ResultsScreen

    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    app = make_app(eval_db, config=make_config(), account="ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, ResultsScreen())
        table = app.screen.query_one("#results_table")
        pane = app.screen.query_one("#item_pane")
        focused = "double" if no_color else "round"
        assert table.has_focus
        assert (table.styles.border_top[0], pane.styles.border_top[0]) == (focused, "round")
        await pilot.press("tab")
        await settle(pilot)
        assert pane.has_focus or pane.has_focus_within
        assert (table.styles.border_top[0], pane.styles.border_top[0]) == ("round", focused)
