"""Issue 28.1: the menu (ctrl+p) says 'every action by name'; each screen's own keys are in
it, and choosing one does what its key does."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.command import CommandList
from textual.pilot import Pilot

from qcstation.app import make_app
from tests.app.conftest import (curator_app, flat, make_config, notifications, press_each,
                                settle)

SIZE = (80, 24)


async def _choose(pilot: Pilot[Any], title: str) -> None:
    """ctrl+p, the title typed, Enter once the search has highlighted it."""
    app = pilot.app
    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*title)

    def highlighted() -> bool:          # the search runs in the background: wait for its hit
        found = app.screen.query(CommandList)
        index = found.first().highlighted if found else None
        if index is None:
            return False
        prompt = flat(str(found.first().get_option_at_index(index).prompt))
        return prompt.startswith(title)

    loop = asyncio.get_running_loop()
    deadline = loop.time() + 300
    while not highlighted() and loop.time() < deadline:
        await pilot.pause(0.05)
    assert highlighted(), title
    await pilot.press("enter")
    await settle(pilot)


async def test_the_dashboards_extend_and_fresh_round_are_in_the_menu(qc_db: Path) -> None:
    """Walked at 80x24: the dashboard's e (Extend) and F (Fresh round), hidden from the
    footer 'in help and the menu', were not in the menu."""
    app = make_app(qc_db, config=make_config(curators=["alice"]), account="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Extend" in titles and "Fresh round" in titles, titles
        assert titles.count("Curator queue") == 1 and "Queue" not in titles   # named once
        await _choose(pilot, "Fresh round")
        assert any("no dimension is there now" in flat(n) for n in notifications(app)), \
            notifications(app)


async def test_every_screens_keys_are_in_the_menu(qc_db: Path) -> None:
    """On the releases screen the menu had the dashboard's commands only: Approve, Export,
    Set, Diff and Flags are in it now, and Diff there does what d does."""
    app = curator_app(qc_db)
    async with app.run_test(size=SIZE) as pilot:
        await press_each(pilot, "l")
        assert type(app.screen).__name__ == "ReleasesScreen"
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for title in ("Approve", "Export", "Set", "Diff", "Flags"):
            assert title in titles, titles
        await _choose(pilot, "Diff")
        assert type(app.screen).__name__ == "ReleasesScreen"
        assert any("No release to compare yet" in n for n in notifications(app))
