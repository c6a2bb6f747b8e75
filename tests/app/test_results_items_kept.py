"""The results browser's filter keys on a real database: a page that opens on the items the
page before it showed takes them as read (no second read of the same rows while nothing was
written), and reads them again once a writer has changed what they hold (issue 28: m and x
at 1M scores re-read the two items of a page that did not change)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from db import Store
from qcstation.app import make_app
from screens.results import ResultsScreen
from tests.app.conftest import ANNOTATOR, make_config, open_screen, settle
from tests.must import must

SIZE = (80, 24)


def _key(row: Any) -> tuple[int, int, int]:
    return (row.run_id, row.seed_id, row.sample_idx)


async def test_a_metric_page_on_the_same_items_reads_them_once_until_a_score_changes(
        one_run: tuple[Path, int], monkeypatch: pytest.MonkeyPatch) -> None:
    from qcstation.eval import browse

    db, run_id = one_run
    reads: list[tuple[Any, ...]] = []
    item_detail = browse.item_detail

    def counted(*args: Any, **kw: Any) -> Any:
        reads.append(tuple(args[1:]))
        return item_detail(*args, **kw)

    monkeypatch.setattr(browse, "item_detail", counted)
    app = make_app(db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, ResultsScreen((run_id,)))
        first = _key(must(screen.page).rows[0])
        shown = screen.detail
        assert shown is not None and reads[0] == first
        # m: every metric's page of this run opens on the same first items
        reads.clear()
        await pilot.press("m")
        await settle(pilot)
        assert screen.filters.metric is not None
        assert _key(must(screen.page).rows[0]) == first and screen.detail_key == first
        assert reads == []                         # taken as read with the page before
        assert screen.detail is shown
        # a writer changes a score of the run: the next page reads its items again and the
        # pane shows what the item holds now
        with Store(db) as store, store.transaction():
            store.execute("UPDATE eval_scores SET verdict = 'unparseable', score = NULL "
                          "WHERE run_id = ? AND seed_id = ? AND sample_idx = ? AND metric = 're'",
                          (run_id, first[1], first[2]))
        await pilot.press("m")
        await settle(pilot)
        assert _key(must(screen.page).rows[0]) == first
        assert reads and reads[0] == first
        detail = must(screen.detail)
        verdicts = {s.metric: s.verdict for t in detail.tasks for s in t.scores}
        assert verdicts["re"] == "unparseable"
        # x clears the filters: the same items again, nothing written since
        reads.clear()
        await pilot.press("x")
        await settle(pilot)
        assert screen.filters.metric is None and _key(must(screen.page).rows[0]) == first
        assert reads == []


async def test_a_page_seen_before_takes_its_items_as_read_and_counts_are_kept(
        one_run: tuple[Path, int], monkeypatch: pytest.MonkeyPatch) -> None:
    """Back to a page seen before (] then [), its items are not read again; nor are the rows
    of filters counted before (f, and f again) counted again while nothing was written."""
    from qcstation.eval import browse

    db, run_id = one_run
    reads: list[tuple[Any, ...]] = []
    counted: list[Any] = []
    item_detail, count = browse.item_detail, browse.count

    def read(*args: Any, **kw: Any) -> Any:
        reads.append(tuple(args[1:]))
        return item_detail(*args, **kw)

    def counting(store: Any, filters: Any, *args: Any, **kw: Any) -> Any:
        counted.append(filters)
        return count(store, filters, *args, **kw)

    monkeypatch.setattr(browse, "item_detail", read)
    monkeypatch.setattr(browse, "count", counting)
    app = make_app(db, config=make_config(), account=ANNOTATOR)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, ResultsScreen((run_id,)))
        first = _key(must(screen.page).rows[0])
        assert must(screen.page).has_more
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert screen.page_number == 2 and _key(must(screen.page).rows[0]) != first
        reads.clear()
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert screen.page_number == 1 and screen.detail_key == first
        assert reads == []
        # f and f again: the failed rows and all of them, counted with the first page
        counted.clear()
        await pilot.press("f")
        await settle(pilot)
        assert screen.filters.failed and counted == []
        await pilot.press("f")
        await settle(pilot)
        assert screen.filters == browse.Filters(run_ids=(run_id,)) and counted == []
        title = str(screen.query_one("#results_table").border_title)
        assert " of " in title and "more" not in title, title
