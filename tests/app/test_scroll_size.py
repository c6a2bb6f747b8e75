"""A scrolling widget of fixed size takes new content without a layout of its screen, unless a
scroll bar comes or goes (qcstation/widgets/scroll_size.py); a pushed screen is laid out once
for its first frame, not again for the resize its first layout sends it (screens/_base.py)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from qcstation.widgets.fixed_table import FixedTable, set_rows
from qcstation.widgets.scroll_size import sized_by_content
from qcstation.widgets.text_pane import TextPane
from screens._base import QCScreen

COLUMNS = (("Id", "id"), ("Name", "name"))


def _lines(n: int, tag: str = "line") -> Text:
    return Text("\n".join(f"{tag} {i}" for i in range(n)))


def _rows(n: int, tag: str = "r") -> tuple[list[list[Text]], list[str]]:
    return ([[Text(str(i)), Text(f"{tag}{i}")] for i in range(n)],
            [f"{tag}{i}" for i in range(n)])


class _Panes(App[None]):
    CSS = """
    #pane { height: 6; }
    #auto_pane { height: auto; max-height: 12; }
    #table { height: 6; }
    """

    def compose(self) -> ComposeResult:
        yield Static("above")
        yield TextPane(_lines(2), id="pane")
        yield TextPane(_lines(2), id="auto_pane")
        yield FixedTable(id="table")


def _layouts(screen: Screen[Any], calls: list[int]) -> None:
    original = screen._refresh_layout

    def counted(*args: Any, **kwargs: Any) -> None:
        calls.append(1)
        original(*args, **kwargs)

    screen._refresh_layout = counted  # type: ignore[method-assign]


def _shown(widget: Any, y: int) -> str:
    return "".join(seg.text for seg in widget.render_line(y)._segments)


async def test_new_content_of_a_fixed_size_pane_lays_nothing_out_unless_its_bar_changes() -> None:
    app = _Panes()
    async with app.run_test(size=(40, 30)) as pilot:
        await pilot.pause()
        pane = app.query_one("#pane", TextPane)
        calls: list[int] = []
        _layouts(app.screen, calls)
        pane.update(_lines(3, "other"))                 # fits: no bar before or after
        await pilot.pause()
        assert calls == [] and not pane.show_vertical_scrollbar
        assert "other 2" in _shown(pane, 2)
        pane.update(_lines(40))                         # a bar comes: laid out
        await pilot.pause()
        assert calls and pane.show_vertical_scrollbar
        assert pane.vertical_scrollbar.window_virtual_size == 40
        calls.clear()
        pane.update(_lines(80, "long"))                  # still a bar: none, the thumb follows
        await pilot.pause()
        assert calls == [] and pane.show_vertical_scrollbar
        assert pane.vertical_scrollbar.window_virtual_size == 80
        pane.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert pane.scroll_y == 80 - pane.scrollable_content_region.height
        assert "long 79" in _shown(pane, pane.scrollable_content_region.height - 1)
        pane.update(_lines(1, "short"))                  # the bar goes: a layout again
        await pilot.pause()
        assert calls and not pane.show_vertical_scrollbar and pane.scroll_y == 0
        assert "short 0" in _shown(pane, 0)


async def test_a_pane_sized_by_its_content_is_still_laid_out() -> None:
    app = _Panes()
    async with app.run_test(size=(40, 30)) as pilot:
        await pilot.pause()
        pane = app.query_one("#auto_pane", TextPane)
        assert sized_by_content(pane) and not sized_by_content(app.query_one("#pane"))
        calls: list[int] = []
        _layouts(app.screen, calls)
        pane.update(_lines(3, "other"))
        await pilot.pause()
        assert calls and pane.virtual_size.height == 3


async def test_a_new_page_of_a_fixed_table_lays_nothing_out_once_its_bar_is_shown() -> None:
    app = _Panes()
    async with app.run_test(size=(40, 30)) as pilot:
        await pilot.pause()
        table = app.query_one("#table", FixedTable)
        rows, keys = _rows(20)
        set_rows(table, COLUMNS, rows, keys)
        await pilot.pause()
        assert table.show_vertical_scrollbar
        calls: list[int] = []
        _layouts(app.screen, calls)
        rows, keys = _rows(30, "s")
        set_rows(table, COLUMNS, rows, keys)
        await pilot.pause()
        assert calls == [] and table.virtual_size.height == 31     # the header and 30 rows
        assert table.vertical_scrollbar.window_virtual_size == 31
        assert "s0" in _shown(table, 1)
        table.move_cursor(row=29)                          # scrolls to the last row
        await pilot.pause()
        assert table.scroll_y == 31 - table.scrollable_content_region.height
        rows, keys = _rows(2, "t")                        # the bar goes: laid out
        set_rows(table, COLUMNS, rows, keys)
        await pilot.pause()
        assert calls and not table.show_vertical_scrollbar
        assert "t1" in _shown(table, 2)


async def test_a_wider_page_of_a_table_does_not_draw_its_unchanged_bar_again() -> None:
    """Rows as many as before in wider columns: the bar's size and thumb are as they were, and
    it is not drawn again (only the rows); more rows move its thumb, and it is drawn."""
    from textual.scrollbar import ScrollBar

    app = _Panes()
    async with app.run_test(size=(40, 30)) as pilot:
        await pilot.pause()
        table = app.query_one("#table", FixedTable)
        rows, keys = _rows(20)
        set_rows(table, COLUMNS, rows, keys)
        await pilot.pause()
        bar = table.vertical_scrollbar
        assert table.show_vertical_scrollbar and bar.window_virtual_size == 21
        drawn: list[int] = []
        render = ScrollBar.render

        def counted(self: ScrollBar) -> Any:
            if self is bar:
                drawn.append(1)
            return render(self)

        ScrollBar.render = counted  # type: ignore[method-assign]
        try:
            wide = [[Text(str(i)), Text(f"a wider name {i}")] for i in range(20)]
            set_rows(table, COLUMNS, wide, [f"w{i}" for i in range(20)])
            await pilot.pause()
            assert table.virtual_size.width > len("Name") + 4 and drawn == []
            assert bar.window_virtual_size == 21 and "a wider name 0" in _shown(table, 1)
            rows, keys = _rows(30, "s")
            set_rows(table, COLUMNS, rows, keys)
            await pilot.pause()
            assert drawn and bar.window_virtual_size == 31
        finally:
            ScrollBar.render = render  # type: ignore[method-assign]


class _Plain(QCScreen):
    def compose(self) -> ComposeResult:
        yield Static("a screen")


async def test_a_pushed_screen_is_not_laid_out_again_for_the_resize_its_first_layout_sends() -> None:
    app = _Panes()
    async with app.run_test(size=(40, 30)) as pilot:
        await pilot.pause()
        under = app.screen
        screen = _Plain()
        resized: list[Any] = []
        for each in (screen, under):
            original = each._screen_resized

            def counted(size: Any, original: Any = original, each: Any = each) -> None:
                resized.append((each, size))
                original(size)

            each._screen_resized = counted  # type: ignore[method-assign]
        layouts: list[int] = []
        _layouts(screen, layouts)
        app.push_screen(screen)
        await pilot.pause()
        await pilot.pause()
        assert layouts and resized == []        # Textual's handler laid both out once more
        assert "a screen" in _shown(screen.query_one(Static), 0)
        await pilot.resize_terminal(50, 20)     # a real resize lays them out
        await pilot.pause()
        assert (screen, (50, 20)) in resized and (under, (50, 20)) in resized
        assert screen.size == (50, 20)
