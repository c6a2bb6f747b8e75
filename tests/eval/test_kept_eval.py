"""The figures the database keeps of each evaluation run (migrations 14, 15 and 21: ``eval_pairs``,
``eval_score_counts``, ``eval_run_totals``, ``eval_reply_counts``, ``eval_headline``) equal a
recomputation from every score and output (the run's items counted by group and verdicts give
every figure of the leaderboard, a breakdown and the runs list's headline that the item-sample
rows give, intervals included):
after random sequences of the writes a run sees (scoring and rescoring through the scorers'
own upsert, outputs through the runner's, hand-made updates that move or change scores,
deleted scores, outputs and whole runs), after four processes score at once, and after a
database of the previous version is migrated. Dropping any one of the triggers makes the
check fail. Real SQLite files, real processes."""

from __future__ import annotations

import json
import math
import random
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from db import Store
from db.kept_eval import DIRTY_TRIGGERS, REPLY_TRIGGERS, TRIGGERS, recount_dirty, store_scores
from db.migrations import SCHEMA_VERSION
from db.store import now
from qcstation.eval import browse
from qcstation.eval import metrics as M
from qcstation.eval.provenance import replies
from qcstation.eval.outputs import INSERT_OUTPUT
from qcstation.eval.runs import run_totals
from qcstation.eval.scorers import INSERT_SCORE, summarize_verdicts
from tests.eval_factory import make_run
from tests.factories import rewind_to, run_at_once
from tests.must import must

METRIC_TASK = {"un": "understanding", "re": "reasoning", "ar": "arithmetic", "rt": "refinement",
               "rm": "refinement", "fi": "final", "ar_s": "arithmetic", "rm_s": "refinement",
               "fi_s": "final", "odd": "final"}
VERDICTS = ("correct", "correct", "wrong", "unparseable", "error", "not_scored", "judge_error",
            "invalid_item", "checker_error", "trivial", "something else")
SOURCES = ("gsm8k", "math500", "level 2", "")
DIFFICULTIES = ("easy", "hard", None, "")


def _first_group(rows: list[tuple[Any, ...]]) -> dict[int, tuple[Any, Any]]:
    """seed -> the (source, difficulty) a breakdown groups it by: its first row."""
    out: dict[int, tuple[Any, Any]] = {}
    for seed, source, difficulty in rows:
        out.setdefault(int(seed), (source, difficulty))
    return out


def assert_kept_eval_right(store: Store, figures: bool = False) -> None:
    """The kept figures equal a recount (``figures``: every figure of the leaderboard and a
    breakdown from the run's counted items too, :func:`assert_figures_from_counted_items`)."""
    runs = {int(r[0]) for r in store.conn.execute(
        "SELECT run_id FROM eval_scores UNION SELECT run_id FROM eval_outputs "
        "UNION SELECT run_id FROM eval_pairs UNION SELECT run_id FROM eval_run_totals")}
    for run in sorted(runs):
        assert M.pair_rows(store, run) == M.pair_rows(store, run, from_scratch=True), run
        assert M.verdict_counts(store, run) == M.verdict_counts(store, run, from_scratch=True), run
        assert _first_group(M.group_rows(store, run)) == _first_group(
            M.group_rows(store, run, from_scratch=True)), run
        kept, scratch = run_totals(store, run), run_totals(store, run, from_scratch=True)
        assert {k: kept[k] for k in ("n", "e", "pt", "ct")} == \
            {k: scratch[k] for k in ("n", "e", "pt", "ct")}, run
        assert (kept["cost"] is None) == (scratch["cost"] is None), run
        if kept["cost"] is not None:
            assert math.isclose(kept["cost"], scratch["cost"], rel_tol=1e-9, abs_tol=1e-12), run
        assert replies(store, run) == replies(store, run, from_scratch=True), run
        kept_h, scratch_h = browse.headline(store, run), browse.headline(store, run, from_scratch=True)
        for metric, h in kept_h.items():
            o = scratch_h[metric]
            assert (h.n, h.counts, list(h.counts)) == (o.n, o.counts, list(o.counts)), (run, metric)
            assert (h.value is None) == (o.value is None), (run, metric)
            if h.value is not None:
                assert math.isclose(h.value, must(o.value), rel_tol=1e-12), (run, metric)
        assert M.headline_rows(store, run) == M.headline_rows(store, run, from_scratch=True), run
        assert _items_counted(store) == _items_counted(store, from_scratch=True)
        if figures and store.one("SELECT 1 FROM eval_runs WHERE id = ?", (run,)) is not None:
            assert_figures_from_counted_items(store, run)
    progress = {(int(r[0]), str(r[1])): int(r[2]) for r in store.conn.execute(
        "SELECT run_id, status, SUM(n) FROM eval_reply_counts GROUP BY 1, 2 HAVING SUM(n) != 0")}
    assert progress == {(int(r[0]), str(r[1])): int(r[2]) for r in store.conn.execute(
        "SELECT run_id, status, COUNT(*) FROM eval_outputs GROUP BY 1, 2")}
    assert store.scalar("SELECT COUNT(*) FROM eval_score_counts WHERE n < 0") == 0
    assert store.scalar("SELECT COUNT(*) FROM eval_run_totals WHERE outputs < 0 OR costed < 0") == 0
    assert store.scalar("SELECT COUNT(*) FROM eval_headline WHERE n < 0") == 0


