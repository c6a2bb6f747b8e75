"""The results browser's queries on a real SQLite file: every filter, keyset pages that
add up to exactly the rows a brute-force filter finds, item details, side by side."""

from __future__ import annotations

import socket
import subprocess
import sys

from pathlib import Path
from typing import Any

import pytest

from db import Store
from qcstation.eval import browse
from qcstation.eval.browse import Filters
from qcstation.eval.types import METRICS
from tests.eval_rows import add_run
from tests.must import must


@pytest.fixture
def runs_db(tmp_path: Path) -> tuple[Path, int, int]:
    path = tmp_path / "eval.db"
    with Store(path) as store:
        a = add_run(store, "model-a", range(1, 41), samples=2)
        b = add_run(store, "model-b", range(1, 31), name="b-run",
                    verdict=lambda i, m, s: "correct" if i % 2 else "wrong")
    return path, a, b


def _all_rows(store: Store) -> list[dict[str, Any]]:
    return store.query("SELECT * FROM eval_scores ORDER BY run_id, seed_id, sample_idx, metric")


def _expected(rows: list[dict[str, Any]], f: Filters) -> list[tuple[Any, ...]]:
    out = []
    for r in rows:
        if f.run_ids and r["run_id"] not in f.run_ids:
            continue
        if f.metric and r["metric"] != f.metric:
            continue
        if f.verdict and r["verdict"] != f.verdict:
            continue
        if f.source and r["source"] != f.source:
            continue
        if f.difficulty and r["difficulty"] != f.difficulty:
            continue
        if f.failed and not (r["verdict"] in ("wrong", "unparseable", "error") or
                             (r["metric"] == "un" and r["verdict"] == "correct"
                              and (r["score"] is None or r["score"] < 90))):
            continue
        out.append((r["run_id"], r["seed_id"], r["sample_idx"], r["metric"]))
    return out


def _walk(store: Store, f: Filters, limit: int) -> list[tuple[Any, ...]]:
    """Every page's keys (each page shown in dimension order within an item)."""
    seen: list[tuple[Any, ...]] = []
    after = None
    rank = {m: n for n, m in enumerate(METRICS)}
    for _ in range(10_000):
        pg = browse.page(store, f, after=after, limit=limit)
        assert len(pg.rows) <= limit
        keys = [r.key for r in pg.rows]
        assert keys == sorted(keys, key=lambda k: (k[0], k[1], k[2], rank[k[3]]))
        seen += sorted(keys)
        if not pg.has_more:
            return seen
        assert len(pg.rows) == limit
        after = pg.after
    raise AssertionError("paging never ended")


@pytest.mark.parametrize("f", [
    Filters(),
    Filters(run_ids=(1,)),
    Filters(metric="re"),
    Filters(metric="re", failed=True),
    Filters(failed=True),
    Filters(metric="un", failed=True),
    Filters(verdict="unparseable"),
    Filters(verdict="error", run_ids=(2,)),
    Filters(verdict="wrong", metric="fi", source="mawps"),
    Filters(source="gsm8k"),
    Filters(difficulty="hard"),
    Filters(source="mawps", difficulty="easy", failed=True),
    Filters(run_ids=(2,), failed=True, difficulty="medium"),
    Filters(metric="ar", verdict="correct", failed=True),   # contradictory: nothing
])
def test_pages_add_up_to_the_brute_force_filter(runs_db: tuple[Path, int, int],
                                                f: Filters) -> None:
    path, _, _ = runs_db
    with Store(path) as store:
        expected = _expected(_all_rows(store), f)
        assert _walk(store, f, 7) == expected
        assert _walk(store, f, 50) == expected
        # the count (from the kept verdict counts where they hold a stream) agrees
        assert browse.count(store, f) == (len(expected), True)
        assert browse.count(store, f, cap=3) == ((3, False) if len(expected) > 3
                                                 else (len(expected), True))
    if f == Filters():
        assert len(expected) == 40 * 2 * 6 + 30 * 6
    if f.metric == "ar" and f.failed and f.verdict == "correct":
        assert expected == []


def test_rows_carry_labels_keys_and_values(runs_db: tuple[Path, int, int]) -> None:
    path, a, b = runs_db
    with Store(path) as store:
        pg = browse.page(store, Filters(run_ids=(b,), metric="fi", verdict="wrong"), limit=3)
    assert [r.seed_id for r in pg.rows] == [2, 4, 6]
    row = pg.rows[0]
    assert row.run_label == f"#{b} b-run"        # a narrow column: the model is in the detail
    assert row.item_key == "gsm8k-2" and row.source == "gsm8k"
    assert row.verdict == "wrong" and row.score == 0.0 and row.failed
    assert pg.has_more and pg.after == (b, 6, 0, "fi")


