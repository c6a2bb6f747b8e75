"""A key shows what it changes in its own paint: nothing it shows waits for a second read.

At a million seeds each read a key waited for (a worker's, then a second paint of the screen)
cost a key 30-60 ms of wall clock on a loaded machine. These tests hold the screen's database
reads (a read started by the key blocks until the test lets it go) and look at what the screen
shows meanwhile: what a key shows without a read must already be right, and what it shows
after its read must come whole (the filter with its rows), never one half before the other.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Input

from db import Store
from qcstation.app import make_app
from qcstation.core.review.decisions import decide, next_item
from qcstation.core.review.sampling import draw_sample
from screens.queue import FIRST_PAGE, QueueScreen
from tests.app.conftest import flat, make_config, open_screen, settle, static_text
from tests.factories import populate


class Gate:
    """Wraps a function so that its calls block, once shut, until the gate is opened."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.open = threading.Event()
        self.open.set()
        self.calls = 0

    def shut(self) -> None:
        self.open.clear()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        assert self.open.wait(60), "the test never opened the gate"
        return self.fn(*args, **kwargs)


@pytest.fixture
def queue_db(tmp_path: Path) -> Iterator[Path]:
    """60 sampled arithmetic items, every third of the first 30 rejected, the rest accepted."""
    db = tmp_path / "qc.db"
    with Store(db) as store:
        populate(store, {"gsm8k": 60})
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=3, actor="carol")
        for n in range(30):
            item = next_item(store, "ann", "arithmetic")
            assert item is not None
            reject = n % 3 == 0
            decide(store, item.item_id, "ann", "reject" if reject else "accept",
                   f"wrong number {n}" if reject else None)
    yield db


def _pane(screen: QueueScreen) -> str:
    return str(screen.query_one("#queue_detail").border_title)


def _row_ids(table: DataTable[Any]) -> list[int]:
    return [int(str(k.value)) for k in table.rows]


async def test_a_cursor_key_anywhere_in_the_rows_shows_its_item_without_a_read(
        queue_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Page down (and any move past the rows beside the cursor) shows the new row's item as
    the key is handled: every row's item came with the rows. Before, only the rows beside the
    cursor's were at hand, and page down showed the old item until a worker read the new."""
    import screens.queue as queue_screen

    gate = Gate(queue_screen.get_items)
    monkeypatch.setattr(queue_screen, "get_items", gate)
    app = make_app(queue_db, config=make_config(curators=["carol"]), account="carol")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, QueueScreen())
        table = screen.query_one("#queue_table", DataTable)
        assert table.cursor_row == 0
        gate.shut()                          # no item is read from now on
        for key, row in (("pagedown", None), ("ctrl+end", None), ("ctrl+home", 0), ("down", 1)):
            await pilot.press(key)
            await pilot.pause()
            at = table.cursor_row
            if row is not None:
                assert at == row
            assert at > 0 or key == "ctrl+home"
            shown = screen.rows[at]
            # the pane shows the cursor's row, not the one before the key
            assert screen.item is not None and screen.item.item_id == shown.item_id, key
            assert _pane(screen) == f"{shown.key} · {shown.dimension}", key
        gate.open.set()
        await settle(pilot)
        assert screen.item is not None and screen.item.item_id == screen.rows[1].item_id


async def test_the_state_key_shows_the_filter_with_its_rows(
        queue_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """f: the filter box says the new state when its rows are shown, in the same paint; until
    then box and rows both show the old filter (the box was painted alone first, then the rows,
    and for that moment it named a state the rows were not in). f pressed again before the
    rows came cycles on from the state asked for."""
    import screens.queue as queue_screen

    gate = Gate(queue_screen.queue_and_items)
    monkeypatch.setattr(queue_screen, "queue_and_items", gate)
    app = make_app(queue_db, config=make_config(curators=["carol"]), account="carol")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, QueueScreen())
        table = screen.query_one("#queue_table", DataTable)
        box = screen.query_one("#queue_filter", Input)
        everything = _row_ids(table)
        assert box.value == "" and len(everything) == FIRST_PAGE
        gate.shut()
        await pilot.press("f")
        await pilot.pause()
        # the rows are being read: the box and the rows still agree on the old filter
        assert box.value == "" and _row_ids(table) == everything
        gate.open.set()
        await settle(pilot)
        assert box.value == "state:rejected"
        assert {r.state for r in screen.rows} == {"awaiting replacement"}
        assert len(screen.rows) == 10 and _row_ids(table) == [r.item_id for r in screen.rows]
        # twice before the rows come: the second cycles on from the first
        gate.shut()
        await pilot.press("f")
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        assert box.value == "state:rejected"
        gate.open.set()
        await settle(pilot)
        assert box.value == "state:disagreed"
        assert screen.rows == [] and table.row_count == 0 and screen.item is None


async def test_a_failed_read_still_shows_the_filter_asked_for(
        queue_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rows of a state could not be read (the error is told): the box says the filter
    that was asked for, so f goes on from it."""
    import screens.queue as queue_screen

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the table is on fire")

    app = make_app(queue_db, config=make_config(curators=["carol"]), account="carol")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, QueueScreen())
        monkeypatch.setattr(queue_screen, "queue_and_items", broken)
        await pilot.press("f")
        await settle(pilot)
        assert screen.query_one("#queue_filter", Input).value == "state:rejected"
        assert not screen.busy


async def test_the_dashboards_parts_read_together_are_drawn_once(
        qc_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The dashboard's load (samples, counts, the latest release, each gate, the team) is
    posted as one message when it is read together: its QC panels are drawn once, with every
    part, not once for the samples, once for each gate and once for the team (four renders
    of the gates, the team and the rules, and the screen's refresh between two parts laid it
    out twice). What is shown is the same as before."""
    import screens.dashboard as dashboard_screen

    drawn: list[int] = []
    render = dashboard_screen.render_gate_summary

    def counted(dimensions: Any, **kw: Any) -> Any:
        drawn.append(sum(d.gate is not None for d in dimensions))
        return render(dimensions, **kw)

    monkeypatch.setattr(dashboard_screen, "render_gate_summary", counted)
    monkeypatch.setattr(dashboard_screen.DashboardScreen, "SHOW_WITHIN_S", 60.0)
    app = make_app(qc_db, config=make_config(), account="ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, dashboard_screen.DashboardScreen)
        # drawn once, with both gates (arithmetic and understanding) and the team
        assert drawn == [2] and screen.team is not None
        text = flat(static_text(screen.query_one("#gates")))
        assert "Notation questions: 0 of 6 reviewed, 0 rejected" in text
        drawn.clear()
        screen.action_refresh()                 # read again: drawn once again
        await settle(pilot)
        assert drawn == [2]