def assert_figures_from_counted_items(store: Store, run: int) -> None:
    """Every figure read from the run's counted items equals the one its item-sample rows give:
    values, bootstrap intervals, counts and notes, overall and by source and difficulty."""
    kept, rows = M.load_run_kept(store, run), M.load_run(store, run)
    assert kept.synthetic and not rows.synthetic
    assert M.run_metrics(store, run, n_boot=50, table=kept).to_dict() == \
        M.run_metrics(store, run, n_boot=50, table=rows).to_dict(), run
    for by in ("source", "difficulty"):
        assert {g: {c: v.to_dict() for c, v in values.items()} for g, values in
                M.breakdown(store, run, by, n_boot=20, table=kept).items()} == \
            {g: {c: v.to_dict() for c, v in values.items()} for g, values in
             M.breakdown(store, run, by, n_boot=20, table=rows).items()}, (run, by)
    assert list(M.breakdown(store, run, "difficulty", n_boot=0, table=kept)) == list(
        M.breakdown(store, run, "difficulty", n_boot=0, table=rows))


# -- the writes -----------------------------------------------------------------------------

def _runs(store: Store) -> list[int]:
    return [int(r["id"]) for r in store.query("SELECT id FROM eval_runs ORDER BY id")]


def _score_values(rng: random.Random, metric: str) -> tuple[str, Any, str]:
    verdict = rng.choice(VERDICTS)
    if metric == "un":
        score: Any = rng.choice((None, 95.0, 88.5, 91.0 + 1 / 3, 100, "12", 1.0))
    else:
        score = 1.0 if verdict == "correct" else rng.choice((0.0, None))
    detail = rng.choice(("{}", json.dumps({"keeps_answer": rng.choice((True, False, None, 3, "yes", [1]))}),
                         "not json"))
    return verdict, score, detail


def score_rows(rng: random.Random, run: int, k: int) -> list[tuple[Any, ...]]:
    rows = []
    for _ in range(k):
        metric = rng.choice(list(METRIC_TASK))
        verdict, score, detail = _score_values(rng, metric)
        rows.append((run, rng.randint(1, 12), rng.randint(0, 1), metric, METRIC_TASK[metric],
                     verdict, score, None, detail, "test-1", rng.choice(SOURCES),
                     rng.choice(DIFFICULTIES), now()))
    return rows


def output_rows(rng: random.Random, run: int, k: int) -> list[tuple[Any, ...]]:
    return [(run, rng.randint(1, 12), rng.choice(("reasoning", "final")), rng.randint(0, 1),
             rng.choice(("ok", "ok", "error")), "h", "The answer is 3.",
             rng.choice(("stop", "length", None)), None, "e",
             rng.choice((0, 0, 1)), rng.choice((None, rng.randint(1, 900))),
             rng.choice((None, rng.randint(1, 900))), rng.choice((None, rng.random() / 1000)),
             12.5, now()) for _ in range(k)]


