"""``/`` in the curator queue and in the results browser: a full-text search over the
questions and reasons, and over the model responses, on a real database; a query FTS5
cannot parse is shown as an error that says what to type, and the screen stays usable."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from db import Store
from qcstation.app import make_app
from qcstation.core.review.decisions import decide, next_item
from screens.dialogs.error import ErrorModal
from screens.queue import QueueScreen, parse_filter
from screens.results import SEARCH_LIMIT, ResultsScreen
from tests.app.conftest import (
    ANNOTATOR,
    build_db,
    flat,
    make_config,
    notifications,
    screen_text,
    settle,
)
from tests.eval_rows import add_run

SIZE = (80, 24)


def test_free_words_of_the_queue_filter_are_a_full_text_search() -> None:
    assert parse_filter("state:rejected dim:arithmetic rye bread") == {
        "state": "rejected", "dimension": "arithmetic", "text": "rye bread"}
    assert parse_filter("reason:garbled") == {"reason": "garbled"}


async def test_slash_in_the_queue_finds_an_item_by_a_reason(qc_db: Path) -> None:
    with Store(qc_db) as store:
        item = next_item(store, ANNOTATOR, "arithmetic")
        assert item is not None
        decide(store, item.item_id, ANNOTATOR, "reject", "a quantity is missing")
    app = make_app(qc_db, config=make_config(curators=[ANNOTATOR]), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        queue = app.screen
        assert isinstance(queue, QueueScreen) and len(queue.rows) > 1
        await pilot.press("slash", *"quantity missing", "enter")
        await settle(pilot)
        assert [r.item_id for r in queue.rows] == [item.item_id]
        box = queue.query_one("#queue_filter", Input)
        box.value = 'quantity "missing'
        await pilot.press("slash", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ErrorModal)
        text = flat(screen_text(app))
        assert "cannot search for" in text and "unterminated string" in text
        await pilot.press("escape")
        await settle(pilot)
        shown: object = app.screen                 # the error dialog closed
        assert shown is queue and not queue.busy
        assert [r.item_id for r in queue.rows] == [item.item_id]   # the last list stays


def _response(i: int, task: str, s: int) -> str:
    return f"Working it out: the {'pelican' if i % 4 == 0 else 'heron'} count is {i}."


async def test_slash_in_the_results_searches_the_responses(tmp_path: Path) -> None:
    db = build_db(tmp_path / "eval.db")
    with Store(db) as store:
        add_run(store, "model-a", range(1, 61), response=_response)
        add_run(store, "model-b", range(1, 61))
    app = make_app(db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ResultsScreen)
        box = screen.query_one("#results_search", Input)
        assert not box.display
        await pilot.press("slash")
        await settle(pilot)
        assert box.display and box.has_focus
        await pilot.press(*"pelican", "enter")
        await settle(pilot)
        assert not box.display and screen.filters.text == "pelican"
        rows = screen.page.rows
        assert rows and {(r.run_id, r.seed_id % 4) for r in rows} == {(1, 0)}
        assert "Filters: /pelican" in flat(screen_text(app))
        await pilot.press("slash", "ctrl+u", *"heron", "enter")  # more than one page of matches
        await settle(pilot)
        assert len(screen.page.rows) == SEARCH_LIMIT and screen.page.has_more
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert any("first 200 matches" in n for n in notifications(app))
        await pilot.press("slash", "ctrl+u", *"heron)", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ErrorModal)
        assert "cannot search for 'heron)'" in flat(screen_text(app))
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and not screen.busy
        assert screen.filters.text == "heron"                # what the rows shown answer
        assert "Filters: /heron" in flat(screen_text(app))
        await pilot.press("x")                               # clear: the pages come back
        await settle(pilot)
        assert screen.filters.text == "" and screen.page is not None and screen.page.has_more
        assert {r.run_id for r in screen.page.rows} == {1}
