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


# -- the one-line cells drawn without Rich's layers: the same segments as DataTable's route --
_WORDS = ["#1", "model-a", "gsm8k-12~3", "wrong", "correct", "87%", "–", "…", "", " ",
          "a long run name that the column cuts", "数学", "ünïcödé", "x" * 30, "0.500"]
_STYLES = [None, "bold", "red", "dim italic", "reverse", "on blue", "bold #ff8800 on #002244"]


def _random_cell(rng: Any) -> Text:
    text = Text(rng.choice(_WORDS), style=rng.choice(_STYLES) or "",
                justify=rng.choice([None, "left", "right", "center", "full", "default"]),
                overflow=rng.choice([None, "fold", "crop", "ellipsis", "ignore"]),
                no_wrap=rng.choice([None, True, False]), end=rng.choice(["\n", ""]))
    if text.plain and rng.random() < 0.5:          # a span inside the text
        start = rng.randrange(len(text.plain))
        text.stylize(rng.choice(_STYLES[1:]) or "bold", start, rng.randint(start, len(text.plain)))
    if rng.random() < 0.2:
        text.append(rng.choice(_WORDS), style=rng.choice(_STYLES) or None)
    return text


def _frame(table: FixedTable) -> list[list[Any]]:
    """Every line the table draws (header, rows, the filler right of the columns), as
    segments: text, style (colours, attributes, meta) and control."""
    region = table.size
    return [list(strip) for strip in table.render_lines(
        __import__("textual.geometry", fromlist=["Region"]).Region(0, 0, region.width,
                                                                   region.height))]


async def test_one_line_cells_draw_the_segments_of_the_data_table_route() -> None:
    """Many random tables (cell texts with styles, spans, every justify and overflow, wide
    and cut texts, empty cells; cell padding 0-2; zebra stripes; row, cell and column
    cursors; fixed rows and columns; with and without the header; the cursor moved; the
    hover cell): the fast route's segments equal DataTable's, line by line, and with the
    content kept from the page before (a cell seen again is not rendered again)."""
    import random

    from textual.coordinate import Coordinate

    rng = random.Random(28_7)
    app = TwoTables()
    async with app.run_test(size=(90, 30)) as pilot:
        table = app.query_one("#fixed", FixedTable)
        compared = 0
        for case in range(60):
            n_cols, n_rows = rng.randint(1, 6), rng.randint(0, 14)
            table.clear(columns=True)
            table.cell_padding = rng.choice([0, 1, 1, 2])
            table.zebra_stripes = rng.random() < 0.5
            table.show_header = rng.random() < 0.8
            table.cursor_type = rng.choice(["row", "cell", "column", "none"])
            table.fixed_rows = 0
            table.fixed_columns = rng.choice([0, 0, 1])
            for c in range(n_cols):
                table.add_column(_random_cell(rng) if rng.random() < 0.3 else f"C{c}",
                                 key=f"c{c}", width=rng.choice([1, 3, 6, 12, 20]))
            for r in range(n_rows):
                table.add_row(*(_random_cell(rng) for _ in range(n_cols)), key=f"r{r}")
            table.apply_dimensions()
            table.fixed_rows = rng.choice([0, 0, 1]) if n_rows else 0
            if n_rows:
                table.move_cursor(row=rng.randrange(n_rows), column=rng.randrange(n_cols))
            if rng.random() < 0.3 and n_rows:
                table.hover_coordinate = Coordinate(rng.randrange(n_rows), rng.randrange(n_cols))
            await pilot.pause()
            for _ in range(2):      # then again: cells from the kept lines
                table.fast_cells = True
                table._clear_caches()
                fast = _frame(table)
                table.fast_cells = False
                table._clear_caches()
                slow = _frame(table)
                assert fast == slow, case
                compared += sum(len(line) for line in fast)
        table.fast_cells = True
        assert compared > 5000


async def test_rows_added_at_once_are_the_rows_add_row_adds() -> None:
    """set_rows adds a FixedTable's rows in one step (issue 28, the results' r and x at 1M
    scores): the table holds what DataTable's add_row, row by row, gives it (rows, cells,
    order, cursor, the first row's highlight), and the cursor's watchers run once a page,
    not once a row (each row set the cursor again: a screen's watcher ran 50 times a page)."""
    highlighted: list[tuple[str | None, int]] = []

    class Recorded(TwoTables):
        def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
            highlighted.append((event.data_table.id, event.cursor_row))

    app = Recorded()
    async with app.run_test(size=(80, 24)) as pilot:
        plain = app.query_one("#plain", DataTable)
        fixed = app.query_one("#fixed", FixedTable)
        plain.cursor_type = fixed.cursor_type = "row"
        await pilot.pause()
        highlighted.clear()
        seen: list[Any] = []
        fixed.watch(fixed, "cursor_coordinate", lambda new: seen.append(new), init=False)
        set_rows(plain, COLUMNS, ROWS, KEYS)
        set_rows(fixed, COLUMNS, ROWS, KEYS)
        assert len(seen) == 2, len(seen)          # the clear's, the rows'; 41 before
        await pilot.pause()
        assert [r.value for r in fixed.rows] == [r.value for r in plain.rows] == KEYS
        assert [fixed.get_row_at(i) for i in range(40)] == [plain.get_row_at(i) for i in range(40)]
        assert fixed._update_count >= 40 and fixed.cursor_coordinate == plain.cursor_coordinate
        assert sorted(highlighted) == [("fixed", 0), ("plain", 0)], highlighted
        with pytest.raises(data_table_module.DuplicateKey):
            fixed.add_many([(ROWS[0], "k1")])


