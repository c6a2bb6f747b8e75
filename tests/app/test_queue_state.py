"""The curator queue says what a replaced item is now (issue 28, lane ui28): after a fix in
place the rejected item's row kept reading 'rejected', as if the fix had not been taken, with
the fixed version's row added at the end of the dimension's rows, out of view at 80x24."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, TextArea

from db import Store
from qcstation.app import make_app
from qcstation.core.review.curation import queue
from qcstation.core.review.decisions import decide, next_item
from screens.queue import QueueScreen
from tests.app.conftest import flat, make_config, screen_text, settle

SIZE = (80, 24)


async def test_a_row_fixed_in_place_says_what_the_item_is_now(qc_db: Path) -> None:
    with Store(qc_db) as store:
        item = next_item(store, "ann", "arithmetic")
        assert item is not None
        decide(store, item.item_id, "ann", "reject", "story words left in")
    app = make_app(qc_db, config=make_config(), account="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, QueueScreen)
        table = app.screen.query_one("#queue_table", DataTable)
        assert table.cursor_row == 0
        assert "awaiting replacement" in flat(screen_text(app))
        await pilot.press("e")
        await settle(pilot)
        area = app.screen.query_one("#fix_text", TextArea)
        area.text = "Let a = 3. Let b = 9. Let c = 4. Let x = a + b. Compute answer = x * c."
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, QueueScreen)
        row = flat(" ".join(str(c) for c in table.get_row_at(table.cursor_row)))
        assert row.startswith(f"{item.key} arithmetic rejected → v2 accepted"), row
        assert "rejected → v2 accepted" in flat(screen_text(app))
    with Store(qc_db) as store:             # the shell's queue says it too
        [old] = [r for r in queue(store, state="rejected") if r.item_id == item.item_id]
        assert old.now == "v2 accepted"
        assert all(not r.now for r in queue(store) if r.state != "rejected")


async def test_the_queue_follows_what_colleagues_do(
        qc_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The queue read its rows once: a colleague's decision in another session (or a fix
    made through the menu over the queue) showed only after F5. It reads them again by
    itself while shown (every AUTO_REFRESH_S; a bounded wait here, not a pace), keeping the
    cursor on its item; a refresh that reads the same rows draws nothing again."""
    import asyncio

    monkeypatch.setattr(QueueScreen, "AUTO_REFRESH_S", 0.2)
    app = make_app(qc_db, config=make_config(), account="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueueScreen)
        table = screen.query_one("#queue_table", DataTable)
        await pilot.press("down", "down")
        on = screen.rows[table.cursor_row].item_id
        assert all(r.state == "pending" for r in screen.rows)
        with Store(qc_db) as store:                 # bob decides the first item elsewhere
            item = next_item(store, "bob", "arithmetic")
            assert item is not None
            decide(store, item.item_id, "bob", "reject", "story words left in")
        deadline = asyncio.get_running_loop().time() + 300
        while not any(r.state != "pending" for r in screen.rows):
            assert asyncio.get_running_loop().time() < deadline, "never read again"
            await asyncio.sleep(0.05)
            await pilot.pause()
        await settle(pilot)
        assert [r.state for r in screen.rows if r.item_id == item.item_id] == \
            ["awaiting replacement"]
        assert "awaiting replacement" in flat(screen_text(app))
        assert screen.rows[table.cursor_row].item_id == on      # the cursor kept its item