def _score(store: Store, rng: random.Random) -> None:
    """Scoring or rescoring: the scorers' own upsert, a batch of rows in one transaction."""
    with store.transaction():
        store.conn.executemany(INSERT_SCORE, score_rows(rng, rng.choice(_runs(store)),
                                                        rng.randint(1, 12)))


def _score_batch(store: Store, rng: random.Random) -> None:
    """Scoring as the scorers and the live scoring worker write it (migration 24): a batch's
    pairs and counts kept once, a row by hand in the same transaction before it."""
    run = rng.choice(_runs(store))
    rows = list({r[:4]: r for r in score_rows(rng, run, rng.randint(1, 12))}.values())
    with store.transaction():
        if rng.random() < 0.3:
            store.conn.executemany(INSERT_SCORE, score_rows(rng, run, 1))
        store_scores(store.conn, INSERT_SCORE, rows)


def _outputs(store: Store, rng: random.Random) -> None:
    """Stored responses: the runner's upsert (a failed request answered later replaces it)."""
    with store.transaction():
        store.conn.executemany(INSERT_OUTPUT, output_rows(rng, rng.choice(_runs(store)),
                                                          rng.randint(1, 8)))


def _hand_update(store: Store, rng: random.Random) -> None:
    """What a person (or a later fix) does by hand: change verdicts, move a score to another
    item or sample, relabel its source."""
    run = rng.choice(_runs(store))
    sql = rng.choice((
        "UPDATE eval_scores SET verdict = 'wrong' WHERE run_id = ? AND metric = 'fi'",
        "UPDATE eval_scores SET sample_idx = sample_idx + 2 WHERE id = (SELECT id FROM "
        "eval_scores WHERE run_id = ? ORDER BY random() LIMIT 1)",
        "UPDATE eval_scores SET seed_id = seed_id + 20, run_id = run_id WHERE id = (SELECT id "
        "FROM eval_scores WHERE run_id = ? ORDER BY random() LIMIT 1)",
        "UPDATE eval_scores SET source = 'moved', difficulty = NULL WHERE run_id = ? "
        "AND seed_id % 3 = 0",
        "UPDATE eval_scores SET score = 42.5, detail = '{\"keeps_answer\": false}' "
        "WHERE run_id = ? AND metric IN ('un', 'rm')",
        "UPDATE eval_outputs SET cached = 1 - cached, cost = 0.25 WHERE id = (SELECT id "
        "FROM eval_outputs WHERE run_id = ? ORDER BY random() LIMIT 1)",
        "UPDATE eval_outputs SET status = 'error', prompt_tokens = NULL WHERE run_id = ? "
        "AND seed_id % 4 = 1",
        "UPDATE eval_outputs SET finish_reason = CASE WHEN finish_reason = 'length' THEN 'stop' "
        "ELSE 'length' END WHERE run_id = ? AND seed_id % 3 = 2"))
    try:
        store.execute(sql, (run,))
    except sqlite3.IntegrityError:
        pass   # the move hit a score already there: nothing was written


def _move_run(store: Store, rng: random.Random) -> None:
    """Scores and outputs of one seed handed to another run."""
    runs = _runs(store)
    a, b = rng.choice(runs), rng.choice(runs)
    seed = rng.randint(1, 12)
    try:
        with store.transaction():
            store.execute("UPDATE eval_scores SET run_id = ? WHERE run_id = ? AND seed_id = ?",
                          (b, a, seed))
            store.execute("UPDATE eval_outputs SET run_id = ? WHERE run_id = ? AND seed_id = ?",
                          (b, a, seed))
    except sqlite3.IntegrityError:
        pass


def _delete_some(store: Store, rng: random.Random) -> None:
    run = rng.choice(_runs(store))
    table = rng.choice(("eval_scores", "eval_outputs"))
    store.execute(f"DELETE FROM {table} WHERE id IN (SELECT id FROM {table} WHERE run_id = ? "
                  "ORDER BY random() LIMIT 3)", (run,))


def _delete_run(store: Store, rng: random.Random) -> None:
    runs = _runs(store)
    if len(runs) < 2:
        return
    run = rng.choice(runs)
    with store.transaction():
        for table in ("eval_scores", "eval_outputs", "eval_items"):
            store.execute(f"DELETE FROM {table} WHERE run_id = ?", (run,))
        store.execute("DELETE FROM eval_runs WHERE id = ?", (run,))