async def test_a_page_shown_again_draws_its_kept_lines_and_a_change_is_drawn_anew() -> None:
    """Rows shown again where they were (a page, another, the first again) draw the lines
    they drew, not their cells, and those lines are DataTable's; a cell changed, the cursor
    or the hover moved, the focus gone, each draws the lines it changes anew, right."""
    from textual.coordinate import Coordinate

    app = TwoTables()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one("#fixed", FixedTable)
        table.cursor_type, table.zebra_stripes = "row", True
        drawn: list[Any] = []
        draw = table._render_line_in_row

        def counted(row_key: Any, *args: Any, **kwargs: Any) -> Any:
            drawn.append(row_key.value)
            return draw(row_key, *args, **kwargs)

        table._render_line_in_row = counted  # type: ignore[method-assign]

        def right() -> list[list[Any]]:
            """The table's lines, checked against DataTable's route."""
            fast = _frame(table)
            table.fast_cells = False
            slow = _frame(table)
            table.fast_cells = True
            table._clear_caches()
            assert fast == slow
            return fast

        other = [(Text("#9 other"), Text("mawps-3"), Text("correct"))] * 40
        set_rows(table, COLUMNS, ROWS, KEYS)
        await pilot.pause()
        first = right()
        set_rows(table, COLUMNS, other, [f"o{i}" for i in range(40)])
        await pilot.pause()
        assert right() != first
        drawn.clear()
        set_rows(table, COLUMNS, ROWS, KEYS)
        await pilot.pause()                                    # painted
        assert _frame(table) == first and drawn == []          # from its kept lines
        assert right() == first
        drawn.clear()
        table.update_cell("k2", "verdict", Text("error"))        # a cell changed
        await pilot.pause()
        changed = _frame(table)
        assert "k2" in drawn and " error " in "".join(s.text for s in changed[2])
        assert right() == changed
        for move in (lambda: table.move_cursor(row=3),
                     lambda: setattr(table, "hover_coordinate", Coordinate(5, 0)),
                     lambda: app.set_focus(None)):
            move()
            await pilot.pause()
            right()


async def test_rows_in_columns_as_they_were_keep_the_columns(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A page whose columns are the table's (labels, keys) replaces the rows only, the columns
    as wide as its cells (a wider cell widens its column); other columns are made again."""
    app = TwoTables()
    async with app.run_test(size=(80, 24)) as pilot:
        fixed = app.query_one("#fixed", FixedTable)
        set_rows(fixed, COLUMNS, ROWS, KEYS)
        await pilot.pause()
        added: list[Any] = []
        add_column = fixed.add_column

        def counted(*args: Any, **kwargs: Any) -> Any:
            added.append(args)
            return add_column(*args, **kwargs)

        monkeypatch.setattr(fixed, "add_column", counted)
        same = [(Text(f"#{i} model-{i}"), Text(f"gsm8k-{i * 41}"), Text("correct"))
                for i in range(1, 41)]
        set_rows(fixed, COLUMNS, same, [f"s{i}" for i in range(40)])
        await pilot.pause()
        assert added == []
        assert [str(fixed.get_row_at(i)[1]) for i in (0, 39)] == ["gsm8k-41", "gsm8k-1640"]
        assert [c.width for c in fixed.ordered_columns] == widths(["Run", "Item", "Verdict"],
                                                                  same)
        wider = [(Text("#1 a much longer model name"), Text("gsm8k-1"), Text("wrong"))]
        set_rows(fixed, COLUMNS, wider, ["w1"])
        await pilot.pause()
        assert added == [] and [c.width for c in fixed.ordered_columns] == [27, 7, 7]
        assert "#1 a much longer model name" in screen_text(app)
        assert fixed.virtual_size.width == 27 + 7 + 7 + 3 * 2 * fixed.cell_padding
        # other columns: made again
        set_rows(fixed, (("Name", "name"), ("Run", "run")), [(Text("x"), Text("y"))], ["n"])
        await pilot.pause()
        assert [a[0] for a in added] == ["Name", "Run"]
        assert [str(c.label) for c in fixed.ordered_columns] == ["Name", "Run"]


async def test_a_paint_of_new_rows_reads_the_tables_styles_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A paint of new rows takes the table's style, its background and each component's style
    once, not at every line (each a walk of every ancestor's styles: DataTable reads the
    header's at every line), and draws what DataTable's route draws."""
    from textual.dom import DOMNode

    app = TwoTables()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one("#fixed", FixedTable)
        table.cursor_type, table.zebra_stripes = "row", True
        set_rows(table, COLUMNS, ROWS, KEYS)
        await pilot.pause()
        walks: list[str] = []
        style, backgrounds = DOMNode.rich_style, DOMNode.background_colors

        def walked_style(node: DOMNode) -> Any:
            walks.append("style")
            return style.fget(node)  # type: ignore[attr-defined]

        def walked_backgrounds(node: DOMNode) -> Any:
            walks.append("background")
            return backgrounds.fget(node)  # type: ignore[attr-defined]

        monkeypatch.setattr(DOMNode, "rich_style", property(walked_style))
        monkeypatch.setattr(DOMNode, "background_colors", property(walked_backgrounds))
        fresh = [(Text(f"#{i} fresh"), Text(f"mawps-{i}"), Text("wrong")) for i in range(40)]
        set_rows(table, COLUMNS, fresh, [f"f{i}" for i in range(40)])
        lines = _frame(table)
        assert len(lines) == table.size.height >= 10
        assert walks.count("style") <= 6 and walks.count("background") <= 1, walks
        monkeypatch.undo()
        table.fast_cells = False
        table._clear_caches()
        assert _frame(table) == lines
