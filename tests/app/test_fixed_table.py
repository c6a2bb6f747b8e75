"""FixedTable: a DataTable with fixed column widths that does not measure its rows, and
draws and scrolls as the DataTable it replaces (issue 28.7: the results browser measured its
page's 300 cells at every page turn)."""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable

import textual.widgets._data_table as data_table_module
from qcstation.widgets.fixed_table import FixedTable, set_rows, widths
from tests.app.conftest import screen_text

COLUMNS = (("Run", "run"), ("Item", "item"), ("Verdict", "verdict"))
ROWS = [(Text(f"#{i} model-{i}"), Text(f"gsm8k-{i * 37}"), Text("wrong" if i % 3 else "correct"))
        for i in range(1, 41)]
KEYS = [f"k{i}" for i in range(1, 41)]


class TwoTables(App[None]):
    CSS = "DataTable { height: 12; }"

    def compose(self) -> ComposeResult:
        yield DataTable(id="plain")
        yield FixedTable(id="fixed")


def test_widths_are_the_widest_cell_or_the_label() -> None:
    assert widths(["Run", "Item", "Verdict"], ROWS) == [12, 10, 7]
    assert widths(["Run", "Item"], []) == [3, 4]


async def test_a_fixed_table_draws_and_sizes_as_a_data_table_without_measuring(
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = TwoTables()
    async with app.run_test(size=(80, 24)) as pilot:
        plain = app.query_one("#plain", DataTable)
        fixed = app.query_one("#fixed", FixedTable)
        set_rows(plain, COLUMNS, ROWS, KEYS)
        await pilot.pause()
        measured: list[Any] = []
        real = data_table_module.measure
        def counted(*args: Any, **kwargs: Any) -> int:
            measured.append(args)
            return real(*args, **kwargs)

        monkeypatch.setattr(data_table_module, "measure", counted)
        set_rows(fixed, COLUMNS, ROWS, KEYS)
        await pilot.pause()
        await pilot.pause()
        # the columns' labels are measured as they are added; no row's cell is
        assert measured and {str(a[1]) for a in measured} <= {"Run", "Item", "Verdict"}
        assert fixed.virtual_size == plain.virtual_size
        assert [c.get_render_width(fixed) for c in fixed.ordered_columns] == \
            [c.get_render_width(plain) for c in plain.ordered_columns]
        text = [line.rstrip() for line in screen_text(app).splitlines()]
        # both tables show the same rows, whole ('#1 model-1  gsm8k-37  wrong')
        assert text[:12] == text[12:24]
        assert text[1].split() == ["#1", "model-1", "gsm8k-37", "wrong"]
        fixed.move_cursor(row=39)
        await pilot.pause()
        await pilot.pause()
        assert fixed.scroll_y == fixed.max_scroll_y > 0       # the last row scrolled into view


async def test_a_column_sized_by_its_cells_is_still_measured() -> None:
    app = TwoTables()
    async with app.run_test(size=(80, 24)) as pilot:
        fixed = app.query_one("#fixed", FixedTable)
        fixed.add_column("Run", key="run")                   # no width: measured
        fixed.add_column("Item", key="item", width=4)
        fixed.add_row(Text("#12 a long model name"), Text("gsm8k-1"))
        await pilot.pause()
        await pilot.pause()
        assert fixed.ordered_columns[0].content_width == len("#12 a long model name")
        assert fixed.virtual_size.width == len("#12 a long model name") + 4 + 4
