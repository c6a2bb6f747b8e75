"""Home and End in every table of the workstation (issue 28, walked at 80x24).

Textual's ``DataTable`` binds Home and End to the first and the last column: in the tables,
whose cursor is a row and whose columns fit, End did nothing (the curator queue, the results
browser, the runs and the releases). They now go to the first and the last row, as Ctrl+Home
and Ctrl+End do; Page Down and Page Up move by a page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import DataTable

from db import Store
from qcstation.app import make_app
from qcstation.core.release import releases as rel
from qcstation.core.review.sampling import draw_sample
from screens.queue import FIRST_PAGE, QueueScreen
from tests.app.conftest import (ANNOTATOR, make_config, open_screen, pass_the_gate, press_each)
from tests.app.test_eval_screens import eval_db  # noqa: F401 (the fixture)
from tests.factories import populate

SIZE = (80, 24)


async def _home_end_pages(pilot: Any, table: DataTable[Any]) -> None:
    """End: the last row, in view; Home: the first; Page Down and Page Up move by a page."""
    table.focus()
    last = table.row_count - 1
    assert last > table.size.height, "the rows must not all fit"
    await press_each(pilot, "end")
    assert table.cursor_row == last
    assert table.scroll_y > 0 and table.is_vertical_scroll_end
    await press_each(pilot, "home")
    assert table.cursor_row == 0 and table.scroll_y == 0
    await press_each(pilot, "pagedown")
    assert table.cursor_row > 1
    await press_each(pilot, "pageup")
    assert table.cursor_row == 0


async def test_home_and_end_in_the_curator_queue(tmp_path: Path) -> None:
    db = tmp_path / "qc.db"
    with Store(db) as store:
        populate(store, {"gsm8k": 30})
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=5, actor="carol")
    app = make_app(db, config=make_config(curators=["carol"], dimensions=["arithmetic"]),
                   account="carol")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, QueueScreen())
        table = screen.query_one("#queue_table", DataTable)
        assert table.row_count == 30 < FIRST_PAGE       # every row read: End is the last
        await _home_end_pages(pilot, table)
        await press_each(pilot, "end")                  # the item pane follows the cursor
        title = str(screen.query_one("#queue_detail").border_title)
        assert title.startswith(f"{screen.rows[-1].key} · "), title


async def test_home_and_end_in_the_results_browser_and_the_runs(eval_db: Path) -> None:  # noqa: F811
    app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await press_each(pilot, "b")
        table = app.screen.query_one("#results_table", DataTable)
        assert table.row_count == 50
        await _home_end_pages(pilot, table)
    app = make_app(eval_db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=(80, 12)) as pilot:   # two runs: fewer rows than the room
        await press_each(pilot, "v")
        table = app.screen.query_one("#runs_table", DataTable)
        table.focus()
        assert table.row_count == 2
        await press_each(pilot, "end")
        assert table.cursor_row == 1
        await press_each(pilot, "home")
        assert table.cursor_row == 0


async def test_home_and_end_in_the_releases(qc_db: Path) -> None:
    pass_the_gate(qc_db)
    config = make_config(curators=["alice"], dimensions=["arithmetic"], defect_threshold=0.5)
    with Store(qc_db) as store:
        for n in range(3):
            rel.approve_release(store, f"set{n}", "1.0.0", actor="alice", cfg=config)
    app = make_app(qc_db, config=config, account="alice")
    async with app.run_test(size=SIZE) as pilot:
        await press_each(pilot, "l")
        table = app.screen.query_one("#release_table", DataTable)
        table.focus()
        assert table.row_count == 3
        await press_each(pilot, "end")
        assert table.cursor_row == 2
        await press_each(pilot, "home")
        assert table.cursor_row == 0