def test_bad_filters_are_refused(runs_db: tuple[Path, int, int]) -> None:
    path, _, _ = runs_db
    with Store(path) as store:
        with pytest.raises(browse.BrowseError, match="unknown metric 'xx'"):
            browse.page(store, Filters(metric="xx"))
        with pytest.raises(browse.BrowseError, match="unknown verdict"):
            browse.page(store, Filters(verdict="maybe"))


def test_pages_use_the_browser_indexes(runs_db: tuple[Path, int, int]) -> None:
    """No page query sorts: each walks an index in page order (so deep pages stay fast)."""
    path, a, _ = runs_db
    with Store(path) as store:
        for f in (Filters(), Filters(metric="re", verdict="wrong"), Filters(source="gsm8k"),
                  Filters(source="gsm8k", difficulty="hard")):
            for cond, params in browse._branches(f):
                where = "run_id = ?" + (f" AND {cond}" if cond else "")
                args: list[Any] = [a, *params]
                if f.source:
                    where += " AND source = ?"
                    args.append(f.source)
                if f.difficulty:
                    where += " AND difficulty = ?"
                    args.append(f.difficulty)
                plan = " ".join(str(r[3]) for r in store.execute(
                    f"EXPLAIN QUERY PLAN SELECT {browse._COLUMNS} FROM eval_scores "
                    f"WHERE {where} ORDER BY seed_id, sample_idx, metric LIMIT 5", args))
                assert "TEMP B-TREE" not in plan, (f, plan)
                assert "USING" in plan and "INDEX" in plan, (f, plan)


def test_item_detail_has_every_task_with_gold_and_verifier_output(tmp_path: Path) -> None:
    def detail(i: int, metric: str, s: int) -> dict[str, Any]:
        if metric == "re":
            return {"smtlib": "(declare-const answer Int)\n(assert (= answer 9))",
                    "verify": {"status": "verified", "value": "9"}}
        return {}

    path = tmp_path / "d.db"
    with Store(path) as store:
        run = add_run(store, "m", [5], detail=detail,
                      response=lambda i, t, s: f"resp {t} \x1b[31mred\x1b[0m")
        d = browse.item_detail(store, run, 5, 0)
        assert browse.item_detail(store, run, 99, 0) is None
    assert d is not None
    assert d.item_key == "mawps-5" and d.difficulty == "hard"
    assert [t.task for t in d.tasks] == ["understanding", "reasoning", "arithmetic",
                                         "refinement", "final"]
    re_task = d.task("reasoning")
    assert re_task is not None
    assert re_task.smtlib() == "(declare-const answer Int)\n(assert (= answer 9))"
    assert re_task.scores[0].detail["verify"] == {"status": "verified", "value": "9"}
    assert re_task.scores[0].gold == "10"         # the record's answer: 8 + 2
    ref = d.task("refinement")
    assert ref is not None and [s.metric for s in ref.scores] == ["rt", "rm"]
    assert ref.scores[0].gold == "calculation"
    un = must(d.task("understanding"))
    assert must(un.scores[0].gold).startswith("Goal: total pens")
    final = d.task("final")
    assert final is not None and final.response == "resp final \x1b[31mred\x1b[0m"
    # without the runner on this branch's main, the prompt says why it is missing
    assert final.prompt is not None or final.prompt_note
    # the pane names how the run measured (issue 15.5): release, model, refinement protocol
    assert d.provenance.startswith(f"run {run}: ") and " · m · " in d.provenance
    assert "refinement" in d.provenance and "R-m gated" in d.provenance


def test_run_labels_name_every_run_or_those_asked(runs_db: tuple[Path, int, int]) -> None:
    """The results' run filter and the side-by-side titles read the labels here (the
    screens ran their own SELECT on eval_runs)."""
    path, a, b = runs_db
    with Store(path) as store:
        every = browse.run_labels(store)
        assert [run_id for run_id, _ in every] == sorted((a, b))
        assert dict(every)[b].startswith(f"#{b} b-run (model-b)")
        assert dict(every)[a].startswith(f"#{a} model-a")
        assert browse.run_labels(store, (b, 999)) == [(b, dict(every)[b])]
        assert browse.run_labels(store, ()) == []