def _new_run(store: Store, rng: random.Random) -> None:
    make_run(store, model=f"m{rng.randrange(100)}")


OPERATIONS = [(_score, 10), (_score_batch, 6), (_outputs, 5), (_hand_update, 4), (_move_run, 1), (_delete_some, 2),
              (_delete_run, 1), (_new_run, 1)]


@pytest.mark.parametrize("rng_seed", [1, 2, 3, 4])
def test_kept_eval_figures_equal_a_recount_after_random_writes(store: Store, rng_seed: int) -> None:
    rng = random.Random(rng_seed)
    for n in range(3):
        make_run(store, model=f"model-{n}")
    ops, weights = zip(*OPERATIONS)
    done: set[str] = set()
    for step in range(150):
        op = rng.choices(ops, weights)[0]
        op(store, rng)
        done.add(op.__name__)
        assert_kept_eval_right(store, figures=step % 25 == 24)
        if step % 10 == 9:    # a scorer's batch recounts what every earlier write marked
            assert_recounted_right(store)
    assert done == {op.__name__ for op in ops}
    # the figures are those of real runs: scores of several metrics and samples, costs known
    assert store.scalar("SELECT COUNT(*) FROM eval_pairs WHERE sample_idx > 0") > 0
    assert store.scalar("SELECT COUNT(*) FROM eval_run_totals WHERE costed > 0") > 0


def test_the_leaderboard_and_breakdown_read_the_kept_figures(store: Store) -> None:
    """The metrics a reader sees are the ones from every score: a hand-made change to a score
    shows at once, and a breakdown groups items as before."""
    run = make_run(store, model="m")
    rng = random.Random(5)
    with store.transaction():
        store.conn.executemany(INSERT_SCORE, score_rows(rng, run, 300))
    # each item from one source, as a run's items are
    store.execute("UPDATE eval_scores SET source = CASE seed_id % 4 WHEN 0 THEN 'gsm8k' "
                  "WHEN 1 THEN 'math500' WHEN 2 THEN 'level 2' ELSE '' END")
    before = M.run_metrics(store, run, n_boot=50).to_dict()
    store.execute("UPDATE eval_scores SET verdict = 'correct' WHERE run_id = ? AND metric = 're'",
                  (run,))
    after = M.run_metrics(store, run, n_boot=50).to_dict()
    assert after["values"]["re"]["value"] == 1.0 != before["values"]["re"]["value"]
    assert summarize_verdicts(store, run)["re"] == {
        "correct": store.scalar("SELECT COUNT(*) FROM eval_scores WHERE run_id = ? AND metric = 're'",
                                (run,))}
    groups = M.breakdown(store, run, "source", n_boot=0)
    assert set(groups) == {"gsm8k", "math500", "level 2", "(none)"}
    # a hand-edited keeps_answer that is no number nor boolean reads as unknown, never a crash
    store.execute("UPDATE eval_scores SET detail = '{\"keeps_answer\": \"yes\"}' WHERE run_id = ? "
                  "AND metric = 'rm'", (run,))
    table = M.load_run(store, run)
    assert table.keeps is not None and set(table.keeps.tolist()) == {-1.0}
    assert M.pair_rows(store, run) == M.pair_rows(store, run, from_scratch=True)
    M.run_metrics(store, run, n_boot=0)


def _score_worker(db_path: str, run: int, seed: int, start: Any, results: Any) -> None:
    rng = random.Random(seed)
    errors: list[str] = []
    try:
        s = Store(db_path)
        start.wait(timeout=300)
        for _ in range(25):
            with s.transaction():
                s.conn.executemany(INSERT_SCORE, score_rows(rng, run, 6))
                s.conn.executemany(INSERT_OUTPUT, output_rows(rng, run, 3))
        s.close()
    except Exception as exc:  # reported to the test, which fails on it
        errors.append(repr(exc))
    results.put(errors)


