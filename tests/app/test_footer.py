"""The footer: one line drawn as Textual's compact ``Footer`` draws its keys (lane tui15, issue
28.7), redrawn only when its keys change (lane tui9: Textual rebuilt it on every change of
focus, ten times while the review screen showed its first item at 1M seeds).

The reference is Textual's footer as the app used it (``TextualFooter``, below: compact, its
keys compact from birth, rebuilt only when they change): every test that compares puts the
same app through the same keys with each footer and compares the terminal's last line cell by
cell (character and style)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Button, Footer
from textual.widgets._footer import FooterKey

from qcstation.widgets import footer as footer_module
from qcstation.widgets.footer import KeyFooter


class TextualFooter(Footer):
    """The footer the app showed before lane tui15: Textual's, one widget a key."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id, show_command_palette=False, compact=True)
        self._composed: tuple[Any, ...] | None = None

    def _keys_shown(self) -> tuple[Any, ...]:
        if not self._bindings_ready:
            return ()
        return tuple((b.key, self.app.get_key_display(b), b.description, b.action, enabled,
                      tooltip, b.group.description if b.group else None)
                     for (_, b, enabled, tooltip) in self.screen.active_bindings.values()
                     if b.show)

    async def recompose(self) -> None:
        if not self.is_attached or self._pruning:
            return
        if self._composed is not None and self._keys_shown() == self._composed:
            return
        await super().recompose()

    def compose(self) -> ComposeResult:
        self.set_reactive(Footer._bindings_ready, True)
        self._composed = self._keys_shown()
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                widget.add_class("-compact", update=False)
            yield widget


#: every module that shows a footer (each binds the name when imported)
FOOTER_USERS = ("screens.dashboard", "screens.review", "screens.queue", "screens.releases",
                "screens.runs", "screens.results", "screens.charts", "screens.robustness",
                "screens.side_by_side", "screens.dialogs.derive", "screens.dialogs.exclude_seed",
                "screens.dialogs.pick_run", "screens.dialogs.error")


def _users() -> Iterator[Any]:
    for name in FOOTER_USERS:
        module = importlib.import_module(name)
        if hasattr(module, "KeyFooter"):
            yield module
    for name in list(sys.modules):                  # any other screen or dialog
        module = sys.modules[name]
        if name.startswith("screens.") and getattr(module, "KeyFooter", None) is KeyFooter:
            yield module


def _cells(app: App[Any]) -> list[tuple[str, Any]]:
    """The terminal's last line: each cell's character and style (links and meta aside)."""
    line = app.screen._compositor.render_strips()[-1]
    return [(char, segment.style.clear_meta_and_links() if segment.style else None)
            for segment in line for char in segment.text]


def _text(cells: list[tuple[str, Any]]) -> str:
    return "".join(char for char, _ in cells)


class _Keys(App[None]):
    BINDINGS = [Binding("x", "go", "Go", tooltip="Go somewhere"), Binding("y", "stop", "Stop"),
                Binding("z", "go", "Go again"),            # the same action: shown once
                Binding("h", "hidden", "Hidden", show=False)]

    def __init__(self, footer: type[Any] = KeyFooter) -> None:
        super().__init__()
        self.footer = footer
        self.stoppable = True
        self.went = 0

    def compose(self) -> ComposeResult:
        yield Button("one", id="one")
        yield Button("two", id="two")
        yield self.footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "stop" and not self.stoppable else True

    def action_go(self) -> None:
        self.went += 1

    def action_stop(self) -> None:
        pass


async def _keys_frames(footer: type[Any], size: tuple[int, int]) -> list[list[Any]]:
    app = _Keys(footer)
    frames = []
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        frames.append(_cells(app))
        app.stoppable = False                       # a key disabled: greyed
        app.refresh_bindings()
        for _ in range(3):
            await pilot.pause()
        frames.append(_cells(app))
        await pilot.hover(footer, offset=(1, 0))    # the mouse over the first key
        for _ in range(3):
            await pilot.pause()
        frames.append(_cells(app))
        await pilot.hover(footer, offset=(7, 0))    # over the disabled one
        for _ in range(3):
            await pilot.pause()
        frames.append(_cells(app))
    return frames


@pytest.mark.parametrize("size", [(80, 10), (120, 40), (20, 5)])
async def test_the_line_is_textual_footers_with_disabled_and_hovered_keys(
        size: tuple[int, int]) -> None:
    old = await _keys_frames(TextualFooter, size)
    new = await _keys_frames(KeyFooter, size)
    assert "Go" in _text(new[0]) and "Stop" in _text(new[0]) and "Hidden" not in _text(new[0])
    assert _text(new[0]).count("Go") == 1
    for before, after in zip(old, new, strict=True):
        assert after == before, (_text(before), _text(after))
    assert new[1] != new[0] and new[2] != new[1] and new[3] != new[2]   # each frame a change


