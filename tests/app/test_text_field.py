"""A text field's new value repaints the field, never lays out its screen, and the field
still scrolls to keep the cursor in view (qcstation/widgets/text_field.py)."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from qcstation.widgets.text_field import TextField


class _Form(App[None]):
    CSS = "#narrow { width: 24; } #auto { width: auto; max-width: 40; }"

    def compose(self) -> ComposeResult:
        yield Static("above")
        yield TextField(id="narrow")
        yield TextField(id="auto")


def _layouts(screen: Screen[Any], calls: list[int]) -> None:
    original = screen._refresh_layout

    def counted(*args: Any, **kwargs: Any) -> None:
        calls.append(1)
        original(*args, **kwargs)

    screen._refresh_layout = counted  # type: ignore[method-assign]


async def test_typing_repaints_the_field_without_a_layout_and_keeps_the_cursor_in_view() -> None:
    app = _Form()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        field = app.query_one("#narrow", TextField)
        field.focus()
        await pilot.pause()
        calls: list[int] = []
        _layouts(app.screen, calls)
        text = "state:rejected dim:arithmetic by:someone-with-a-long-name"
        await pilot.press(*text)
        await pilot.pause()
        assert field.value == text
        assert calls == []                                 # no layout for any key
        assert field.virtual_size.width == field.content_width == len(text) + 1
        assert field.scroll_x > 0                          # scrolled to the cursor's end
        shown = "".join(seg.text for seg in field.render_line(0)._segments)
        assert "long-name" in shown and "state:" not in shown
        field.value = "x"                                  # set from code, as the queue does
        await pilot.pause()
        assert field.scroll_x == 0 and field.virtual_size.width == 2 and calls == []
        shown = "".join(seg.text for seg in field.render_line(0)._segments)
        assert shown.strip().startswith("x")


async def test_a_field_of_auto_width_is_still_laid_out_as_it_grows() -> None:
    app = _Form()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        field = app.query_one("#auto", TextField)
        before = field.size.width
        field.value = "a much longer value than before"
        await pilot.pause()
        assert field.size.width > before