@pytest.mark.slow
def test_kept_eval_figures_stay_right_when_four_processes_score_at_once(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    with Store(db) as s:
        runs = [make_run(s, model="a"), make_run(s, model="b")]
    got = run_at_once(_score_worker, [(str(db), runs[n % 2], n) for n in range(4)])
    assert [e for errs in got for e in errs] == []
    with Store(db) as s:
        assert_kept_eval_right(s, figures=True)
        assert s.scalar("SELECT SUM(outputs) FROM eval_run_totals") == s.scalar(
            "SELECT COUNT(*) FROM eval_outputs") > 0


def test_a_database_of_the_previous_version_gets_its_figures_when_migrated(db_file: Path) -> None:
    rng = random.Random(9)
    with Store(db_file) as s:
        runs = [make_run(s, model="a"), make_run(s, model="b", samples=2)]
        for run in runs:
            with s.transaction():
                s.conn.executemany(INSERT_SCORE, score_rows(rng, run, 200))
                s.conn.executemany(INSERT_OUTPUT, output_rows(rng, run, 60))
        expected = {run: (M.run_metrics(s, run, n_boot=100).to_dict(),
                          M.breakdown(s, run, "difficulty", n_boot=0), run_totals(s, run),
                          replies(s, run))
                    for run in runs}
        # the database as migration 13 left it: no kept figures, no triggers, no indexes
        made = rewind_to(s, db_file, 13)
        assert {n for n, _ in made} >= {"eval_pairs", "eval_score_counts", "eval_run_totals",
                                        "eval_reply_counts", "eval_items_role"}
    with Store(db_file) as s:
        assert s.schema_version == SCHEMA_VERSION
        assert_kept_eval_right(s, figures=True)
        got = {run: (M.run_metrics(s, run, n_boot=100).to_dict(),
                     M.breakdown(s, run, "difficulty", n_boot=0), run_totals(s, run),
                     replies(s, run))
               for run in runs}
        for run in runs:   # the cost: a running sum before, a fresh sum after, to rounding
            assert math.isclose(got[run][2].pop("cost"), expected[run][2].pop("cost"),
                                rel_tol=1e-9)
        assert got == expected
        assert expected[runs[1]][2]["n"] > 0 and expected[runs[0]][0]["values"]["re"]["n"] > 0


def _trigger_name(sql: str) -> str:
    found = re.search(r"CREATE TRIGGER (\w+)", sql)
    assert found is not None
    return found.group(1)


def _every_kind_of_write(store: Store) -> None:
    """A fixed sequence that goes through each trigger: scores and outputs inserted, rescored
    (the upsert's update), changed and moved by hand, deleted."""
    run = make_run(store, model="m")
    rng = random.Random(3)
    with store.transaction():
        store.conn.executemany(INSERT_SCORE, score_rows(rng, run, 40))
        store.conn.executemany(INSERT_OUTPUT, output_rows(rng, run, 30))
        recount_dirty(store.conn)    # as a scorer's batch ends
    assert store.scalar("SELECT COUNT(*) FROM eval_item_dirty") == 0
    assert_kept_eval_right(store)
    store.execute("UPDATE eval_scores SET verdict = 'wrong', score = 3 WHERE run_id = ? "
                  "AND seed_id % 2 = 0", (run,))
    store.execute("UPDATE eval_scores SET sample_idx = sample_idx + 5 WHERE run_id = ? "
                  "AND seed_id % 3 = 0", (run,))
    store.execute("UPDATE eval_outputs SET cached = 1 - cached, status = 'error' WHERE run_id = ? "
                  "AND seed_id % 2 = 0", (run,))
    store.execute("UPDATE eval_outputs SET finish_reason = 'length' WHERE run_id = ? "
                  "AND seed_id % 2 = 1", (run,))
    store.execute("DELETE FROM eval_scores WHERE run_id = ? AND seed_id % 4 = 1", (run,))
    store.execute("DELETE FROM eval_outputs WHERE run_id = ? AND seed_id % 4 = 1", (run,))


def test_the_sequence_keeps_the_figures_right_with_every_trigger(store: Store) -> None:
    _every_kind_of_write(store)
    assert_kept_eval_right(store, figures=True)


def _item_sample_writes(store: Store) -> None:
    """Writes made to the item-sample rows themselves (by hand): the items counted by their
    verdicts follow them whatever writes them (a row changed, moved to another item, deleted)."""
    run = make_run(store, model="m")
    with store.transaction():
        store.conn.executemany(INSERT_SCORE, score_rows(random.Random(4), run, 60))
    for sql in ("UPDATE eval_pairs SET v_re = 1 - v_re WHERE run_id = ? AND seed_id % 2 = 0",
                "UPDATE eval_pairs SET un = un + 1.5, source = 'x' WHERE run_id = ? "
                "AND seed_id % 3 = 0",
                "UPDATE eval_pairs SET seed_id = seed_id + 40 WHERE run_id = ? AND seed_id % 4 = 1",
                "UPDATE eval_pairs SET seed_id = 4, sample_idx = sample_idx + 7 WHERE run_id = ? "
                "AND seed_id = 6",
                "DELETE FROM eval_pairs WHERE run_id = ? AND seed_id % 5 = 2"):
        store.execute(sql, (run,))
        # read before any recount (the items the write marked counted from their rows), then
        # after the recount a scorer's batch ends with
        assert M.headline_rows(store, run) == M.headline_rows(store, run, from_scratch=True), sql
        assert _items_counted(store) == _items_counted(store, from_scratch=True), sql
        assert_recounted_right(store)


def _items_counted(store: Store, from_scratch: bool = False) -> list[tuple[int, int]]:
    """The items counted: kept (those recounted, unless marked since, and those marked that
    have item-samples: as a reader counts them) or from the item-sample rows."""
    sql = ("SELECT DISTINCT run_id, seed_id FROM eval_pairs ORDER BY 1, 2" if from_scratch else
           "SELECT run_id, seed_id FROM eval_item_sigs s WHERE NOT EXISTS (SELECT 1 FROM "
           "eval_item_dirty d WHERE (d.run_id, d.seed_id) = (s.run_id, s.seed_id)) UNION "
           "SELECT run_id, seed_id FROM eval_item_dirty d WHERE EXISTS (SELECT 1 FROM eval_pairs p "
           "WHERE (p.run_id, p.seed_id) = (d.run_id, d.seed_id)) ORDER BY 1, 2")
    return [(int(r[0]), int(r[1])) for r in store.conn.execute(sql)]


def assert_recounted_right(store: Store) -> None:
    """After a batch's recount (what the scorers end their batches with) nothing is marked,
    and the kept rows alone (no item counted from its rows by the reader) equal a recount."""
    with store.transaction():
        recount_dirty(store.conn)
    assert store.scalar("SELECT COUNT(*) FROM eval_item_dirty") == 0
    runs = {int(r[0]) for r in store.conn.execute(
        "SELECT run_id FROM eval_pairs UNION SELECT run_id FROM eval_headline")}
    for run in sorted(runs):
        assert M.headline_rows(store, run) == M.headline_rows(store, run, from_scratch=True), run
    assert [(int(r[0]), int(r[1])) for r in store.conn.execute(
        "SELECT run_id, seed_id FROM eval_item_sigs ORDER BY 1, 2")] == \
        _items_counted(store, from_scratch=True)
    assert store.scalar("SELECT COUNT(*) FROM eval_headline WHERE n < 0") == 0


def test_the_counted_items_follow_any_write_of_the_item_samples(store: Store) -> None:
    _item_sample_writes(store)


# (migration 21's view's trigger recounts no batch since the recount is set-based: it is
# the oracle of test_the_set_based_recount_keeps_exactly_what_the_view_keeps)
@pytest.mark.parametrize("trigger", [_trigger_name(t) for t in (*TRIGGERS, *REPLY_TRIGGERS,
                                                                  *DIRTY_TRIGGERS)])
def test_without_any_one_trigger_the_figures_go_wrong(store: Store, trigger: str) -> None:
    store.execute(f"DROP TRIGGER {trigger}")
    with pytest.raises((AssertionError, sqlite3.OperationalError)):
        _every_kind_of_write(store)
        assert_kept_eval_right(store)
        _item_sample_writes(store)


# -- migration 24: a batch keeps its pairs and counts once ----------------------------------

_KEPT_TABLES = ("eval_scores", "eval_pairs", "eval_score_counts", "eval_item_sigs", "eval_headline",
                "eval_item_dirty", "eval_score_batch")


def _dump(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the score table and the tables kept from it, each value with its type."""
    out = {}
    for table in _KEPT_TABLES:
        cols = [str(r[1]) for r in store.conn.execute(f"PRAGMA table_info({table})")]
        out[table] = sorted(tuple(r) for r in store.conn.execute(
            f"SELECT {', '.join(f'quote({c})' for c in cols)} FROM {table}"))
    return out


def _batches(rng: random.Random, runs: list[int]) -> list[tuple[str, int, Any]]:
    """A fixed sequence of writes: batches of score rows (new pairs, rescores of pairs already
    there, a pair's rows over several batches, now and then a key twice in one batch), single
    rows written by hand in a batch's transaction, and updates and deletes between them."""
    ops: list[tuple[str, int, Any]] = []
    for step in range(40):
        run = rng.choice(runs)
        rows = score_rows(rng, run, rng.randint(1, 40))
        if rng.random() < 0.85:
            rows = list({r[:4]: r for r in rows}.values())
        ops.append(("batch", run, (score_rows(rng, run, 2) if rng.random() < 0.3 else [], rows)))
        if step % 6 == 5:
            ops.append(("sql", run, rng.choice((
                "UPDATE eval_scores SET verdict = 'wrong', score = 0.0 WHERE run_id = ? AND metric = 'fi'",
                "DELETE FROM eval_scores WHERE run_id = ? AND seed_id % 5 = 2",
                "UPDATE eval_scores SET source = 'moved', difficulty = NULL WHERE run_id = ? "
                "AND seed_id % 3 = 0",
                "UPDATE eval_scores SET sample_idx = sample_idx + 4 WHERE run_id = ? AND seed_id = 7"))))
    return ops


@pytest.mark.parametrize("rng_seed", [1, 2, 3])
def test_a_batch_keeps_exactly_what_the_per_row_triggers_keep(tmp_path: Path, rng_seed: int) -> None:
    """The same writes, once through the per-row triggers (each row inserted as before
    migration 24, the batch's items recounted) and once through :func:`store_scores`: the score
    rows and every kept table are identical, value for value and type for type, and equal a
    recount (every figure of the leaderboard and a breakdown, the headline)."""
    dumps = []
    ops: list[tuple[str, int, Any]] = []
    for batched in (False, True):
        with Store(tmp_path / f"{batched}.db") as s:
            runs = [make_run(s, model="a"), make_run(s, model="b", samples=2)]
            ops = ops or _batches(random.Random(rng_seed), runs)   # the same rows both times
            for kind, run, what in ops:
                if kind == "sql":
                    s.execute(what, (run,))
                    continue
                by_hand, rows = what
                with s.transaction():
                    s.conn.executemany(INSERT_SCORE, by_hand)
                    if batched:
                        store_scores(s.conn, INSERT_SCORE, rows)
                    else:
                        s.conn.executemany(INSERT_SCORE, rows)
                        recount_dirty(s.conn)
            assert s.scalar("SELECT COUNT(*) FROM eval_score_batch") == 0
            assert_kept_eval_right(s, figures=True)
            assert_recounted_right(s)
            dumps.append(_dump(s))
    assert dumps[0] == dumps[1]
    assert len(dumps[1]["eval_pairs"]) > 20 and len(dumps[1]["eval_score_counts"]) > 20


def test_a_batch_passes_over_the_insert_triggers_only_for_its_own_pairs(store: Store) -> None:
    """Inside a batch's transaction, a row of a pair the batch does not name is kept by the
    triggers at once; the batch's own rows are kept when it ends, and no name outlives it."""
    run = make_run(store, model="m")
    rng = random.Random(11)
    rows = list({r[:4]: r for r in score_rows(rng, run, 30) if r[1] <= 6}.values())
    other = (run, 9, 0, "fi", "final", "correct", 1.0, None, "{}", "test-1", "gsm8k", None, now())
    with store.transaction():
        store.conn.executemany("INSERT INTO eval_score_batch (run_id, seed_id, sample_idx) "
                               "VALUES (?, ?, ?)", [(run, 1, 0)])
        store.conn.execute(INSERT_SCORE, other)
        assert store.scalar("SELECT v_fi FROM eval_pairs WHERE run_id = ? AND seed_id = 9",
                            (run,)) == 1
        store.conn.execute("DELETE FROM eval_score_batch")
        store_scores(store.conn, INSERT_SCORE, rows)
    assert store.scalar("SELECT COUNT(*) FROM eval_score_batch") == 0
    assert_kept_eval_right(store, figures=True)
    assert_recounted_right(store)


# -- the set-based recount of a batch's marked items ----------------------------------------

#: the recount of every marked item through migration 21's view, one item at a time (what
#: ``RECOUNT_DIRTY`` was before it was set-based): the oracle of the set-based statements
_THROUGH_THE_VIEW = (
    "INSERT INTO eval_item_touch (run_id, seed_id) SELECT run_id, seed_id FROM eval_item_dirty",
    "DELETE FROM eval_item_dirty",
)


def _recount_through_the_view(conn: Any) -> None:
    for sql in _THROUGH_THE_VIEW:
        conn.execute(sql)


@pytest.mark.parametrize("rng_seed", [1, 2, 3])
def test_the_set_based_recount_keeps_exactly_what_the_view_keeps(tmp_path: Path, rng_seed: int) -> None:
    """The same writes (batches, rows by hand, updates, deletes and moves of scores and of the
    item-sample rows themselves, a kept count dropped and a signature edited by hand), each
    batch ending once with the recount through migration 21's view, item by item, and once
    with :func:`recount_dirty`: every kept table identical, value for value and type for type
    (counts resting at 0 included), and the counted items equal those of the item-sample
    rows."""
    dumps = []
    ops: list[tuple[str, int, Any]] = []
    for set_based in (False, True):
        recount = recount_dirty if set_based else _recount_through_the_view
        with Store(tmp_path / f"{set_based}.db") as s:
            runs = [make_run(s, model="a"), make_run(s, model="b", samples=2)]
            if not ops:
                rng = random.Random(rng_seed)
                ops = _batches(rng, runs)
                for i in range(8, len(ops), 9):   # the item-sample rows written by hand too
                    ops.insert(i, ("sql", rng.choice(runs), rng.choice((
                        "UPDATE eval_pairs SET v_fi = 1 - v_fi WHERE run_id = ? AND seed_id % 2 = 0",
                        "UPDATE eval_pairs SET seed_id = seed_id + 100 * (1 + (SELECT MAX(seed_id) "
                        "FROM eval_pairs) / 100) WHERE run_id = ? AND seed_id % 4 = 1",
                        "DELETE FROM eval_pairs WHERE run_id = ? AND seed_id % 5 = 3",
                        "UPDATE eval_pairs SET source = 'x', un = un + 1 WHERE run_id = ? AND seed_id = 2"))))
            for kind, run, what in ops:
                if kind == "sql":
                    s.execute(what, (run,))
                    continue
                by_hand, rows = what
                with s.transaction():
                    s.conn.executemany(INSERT_SCORE, by_hand)
                    s.conn.executemany(INSERT_SCORE, rows)
                    recount(s.conn)
            assert s.scalar("SELECT COUNT(*) FROM eval_item_dirty") == 0
            assert_recounted_right(s)      # the counted items equal those of the item-samples
            # kept rows gone wrong by hand: each recount leaves what the view leaves
            s.execute(
                "DELETE FROM eval_headline WHERE (run_id, source, difficulty, sig) IN "
                "(SELECT run_id, source, difficulty, sig FROM eval_headline WHERE n > 0 "
                "ORDER BY 1, 2, 3, 4 LIMIT 1)")
            s.execute("UPDATE eval_item_sigs SET sig = 'by hand' WHERE seed_id % 7 = 0")
            with s.transaction():
                s.execute("INSERT INTO eval_item_dirty (run_id, seed_id) SELECT run_id, seed_id "
                          "FROM eval_item_sigs WHERE true ON CONFLICT DO NOTHING")
                s.execute("INSERT INTO eval_item_dirty (run_id, seed_id) VALUES (?, 999)", (runs[0],))
                recount(s.conn)
            dumps.append(_dump(s))
    assert dumps[0] == dumps[1]
    assert any(r[-1] == "0" for r in dumps[1]["eval_headline"])     # a count resting at 0
    assert len(dumps[1]["eval_item_sigs"]) > 20
