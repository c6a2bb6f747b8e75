"""Every screen takes its first focus where its keys act (issue 28.4).

Textual focuses a new screen's first focusable widget before the screen's mount runs; a
screen whose mount then moved the focus to its rows had, for a moment, its search or filter
box focused, and keys typed ahead (Enter, a letter) went into the box."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.screen import Screen

from qcstation.app import make_app
from tests.app.conftest import ANNOTATOR, make_config, settle

OPENED: list[tuple[str, tuple[Any, ...]]] = [
    ("queue", ()), ("results", ()), ("releases", ()), ("runs", ()), ("review", (None,)),
]


@pytest.mark.parametrize(("name", "args"), OPENED, ids=[n for n, _ in OPENED])
async def test_a_screen_is_focused_once_where_its_keys_act(
        qc_db: Path, monkeypatch: pytest.MonkeyPatch, name: str, args: tuple[Any, ...]) -> None:
    from screens._base import SCREENS

    cls_name = SCREENS[name].split(":")[1]
    focused: list[str | None] = []
    set_focus = Screen.set_focus

    def recorded(self: Screen[Any], widget: Any, *a: Any, **kw: Any) -> Any:
        if type(self).__name__ == cls_name and widget is not None:
            focused.append(widget.id)
        return set_focus(self, widget, *a, **kw)

    monkeypatch.setattr(Screen, "set_focus", recorded)
    app = make_app(qc_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.open_screen(name, *args)
        await settle(pilot)
        assert type(app.screen).__name__ == cls_name
        assert app.focused is not None
        # the first focus is the one the screen keeps: never its search or filter box first
        assert focused and focused[0] == app.focused.id, focused
