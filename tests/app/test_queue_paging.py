"""The curator queue draws one page first and the rest when the cursor nears its end.

At a million seeds reading and drawing the queue's 2,000 rows took 1.5 s of CPU before the
first frame; the first frame now holds what fits plus a margin, and the rows that follow are
read when the cursor or the scroll comes near the end, in the same order as one read."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from db import Store
from qcstation.app import make_app
from qcstation.core.review.curation import queue as qc_queue
from qcstation.core.review.sampling import draw_sample
from screens.queue import FIRST_PAGE, MAX_ROWS, QueueScreen
from tests.app.conftest import make_config, open_screen, screen_text, settle
from tests.factories import populate


def _ids(table: DataTable) -> list[int]:
    return [int(str(k.value)) for k in table.rows]


async def test_the_queue_draws_a_page_first_then_the_rest_in_the_same_order(
        tmp_path: Path) -> None:
    db = tmp_path / "qc.db"
    with Store(db) as store:
        populate(store, {"gsm8k": 180, "mawps": 25})
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=5, actor="carol")
        everything = [r.item_id for r in qc_queue(store, limit=MAX_ROWS)]
    assert len(everything) == 205 > FIRST_PAGE
    app = make_app(db, config=make_config(curators=["carol"], dimensions=["arithmetic"]),
                   account="carol")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, QueueScreen())
        table = screen.query_one("#queue_table", DataTable)
        # the first frame: one page, the first rows of the whole queue
        assert _ids(table) == [r.item_id for r in screen.rows] == everything[:FIRST_PAGE]
        assert str(table.border_title).startswith(f"Items: {FIRST_PAGE}+ ")
        await pilot.press("pagedown")                  # far from the end: nothing more yet
        await settle(pilot)
        assert table.row_count == FIRST_PAGE
        table.focus()
        table.move_cursor(row=FIRST_PAGE - 10)         # near the end: the next page follows
        await settle(pilot)
        # one page more, read from the last row on: never the whole queue in one key
        assert _ids(table) == [r.item_id for r in screen.rows] == everything[:2 * FIRST_PAGE]
        assert str(table.border_title).startswith(f"Items: {2 * FIRST_PAGE}+ ")
        assert table.cursor_row == FIRST_PAGE - 10     # where the reader was
        while table.row_count < len(everything):       # each page near the end reads one more
            shown = table.row_count
            table.move_cursor(row=shown - 5)
            await settle(pilot)
            assert shown < table.row_count <= shown + FIRST_PAGE
        assert _ids(table) == [r.item_id for r in screen.rows] == everything
        assert str(table.border_title).startswith("Items: 205 ")
        # a new filter starts again from one page of its own rows
        screen.query_one("#queue_filter").value = "source:mawps"  # type: ignore[attr-defined]
        screen.action_reload()
        await settle(pilot)
        with Store(db) as store:
            mawps = [r.item_id for r in qc_queue(store, source="mawps", limit=MAX_ROWS)]
        assert len(mawps) == 25 < FIRST_PAGE
        assert _ids(table) == mawps and str(table.border_title).startswith("Items: 25 ")
        # scrolling to the end (the wheel, the scroll bar) reads the rest as well
        table.move_cursor(row=0)
        screen.query_one("#queue_filter").value = ""  # type: ignore[attr-defined]
        screen.action_reload()
        await settle(pilot)
        assert table.row_count == FIRST_PAGE
        for _ in range(len(everything) // FIRST_PAGE):
            table.scroll_end(animate=False)
            await settle(pilot)
        assert _ids(table) == everything



async def test_rows_drawn_before_the_app_is_idle_are_never_cut_to_the_labels(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28.2: in a terminal the queue read "gs  arithmeti  pendi": a frame painted after
    the rows were added and before Textual measured them (when the app is next idle) was
    kept in the table's row cache at the labels' widths. The paint is made to come first
    here, every time: each row still reads whole once the app is idle."""
    db = tmp_path / "qc.db"
    with Store(db) as store:
        populate(store, {"gsm8k": 12})
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=5, actor="carol")
        keys = [r.key for r in qc_queue(store, limit=MAX_ROWS)]
    add_rows = QueueScreen._add_rows

    def painted_at_once(table: DataTable, rows: list) -> None:
        add_rows(table, rows)
        for y in range(min(table.row_count, 5) + 1):    # drawn before the idle measure
            table.render_line(y)

    monkeypatch.setattr(QueueScreen, "_add_rows", staticmethod(painted_at_once))
    app = make_app(db, config=make_config(curators=["carol"], dimensions=["arithmetic"]),
                   account="carol")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, QueueScreen())
        table = app.screen.query_one("#queue_table", DataTable)
        lines = [table.render_line(y).text for y in range(1, 6)]
        for key, line in zip(keys, lines):
            assert f" {key} " in line and " arithmetic " in line and " pending " in line, lines


async def test_a_long_reason_is_cut_with_a_mark_at_80_columns(tmp_path: Path) -> None:
    """The reasons column was as wide as its longest reason (60 characters): at 80 columns
    the table ran past the screen, the reason cut at the edge with only a scroll bar to say
    so. The column takes the room the others leave, a longer reason ends in '…' (the item
    pane below has it whole), and the rows fit the screen; a wider terminal shows more."""
    from qcstation.core.review.decisions import decide, next_item

    reason = "the notation question drops the second given and so " * 4
    db = tmp_path / "qc.db"
    with Store(db) as store:
        populate(store, {"gsm8k": 6})
        draw_sample(store, "arithmetic", rate=1.0, rng_seed=5, actor="carol")
        item = next_item(store, "bob", "arithmetic")
        assert item is not None
        decide(store, item.item_id, "bob", "reject", reason)
    for width in (80, 120):
        app = make_app(db, config=make_config(curators=["carol"], dimensions=["arithmetic"]),
                       account="carol")
        async with app.run_test(size=(width, 24)) as pilot:
            await open_screen(pilot, QueueScreen())
            table = app.screen.query_one("#queue_table", DataTable)
            assert table.virtual_size.width <= table.scrollable_content_region.width, \
                (table.virtual_size, table.scrollable_content_region)
            lines = screen_text(app).splitlines()
            cut = [line for line in lines if "the notation questi" in line and "│ gsm8k-" in line]
            assert len(cut) == 1, "\n".join(lines)
            shown = cut[0].split("the notation questi", 1)[1].rstrip(" │")
            assert shown.endswith("…"), cut
            if width == 80:
                narrow = len(shown)
            else:
                assert len(shown) > narrow + 30, (narrow, cut)
