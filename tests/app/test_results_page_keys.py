"""The results browser's page keys (``m`` cycles the metric, ``x`` clears the filters) show
the new rows and the first row's item, whole and right, and an item shown before is shown
again as it was rendered: not rendered, wrapped nor painted again (issue 28: at 1M scores
``m`` and ``x`` spent ~5 ms of CPU re-rendering the item the page before had shown)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.geometry import Region

from qcstation.app import make_app
from qcstation.widgets import eval_views
from qcstation.widgets.eval_views import SHORT, TASK_TITLES
from qcstation.widgets.fixed_table import FixedTable
from qcstation.widgets.text_pane import TextPane
from screens.results import TASK_OF, ResultsScreen
from tests.app.conftest import ANNOTATOR, make_config, open_screen, settle
from tests.must import must

SIZE = (80, 24)


def _pane_lines(pane: TextPane) -> list[str]:
    """The item pane's lines as painted."""
    return [pane.render_line(y).text.rstrip() for y in range(pane.size.height)]


def _rows_shown(table: FixedTable) -> list[str]:
    """The table's lines as painted (its border, the header, the rows), checked against
    DataTable's own route (no line kept from another page)."""
    region = Region(0, 0, table.size.width, table.size.height)
    fast = [strip.text.rstrip() for strip in table.render_lines(region)]
    table.fast_cells = False
    table._clear_caches()
    slow = [strip.text.rstrip() for strip in table.render_lines(region)]
    table.fast_cells = True
    table._clear_caches()
    assert fast == slow
    return fast


def _first_task(lines: list[str]) -> str:
    """The title of the first task the pane shows."""
    titles = set(TASK_TITLES.values())
    return next(t for line in lines for t in titles if line.strip().startswith(t))


async def test_m_and_x_show_the_first_rows_item_its_metrics_task_first_rendered_once(
        one_run: tuple[Path, int], monkeypatch: pytest.MonkeyPatch) -> None:
    db, run_id = one_run
    rendered: list[Any] = []
    render_item = eval_views.render_item

    def counted(detail: Any, **kw: Any) -> Any:
        rendered.append((detail, kw.get("first_task")))
        return render_item(detail, **kw)

    monkeypatch.setattr(eval_views, "render_item", counted)
    app = make_app(db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, ResultsScreen((run_id,)))
        pane = screen.query_one("#item_pane", TextPane)
        first = must(screen.page).rows[0]
        seen = {(id(screen.detail), TASK_OF[first.metric])}
        shown: dict[str | None, list[str]] = {None: _pane_lines(pane)}
        # m, m (the first metric's page, then the second's: its task first) and x, twice
        for round_ in (1, 2):
            for key in ("m", "m", "x"):
                rendered.clear()
                await pilot.press(key)
                await settle(pilot)
                row = must(screen.page).rows[0]
                assert row.metric == (screen.filters.metric or first.metric)
                assert (row.run_id, row.seed_id, row.sample_idx) == (
                    first.run_id, first.seed_id, first.sample_idx)
                table = screen.query_one("#results_table", FixedTable)
                rows = _rows_shown(table)
                assert rows[0].startswith("╭") and rows[1].split()[1:3] == ["Run", "Item"]
                assert len(rows) > 5
                for line, shown_row in zip(rows[2:-1], must(screen.page).rows):
                    assert shown_row.item_key in line and SHORT[shown_row.metric] in line
                    assert shown_row.verdict in line or "/100" in line
                lines = _pane_lines(pane)
                assert first.item_key in lines[0]
                assert _first_task(lines) == TASK_TITLES[TASK_OF[row.metric]]
                # rendered the first time it shows with this task first, never again
                new = (id(screen.detail), TASK_OF[row.metric]) not in seen
                assert rendered == ([(screen.detail, TASK_OF[row.metric])] if new else [])
                assert new == (round_ == 1 and key == "m" and screen.filters.metric != "un")
                seen.add((id(screen.detail), TASK_OF[row.metric]))
                if round_ == 2:
                    assert lines == shown[screen.filters.metric]
                shown[screen.filters.metric] = lines
        assert shown[None] != shown["re"]           # another task first