def test_side_by_side_and_missing_items(runs_db: tuple[Path, int, int]) -> None:
    path, a, b = runs_db
    with Store(path) as store:
        left, right = browse.side_by_side(store, a, b, 4)
        assert left is not None and right is not None
        assert left.run_id == a and right.run_id == b
        assert right.task("final").scores[0].verdict == "wrong"  # type: ignore[union-attr]
        left, right = browse.side_by_side(store, a, b, 35)   # only run a has item 35
        assert left is not None and right is None


def test_list_runs_progress_and_headline(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    with Store(path) as store:
        done = add_run(store, "m1", range(10), verdict=lambda i, m, s: "correct" if i < 7 else "wrong")
        running = add_run(store, "m2", range(10), status="running", outputs_done=12)
        runs = {r.run_id: r for r in browse.list_runs(store)}
    assert list(runs) == [running, done]
    r = runs[done]
    assert r.release == "smart@1.0.0" and r.n_requests == 50 and r.outputs_done == 50
    assert r.headline["fi"].value == pytest.approx(0.7) and r.headline["fi"].n == 10
    assert r.headline["un"].value == pytest.approx((7 * 95 + 3 * 40) / 10)
    assert not r.resumable
    with Store(path) as store:
        only = {x.run_id: x for x in browse.list_runs(store, headline_for={running})}
    assert only[done].headline == {} and only[done].outputs_done == 50
    assert set(only[running].headline) == set(r.headline)
    u = runs[running]
    assert u.status == "running" and u.outputs_done == 12 and u.headline["fi"].value is None
    assert not u.resumable                       # its owner's heartbeat is fresh
    with Store(path) as store, store.transaction():   # a live owner: a stale heartbeat is no death
        store.execute("UPDATE eval_runs SET heartbeat_at = '2020-01-01T00:00:00.000000Z' "
                      "WHERE id = ?", (running,))
    with Store(path) as store:
        u = next(r for r in browse.list_runs(store) if r.run_id == running)
    assert u.status == "running" and not u.resumable
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    with Store(path) as store, store.transaction():
        store.execute("UPDATE eval_runs SET owner = ? WHERE id = ?",
                      (f"{socket.gethostname()}:{dead}", running))
    with Store(path) as store:
        u = next(r for r in browse.list_runs(store) if r.run_id == running)
    assert u.status == "stopped" and u.resumable  # the process that ran it died


def test_an_unscored_run_reads_so_and_enter_scores_it(tmp_path: Path) -> None:
    from rich.console import Console

    from qcstation.widgets.eval_views import render_run_detail

    with Store(tmp_path / "u.db") as store:
        run_id = add_run(store, "m1", range(4), status="unscored", scores=False)
        (run,) = browse.list_runs(store)
    assert (run.run_id, run.status, run.outputs_done) == (run_id, "unscored", run.n_requests)
    assert run.resumable                       # every request answered: Enter scores it
    console = Console(record=True, width=100)
    console.print(render_run_detail(run))
    text = console.export_text()
    assert "unscored" in text and "Answered, not scored" in text and "Enter scores it" in text
    assert "Unfinished" not in text


def test_headline_numbers_are_the_metrics_modules_point_estimates(
        runs_db: tuple[Path, int, int]) -> None:
    """The runs list computes its numbers in SQL (fast); they must be what the leaderboard
    and the report print for the same rows."""
    from qcstation.eval import metrics

    path, a, b = runs_db
    with Store(path) as store:
        board = {rm.run_id: rm for rm in metrics.leaderboard(store, [a, b], n_boot=10)}
        for run in (a, b):
            mine = browse.headline(store, run)
            for metric in METRICS:
                theirs = board[run].values[metric].value
                assert mine[metric].value == pytest.approx(theirs), (run, metric)


def test_a_run_is_named_with_its_model_release_and_protocol() -> None:
    """Where runs are picked or plotted (the compare picker, chart legends): which release,
    model and protocol each measured; a named run keeps its model in view."""
    import json

    from qcstation.eval.runs import run_label

    spec = {"source": {"release": "smart", "version": "1.0.0"}, "shots": 3, "samples": 2,
            "temperature": 0.7}
    assert run_label({"id": 3, "name": "baseline", "model": "gpt-4o-mini",
                      "spec": json.dumps(spec)}) == \
        "#3 baseline (gpt-4o-mini) · smart@1.0.0 · 3-shot, 2 samples, t=0.7"
    assert run_label({"id": 4, "name": None, "model": "qwen", "spec": json.dumps(
        {"source": {"working_set": True}, "shots": 0, "samples": 1, "temperature": 0})}) == \
        "#4 qwen · working set · 0-shot, t=0"
    assert run_label({"id": 5, "name": "qwen-run", "model": "qwen"}) == "#5 qwen-run"
    assert run_label({"id": 6, "name": None, "model": "m", "spec": "{not json"}) == "#6 m"


def test_filter_choices_are_the_items_distinct_groups(runs_db: tuple[Path, int, int]) -> None:
    """The sources and difficulties found by seeks (a skip scan of eval_items_groups) are the
    ones a DISTINCT over every item finds: for each run, several, none, all, and a run id
    with no items; with NULL difficulties, a source with only NULL, exemplars."""
    path, a, b = runs_db
    with Store(path) as store:
        c = add_run(store, "model-c", range(300, 302), scores=False)
        extra = [(a, 1001, "zeta", None, "eval"), (a, 1002, "zeta", "hard", "exemplar"),
                 (a, 1003, "alpha", None, "eval"), (b, 1004, "alpha", "easy", "eval"),
                 (b, 1005, "mid", "extreme", "eval"), (c, 1006, "only-null", None, "eval"),
                 (c, 1007, "zeta", "medium", "eval"), (c, 1008, "zeta", "medium", "eval")]
        for n, (run, seed, source, level, role) in enumerate(extra):
            store.insert("eval_items", {
                "run_id": run, "seed_id": seed, "item_key": f"{source}-{seed}",
                "source": source, "difficulty": level, "role": role, "position": 500 + n,
                "record": "{}"})
        for ids in [(), (a,), (b,), (c,), (a, b), (b, c, a), (c + 1,)]:
            assert browse.filter_choices(store, ids) == browse.filter_choices(
                store, ids, from_scratch=True), ids
            marks = ",".join(str(i) for i in ids)
            assert browse._item_groups(store, list(ids)) == {
                (r[0], r[1]) for r in store.execute(
                    "SELECT DISTINCT source, difficulty FROM eval_items"
                    + (f" WHERE run_id IN ({marks})" if ids else ""))}, ids
        every = browse.filter_choices(store)
        assert {"alpha", "mid", "only-null", "zeta"} <= set(every["source"])
        assert every["difficulty"][-1] == "extreme" and "hard" in every["difficulty"]
        assert browse.filter_choices(store, (c + 1,)) == {"source": [], "difficulty": []}


def test_a_tasks_smtlib_is_found_once_and_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """The item pane renders a task at each of its keys: the fenced block of the response is
    searched for once (the regex over a long response, ~0.7 ms at 1M scores each time), the
    scorer's own SMT-LIB key still comes first, and an item without any says so each time."""
    response = "Here it is:\n```smt2\n(declare-const answer Int)\n```\nDone."
    task = browse.TaskDetail(task="reasoning", status="ok", prompt=None, prompt_note=None,
                             response=response, error=None, finish_reason=None, cached=False,
                             latency_ms=None, prompt_tokens=None, completion_tokens=None)
    searched: list[str] = []
    pattern = browse.SMTLIB_BLOCK

    class Counting:
        def search(self, text: str) -> Any:
            searched.append(text)
            return pattern.search(text)

    monkeypatch.setattr(browse, "SMTLIB_BLOCK", Counting())
    assert task.smtlib() == "(declare-const answer Int)\n"
    assert task.smtlib() == "(declare-const answer Int)\n"
    assert searched == [response]
    bare = browse.TaskDetail(task="reasoning", status="ok", prompt=None, prompt_note=None,
                             response="no block", error=None, finish_reason=None, cached=False,
                             latency_ms=None, prompt_tokens=None, completion_tokens=None)
    assert bare.smtlib() is None and bare.smtlib() is None
    assert searched == [response, "no block"]
    scored = browse.TaskDetail(
        task="reasoning", status="ok", prompt=None, prompt_note=None, response=response,
        error=None, finish_reason=None, cached=False, latency_ms=None, prompt_tokens=None,
        completion_tokens=None, scores=[browse.ScoreDetail(
            metric="re", verdict="correct", score=1.0, extracted="9", gold="9",
            scorer_version="v1", detail={"smt-lib": "(assert true)"})])
    assert scored.smtlib() == "(assert true)"
