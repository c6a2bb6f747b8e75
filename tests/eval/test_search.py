"""Searching model responses (qcstation/eval/search.py) on a real SQLite file: the rows
whose response matches, under the browser's filters, the index following upserts, and a
hostile query as a clear message."""

from __future__ import annotations

from pathlib import Path

import pytest

from db import Store
from qcstation.common.errors import SearchError
from qcstation.eval.browse import Filters
from qcstation.eval.search import search_results, search_sql
from qcstation.eval.types import METRICS, TASK_METRICS
from tests.eval_rows import add_run


def _response(i: int, task: str, s: int) -> str:
    word = "pelican" if i % 4 == 0 else "heron"
    return f"For item {i} the {word} answer to {task} is \\boxed{{{i}}}. (sample {s})"


@pytest.fixture
def runs_db(tmp_path: Path) -> tuple[Path, int, int]:
    path = tmp_path / "eval.db"
    with Store(path) as store:
        a = add_run(store, "model-a", range(1, 21), samples=2, response=_response)
        b = add_run(store, "model-b", range(1, 13), response=_response)
    return path, a, b


def _expected(store: Store, word: str, f: Filters) -> list[tuple[int, int, int, str]]:
    """The rows a brute force finds: every score whose task's stored response holds ``word``."""
    out = []
    for r in store.query("SELECT s.*, o.response FROM eval_scores s JOIN eval_outputs o "
                         "ON o.run_id = s.run_id AND o.seed_id = s.seed_id AND "
                         "o.sample_idx = s.sample_idx AND o.task = s.task"):
        if word not in (r["response"] or "").split():
            continue
        if f.run_ids and r["run_id"] not in f.run_ids:
            continue
        if f.metric and r["metric"] != f.metric:
            continue
        if f.failed and r["verdict"] not in ("wrong", "unparseable", "error"):
            continue
        out.append((r["run_id"], r["seed_id"], r["sample_idx"], r["metric"]))
    return sorted(out)


@pytest.mark.parametrize("f", [Filters(text="pelican"), Filters(text="pelican", run_ids=(2,)),
                               Filters(text="pelican", metric="re"),
                               Filters(text="pelican", failed=True)])
def test_search_finds_exactly_the_rows_whose_response_matches(
        runs_db: tuple[Path, int, int], f: Filters) -> None:
    path, _, _ = runs_db
    with Store(path) as store:
        page = search_results(store, f, limit=500)
        want = _expected(store, "pelican", f)
    assert want and sorted(r.key for r in page.rows) == want and not page.has_more
    rank = {m: n for n, m in enumerate(METRICS)}
    keys = [r.key for r in page.rows]
    assert keys == sorted(keys, key=lambda k: (k[0], k[1], k[2], rank[k[3]]))
    assert all(r.item_key.endswith(f"-{r.seed_id}") for r in page.rows)


def test_a_search_stops_after_its_limit(runs_db: tuple[Path, int, int]) -> None:
    path, _, _ = runs_db
    with Store(path) as store:
        page = search_results(store, Filters(text="heron"), limit=7)
        assert len(page.rows) == 7 and page.has_more and page.after is None
        sql, args = search_sql(Filters(text="heron", metric="re", failed=True))
        plan = " ".join(str(r[-1]) for r in store.execute(
            "EXPLAIN QUERY PLAN " + sql, ['"heron"', *args, 8]))
    assert "TEMP B-TREE" not in plan and "SCAN s" not in plan  # streams, stops at the limit


def test_the_index_follows_a_retried_request(runs_db: tuple[Path, int, int]) -> None:
    path, a, _ = runs_db
    with Store(path) as store:
        failed = store.one("SELECT seed_id, task, sample_idx FROM eval_outputs "
                           "WHERE run_id = ? AND status = 'error' LIMIT 1", (a,))
        assert failed is not None
        with store.transaction():          # what the runner's upsert does on a retry
            store.execute("UPDATE eval_outputs SET status = 'ok', response = 'an albatross' "
                          "WHERE run_id = ? AND seed_id = ? AND task = ? AND sample_idx = ?",
                          (a, failed["seed_id"], failed["task"], failed["sample_idx"]))
        rows = search_results(store, Filters(text="albatross")).rows
    assert {(r.run_id, r.seed_id, r.sample_idx, r.metric) for r in rows} == {
        (a, failed["seed_id"], failed["sample_idx"], m) for m in TASK_METRICS[failed["task"]]}


@pytest.mark.parametrize("query", ['"unterminated', "AND", "x:heron", "", "heron)"])
def test_a_bad_query_is_a_clear_message(runs_db: tuple[Path, int, int], query: str) -> None:
    path, _, _ = runs_db
    with Store(path) as store, pytest.raises(SearchError) as exc:
        search_results(store, Filters(text=query))
    assert exc.value.title in ("Search not understood", "Nothing to search")
