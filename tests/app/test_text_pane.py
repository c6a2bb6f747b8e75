"""The text pane (``qcstation.widgets.text_pane``): what it shows is what a ``Static`` showed
(the same lines, wrapped at the pane's width), though it wraps a part only when it comes into
view; scrolling reaches the last line, the scroll range ends there, and new content or a new
width starts again from the top."""

from __future__ import annotations

import io
from typing import Any

import pytest

from rich.console import Console, Group
from rich.text import Text
from textual.app import App, ComposeResult

from qcstation.widgets.text_pane import TextPane
from tests.app.conftest import screen_text, settle

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda".split()


def _parts(n: int, tag: str) -> list[Text]:
    out = []
    for k in range(n):
        words = " ".join(WORDS[(k + j) % len(WORDS)] for j in range(7 + 3 * (k % 5)))
        out.append(Text.assemble((f"{tag}{k:02d} ", "bold"), words))
        if k % 4 == 0:
            out.append(Text(f"two lines\nof part {tag}{k:02d}", style="dim"))
    out.append(Text(f"{tag}-END"))
    return out


def _lines(group: Group, width: int) -> list[str]:
    """The plain lines a Rich console writes of ``group`` at ``width``."""
    console = Console(width=width, file=io.StringIO(), record=True, legacy_windows=False)
    console.print(group)
    return [line.rstrip() for line in console.export_text().splitlines()]


class PaneApp(App[None]):
    def __init__(self, content: Any) -> None:
        super().__init__()
        self.content = content

    def compose(self) -> ComposeResult:
        yield TextPane(self.content, id="pane")


def _shown(pane: TextPane) -> list[str]:
    """The pane's lines, as painted (the first and last column of the screen are its own)."""
    return [pane.render_line(y).text.rstrip() for y in range(pane.size.height)]


async def test_the_pane_shows_what_a_console_writes_and_scrolls_to_the_end() -> None:
    content = Group(*_parts(40, "p"))
    app = PaneApp(content)
    async with app.run_test(size=(40, 12)) as pilot:
        await settle(pilot)
        pane = app.query_one(TextPane)
        width = pane.scrollable_content_region.width
        expected = _lines(content, width)
        assert len(expected) > 3 * pane.size.height          # far more than a screenful
        assert _shown(pane) == expected[:pane.size.height]
        assert "p00" in screen_text(app)
        # the end: the last lines show, and the scroll range stops at the last line
        assert pane.virtual_size.height != len(expected)      # an estimate until wrapped
        pane.focus()
        await pilot.press("end")                             # in one press
        await settle(pilot)
        assert pane.virtual_size.height == len(expected)
        assert _shown(pane) == expected[-pane.size.height:]
        assert "p-END" in screen_text(app)
        # the whole content, as tests read a Static's
        assert _lines(Group(pane.content), width) == expected


async def test_new_content_and_a_new_width_start_from_the_top() -> None:
    app = PaneApp(Group(*_parts(30, "a")))
    async with app.run_test(size=(40, 12)) as pilot:
        await settle(pilot)
        pane = app.query_one(TextPane)
        pane.scroll_end(animate=False, immediate=True)
        await settle(pilot)
        second = Group(*_parts(25, "b"))
        pane.update(second)
        await settle(pilot)
        assert pane.scroll_y == 0
        width = pane.scrollable_content_region.width
        assert _shown(pane) == _lines(second, width)[:pane.size.height]
        await pilot.resize_terminal(60, 12)
        await settle(pilot)
        wider = pane.scrollable_content_region.width
        assert wider > width
        assert _shown(pane) == _lines(second, wider)[:pane.size.height]
        pane.update(Text("plain"))
        await settle(pilot)
        assert _shown(pane)[0] == "plain" and pane.virtual_size.height == 1


async def test_parts_shown_before_are_not_wrapped_again_nor_the_same_parts_painted_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Content made of parts shown before (the same objects, in another order) shows the lines
    a console writes of it without wrapping any part again; the very parts shown already are
    brought back to their top and not painted again."""
    parts = _parts(30, "a")
    app = PaneApp(Group(*parts))
    async with app.run_test(size=(40, 12)) as pilot:
        await settle(pilot)
        pane = app.query_one(TextPane)
        width = pane.scrollable_content_region.width
        pane.scroll_end(animate=False, immediate=True)      # every part wrapped
        await settle(pilot)
        wrapped: list[Any] = []
        painted: list[int] = []
        post_render, render_line = pane.post_render, pane.render_line

        def wrap(part: Any, style: Any) -> Any:
            wrapped.append(part)
            return post_render(part, style)

        def paint(y: int) -> Any:
            painted.append(y)
            return render_line(y)

        monkeypatch.setattr(pane, "post_render", wrap)
        monkeypatch.setattr(pane, "render_line", paint)
        again = Group(*parts[10:], *parts[:10])
        pane.update(again)
        await settle(pilot)
        assert pane.scroll_y == 0 and painted
        assert _shown(pane) == _lines(again, width)[:pane.size.height]
        pane.scroll_end(animate=False, immediate=True)
        await settle(pilot)
        assert _shown(pane) == _lines(again, width)[-pane.size.height:]
        assert wrapped == []                                # none wrapped again
        painted.clear()
        pane.update(Group(*again.renderables))              # the same parts: to the top only
        await settle(pilot)
        assert pane.scroll_y == 0
        assert _shown(pane) == _lines(again, width)[:pane.size.height]
        painted.clear()
        pane.update(Group(*again.renderables))              # at the top already: no paint
        await settle(pilot)
        assert painted == [] and wrapped == []
        fresh = Text("a new part")
        pane.update(Group(fresh, *parts[:3]))               # a new part is wrapped, alone
        await settle(pilot)
        assert wrapped == [fresh]
        assert _shown(pane)[:3] == _lines(Group(fresh, *parts[:3]), width)[:3]