async def _walk(db: Path, footer: type[Any], size: tuple[int, int],
                monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[Any]]]:
    from qcstation.app import make_app
    from tests.app.conftest import make_config, settle

    for module in list(_users()):
        monkeypatch.setattr(module, "KeyFooter", footer)
    app = make_app(db, config=make_config(curators=["ann"]), account="ann")
    frames = []
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        frames.append(("dashboard", _cells(app)))
        for keys in (("r",), ("escape", "c"), ("escape", "l"), ("escape", "v"),
                     ("escape", "b"), ("escape", "d"), ("escape", "f1")):
            for key in keys:
                await pilot.press(key)
                await settle(pilot)
            frames.append((type(app.screen).__name__, _cells(app)))
    monkeypatch.undo()
    return frames


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_every_screens_footer_is_textual_footers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    """The dashboard, review, queue, releases, runs, results, the derive dialog and help: the
    same last line with either footer."""
    from tests.app.conftest import build_db

    db = build_db(tmp_path / "f.db")
    old = await _walk(db, TextualFooter, size, monkeypatch)
    new = await _walk(db, KeyFooter, size, monkeypatch)
    assert len({name for name, _ in new}) >= 6, [name for name, _ in new]
    for (name, before), (name_after, after) in zip(old, new, strict=True):
        assert name == name_after
        assert _text(after).strip(), name
        assert after == before, (name, _text(before), _text(after))


async def test_the_footer_is_redrawn_only_when_its_keys_change() -> None:
    app = _Keys()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        footer = app.screen.query_one(KeyFooter)
        first = footer.keys
        line = _text(_cells(app))
        assert "Go" in line and "Stop" in line
        drawn = footer._line
        enabled_stop = _cells(app)[line.index("Stop")]
        for target in ("#two", "#one", "#two"):     # focus moves: the same keys
            app.screen.query_one(target).focus()
            await pilot.pause()
            app.refresh_bindings()
            await pilot.pause()
        assert footer.keys is first and footer._line is drawn     # not read or drawn again
        app.stoppable = False                       # a key disabled: drawn again, greyed
        app.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        keys = {key.action: key for key in footer.keys}
        assert not keys["stop"].enabled and keys["go"].enabled
        stop = _cells(app)[_text(_cells(app)).index("Stop")]
        assert stop[1].color != enabled_stop[1].color      # dim: Textual blends the colour
        app.stoppable = True
        app.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert {key.action: key for key in footer.keys}["stop"].enabled


async def test_a_click_on_a_key_presses_it_and_a_disabled_one_does_nothing() -> None:
    app = _Keys()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        await pilot.click(KeyFooter, offset=(2, 0))          # 'x Go'
        await pilot.pause()
        assert app.went == 1
        await pilot.click(KeyFooter, offset=(60, 0))         # past the keys
        await pilot.pause()
        assert app.went == 1
        app.stoppable = False
        app.refresh_bindings()
        await pilot.pause()
        await pilot.click(KeyFooter, offset=(7, 0))          # 'y Stop', disabled
        await pilot.pause()
        assert app.went == 1
        await pilot.hover(KeyFooter, offset=(2, 0))
        await pilot.pause()
        assert str(app.screen.query_one(KeyFooter).tooltip) == "Go somewhere"


async def test_the_review_footer_fits_80_columns(tmp_path: object) -> None:
    """At 80 columns the review footer was cut after '^p' (the Menu label lost, seen in tmux);
    the menu is in help and the palette, as on the dashboard, and every key shown is whole."""
    from qcstation.app import make_app
    from tests.app.conftest import ANNOTATOR, build_db, make_config, screen_text, settle

    assert isinstance(tmp_path, Path)
    app = make_app(build_db(tmp_path / "f.db"), config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        footer = app.screen.query_one(KeyFooter)
        last = screen_text(app).splitlines()[-1].rstrip()
        keys = footer.keys
        assert keys and all(key.description in last for key in keys), last
        assert footer._spans[-1][1] <= 80, last
        assert "^p" not in last and last.endswith("f1 Help"), last


async def test_the_footer_lays_out_no_key() -> None:
    """One widget on the screen, its templates never laid out (Textual's footer: a widget a
    key, each styled, measured, laid out and drawn on every screen shown)."""
    app = _Keys()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        footer = app.screen.query_one(KeyFooter)
        assert all(not key.display for key in footer.query(FooterKey))
        assert len(footer.query(FooterKey)) == 2
        assert footer_module.KeyFooter is KeyFooter
