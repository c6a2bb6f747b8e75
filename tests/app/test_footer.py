"""The footer is rebuilt only when the keys it shows change (lane tui9, issue 28.7): Textual
rebuilt it on every change of focus, ten times (~25 ms of CPU each) while the review screen
showed its first item at 1M seeds, the keys the same each time."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Button
from textual.widgets._footer import FooterKey

from qcstation.widgets.footer import KeyFooter


class _Keys(App[None]):
    BINDINGS = [Binding("x", "go", "Go"), Binding("y", "stop", "Stop")]

    def __init__(self) -> None:
        super().__init__()
        self.stoppable = True

    def compose(self) -> ComposeResult:
        yield Button("one", id="one")
        yield Button("two", id="two")
        yield KeyFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "stop" and not self.stoppable else True

    def action_go(self) -> None:
        pass

    def action_stop(self) -> None:
        pass


def _footer_text(app: App[None]) -> str:
    footer = app.screen.query_one(KeyFooter)
    return " ".join(str(key.render()) for key in footer.children)


async def test_the_footer_is_rebuilt_only_when_its_keys_change() -> None:
    app = _Keys()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        footer = app.screen.query_one(KeyFooter)
        first = list(footer.children)
        assert "Go" in _footer_text(app) and "Stop" in _footer_text(app)
        for target in ("#two", "#one", "#two"):     # focus moves: the same keys
            app.screen.query_one(target).focus()
            await pilot.pause()
            app.refresh_bindings()
            await pilot.pause()
        assert list(footer.children) == first       # the same widgets: not rebuilt
        app.stoppable = False                       # a key disabled: rebuilt, greyed
        app.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        keys = {key.action: key for key in footer.query(FooterKey)}
        assert list(footer.children) != first and keys["stop"].has_class("-disabled")
        assert not keys["go"].has_class("-disabled")
        app.stoppable = True
        app.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert not {key.action: key for key in footer.query(FooterKey)}["stop"].has_class("-disabled")


async def test_the_review_footer_fits_80_columns(tmp_path: object) -> None:
    """At 80 columns the review footer was cut after '^p' (the Menu label lost, seen in tmux);
    the menu is in help and the palette, as on the dashboard, and every key shown is whole."""
    from pathlib import Path

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
        keys = list(footer.query(FooterKey))
        assert keys and all(str(key.description) in last for key in keys), last
        assert sum(key.outer_size.width for key in keys) <= 80, last
        assert "^p" not in last and last.endswith("f1 Help"), last


class _CountingFooter(KeyFooter):
    composed = 0

    def compose(self) -> ComposeResult:
        type(self).composed += 1
        yield from super().compose()


class _CountedKeys(_Keys):
    def compose(self) -> ComposeResult:
        yield Button("one", id="one")
        yield _CountingFooter()


async def test_the_footer_has_its_keys_from_its_first_compose() -> None:
    """Textual's footer composes empty, then builds its keys in a second mount once the
    screen says its bindings changed; this one is built once, with its keys (lane tui10)."""
    _CountingFooter.composed = 0
    app = _CountedKeys()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert "Go" in _footer_text(app) and "Stop" in _footer_text(app)
        assert _CountingFooter.composed == 1
