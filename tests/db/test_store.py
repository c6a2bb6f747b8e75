from __future__ import annotations

import multiprocessing as mp
import sqlite3
from pathlib import Path

import pytest

from db import Store
from db.migrations import SCHEMA_VERSION
from qcstation.common.errors import StoreError


V1_SCHEMA = Path(__file__).with_name("v1_schema.sql")


def _v1_database(path: Path) -> None:
    """A database exactly as version 1 of the schema made it (the frozen statements of the
    time, ``eval_responses`` included), with data in it."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(V1_SCHEMA.read_text(encoding="utf-8"))
    conn.execute("PRAGMA user_version = 1")
    conn.execute(
        "INSERT INTO seeds (source, orig_id, question, answer_text, answer_value, level, "
        "content_hash, imported_at) VALUES ('gsm8k', 'L1', 'Q?', '18', '18', 'medium', 'h', 't')")
    conn.execute(
        "INSERT INTO artifacts (seed_id, dimension, version, status, content, generator, "
        "created_at, updated_at) VALUES (1, 'reasoning', 1, 'verified', '{}', 'rule', 't', 't')")
    conn.execute("INSERT INTO events (at, actor, action) VALUES ('t', 'old', 'seeds.imported')")
    conn.close()


def test_fresh_database_is_wal_and_current(db_file: Path) -> None:
    with Store(db_file) as s:
        assert s.schema_version == SCHEMA_VERSION
        assert s.scalar("PRAGMA journal_mode") == "wal"
        assert int(s.scalar("PRAGMA busy_timeout")) >= 10_000
        assert {"seeds", "artifacts", "attempts", "reviews", "releases", "eval_runs", "events"} <= {
            r["name"] for r in s.query("SELECT name FROM sqlite_master WHERE type='table'")}


def _schema(store: Store) -> set[tuple[str, str, str]]:
    return {(r["type"], r["name"], r["sql"] or "") for r in store.query(
        "SELECT type, name, sql FROM sqlite_master")}


def test_migration_from_v1_keeps_data(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _v1_database(path)
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'eval_responses'"
                        ).fetchone() == (1,)            # the v1 placeholder is there
    conn.close()
    with Store(path) as s:
        assert s.schema_version == SCHEMA_VERSION
        seed = s.one("SELECT * FROM seeds WHERE orig_id = 'L1'")
        assert seed is not None and seed["answer_value"] == "18"
        assert "steps" in seed  # column added by migration 2
        assert s.scalar("SELECT status FROM artifacts WHERE seed_id = 1") == "verified"
        actions = [r["action"] for r in s.query("SELECT action FROM events ORDER BY id")]
        assert actions == ["seeds.imported", "schema.migrated"]
        assert not s.db["eval_responses"].exists()        # dropped by migration 4
        # migration 7 indexed the question already stored
        assert s.query("SELECT rowid FROM seeds_fts WHERE seeds_fts MATCH 'Q'") == [{"rowid": 1}]
        migrated = _schema(s)
    with Store(path) as s:  # idempotent: nothing more to apply
        assert s.migrate() == []
    with Store(tmp_path / "new.db") as fresh:   # the same schema as a database made today
        assert _schema(fresh) == migrated


def test_a_new_database_never_has_the_v1_placeholder(tmp_path: Path) -> None:
    with Store(tmp_path / "new.db", migrate=False) as s:
        assert s.migrate(target=1) == [1]
        assert "eval_responses" not in s.db.table_names()
        assert {"seeds", "artifacts", "reviews", "eval_runs", "events"} <= set(s.db.table_names())
        assert s.migrate() == list(range(2, SCHEMA_VERSION + 1))
        assert s.db.table("seeds").detect_fts() == "seeds_fts"


def test_database_newer_than_code_is_refused(db_file: Path) -> None:
    Store(db_file).close()
    conn = sqlite3.connect(db_file)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    conn.close()
    with pytest.raises(StoreError, match="newer"):
        Store(db_file)


def test_not_a_database_gives_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "garbage.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a qcstation database"):
        Store(bad)


def test_events_are_append_only(store: Store) -> None:
    eid = store.event("alice", "thing.done", "seed", 1, {"x": 1})
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        with store.transaction():
            store.execute("UPDATE events SET actor = 'mallory' WHERE id = ?", (eid,))
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        with store.transaction():
            store.execute("DELETE FROM events WHERE id = ?", (eid,))
    assert store.scalar("SELECT actor FROM events WHERE id = ?", (eid,)) == "alice"


def test_transaction_rolls_back_on_error(store: Store) -> None:
    with pytest.raises(RuntimeError):
        with store.transaction():
            store.event("a", "x")
            raise RuntimeError("boom")
    assert store.scalar("SELECT COUNT(*) FROM events WHERE action = 'x'") == 0


def _writer(path: str, who: str, n: int) -> None:
    s = Store(path)
    for i in range(n):
        with s.transaction():
            # read-modify-write inside one transaction: lost updates would show up as gaps
            last = s.scalar("SELECT COUNT(*) FROM events WHERE action = 'tick'")
            s.insert("events", {"at": f"{i}", "actor": who, "action": "tick",
                                "detail": f'{{"seen": {last}}}'})
    s.close()


def test_two_processes_write_concurrently_nothing_lost(db_file: Path) -> None:
    Store(db_file).close()
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(db_file), f"p{k}", 150)) for k in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(600)
        assert p.exitcode == 0
    with Store(db_file) as s:
        rows = s.query("SELECT actor, detail FROM events WHERE action = 'tick' ORDER BY id")
        assert len(rows) == 300
        assert {r["actor"] for r in rows} == {"p0", "p1"}
        # each write saw every earlier write: serialised, no lost update
        seen = [int(r["detail"].split(":")[1].strip(" }")) for r in rows]
        assert seen == list(range(300))


def test_insert_many_stores_like_insert_and_joins_the_open_transaction(store: Store) -> None:
    rows = [{"at": "t", "actor": "a", "action": f"x{i}", "entity": None, "entity_id": i,
             "detail": {"b": 2, "a": "lone \ud800 surrogate"}} for i in range(1200)]
    assert store.insert_many("events", rows) == 1200
    got = store.one("SELECT * FROM events WHERE action = 'x7'")
    assert got is not None and got["entity_id"] == 7
    assert got["detail"] == '{"a": "lone \\ud800 surrogate", "b": 2}'   # sorted, storable
    with pytest.raises(RuntimeError), store.transaction():
        store.insert_many("events", [{"at": "t", "actor": "a", "action": "rolled back"}])
        raise RuntimeError("the outer transaction fails")
    assert store.scalar("SELECT COUNT(*) FROM events WHERE action = 'rolled back'") == 0
    # tuples with their columns; a chunk larger than one statement; nothing to insert
    tuples = [("t", "b", f"y{i}") for i in range(2345)]
    assert store.insert_many("events", tuples, columns=("at", "actor", "action")) == 2345
    assert store.scalar("SELECT COUNT(*) FROM events WHERE actor = 'b'") == 2345
    assert store.insert_many("events", []) == 0
    with pytest.raises(ValueError, match="columns"):
        store.insert_many("events", tuples)


def _reviewed_database(path: Path) -> int:
    """A database whose arithmetic sample is decided (one reject in three); the number of
    active decisions."""
    from qcstation.core.review.decisions import decide, next_item
    from qcstation.core.review.sampling import draw_sample
    from tests.factories import populate

    with Store(path) as store:
        populate(store, {"gsm8k": 30})
        draw_sample(store, "arithmetic", rate=0.5, rng_seed=7, actor="curator", min_size=10)
        n = 0
        while (item := next_item(store, "bob", "arithmetic")) is not None:
            decide(store, item.item_id, "bob", "reject" if n % 3 == 0 else "accept",
                   "story words left in" if n % 3 == 0 else None)
            n += 1
    return n


def test_an_upgrade_keeps_the_statistics_of_an_analyzed_database_whole(tmp_path: Path) -> None:
    """Migration 19 added reviews_active_verdict; a database analyzed before it (the scale
    bench's) had statistics for every index but that one. The upgrade analyzes what it added:
    the new index gets its row, and the queue's skipped items are found through it."""
    from qcstation.core.review.curation import _queue_candidates_sql
    from tests.factories import rewind_to

    path = tmp_path / "qc.db"
    decided = _reviewed_database(path)
    with Store(path) as store:
        dropped = rewind_to(store, path, 18)
        assert ("reviews_active_verdict", "index") in dropped
        store.conn.execute("ANALYZE")
        assert store.scalar("SELECT COUNT(*) FROM sqlite_stat1 "
                            "WHERE idx = 'reviews_active_verdict'") == 0
    with Store(path) as store:          # opening it upgrades it
        assert store.schema_version == SCHEMA_VERSION
        stat = store.scalar("SELECT stat FROM sqlite_stat1 WHERE idx = 'reviews_active_verdict'")
        assert stat is not None and int(str(stat).split()[0]) == decided
        stats = "SELECT idx, stat FROM sqlite_stat1 WHERE tbl = 'reviews' ORDER BY idx"
        upgraded = store.query(stats)
        store.conn.execute("ANALYZE")             # the same rows as analyzing it all again
        assert upgraded == store.query(stats)
        sql, params = _queue_candidates_sql("skipped", None, None, None)
        plan = " ".join(str(r[3]) for r in store.conn.execute(f"EXPLAIN QUERY PLAN {sql}",
                                                              params))
        assert "reviews_active_verdict" in plan


def test_an_upgrade_leaves_a_database_never_analyzed_without_statistics(tmp_path: Path) -> None:
    from tests.factories import rewind_to

    path = tmp_path / "qc.db"
    _reviewed_database(path)
    with Store(path) as store:
        rewind_to(store, path, 18)
    with Store(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert not store.db["sqlite_stat1"].exists()


def test_a_kept_store_is_released_not_closed_and_reads_what_others_committed(db_file: Path) -> None:
    """A store its thread keeps (the app's worker threads, ``open_store``): leaving a ``with``
    block leaves the connection open, rolls back a transaction the block left open, and the
    next block reads what another connection committed meanwhile (no snapshot held over)."""
    kept = Store(db_file)
    kept.kept = True
    other = Store(db_file)
    try:
        with kept:
            assert kept.scalar("SELECT COUNT(*) FROM events WHERE action = 'x'") == 0
        with kept:
            kept.execute("BEGIN IMMEDIATE")          # a task's error left it open
            kept.execute("INSERT INTO events (at, actor, action) VALUES ('t', 'a', 'x')")
        assert not kept.closed and not kept.conn.in_transaction
        with kept:                                   # open, and the write rolled back
            assert kept.scalar("SELECT COUNT(*) FROM events WHERE action = 'x'") == 0
            cursor = kept.conn.execute("SELECT id FROM events")
            cursor.fetchone()                        # a statement not run to its end
        del cursor
        with other.transaction():                    # another writer is not blocked
            other.event("b", "x")
        with kept:
            assert kept.scalar("SELECT COUNT(*) FROM events WHERE action = 'x'") == 1
    finally:
        other.close()
        kept.close()
    assert kept.closed
    with pytest.raises(sqlite3.ProgrammingError):
        kept.conn.execute("SELECT 1")


def test_runs_stored_done_without_a_score_read_unscored_after_the_upgrade(tmp_path: Path) -> None:
    # `eval run --no-score` before the `unscored` status stored its runs `done` with no score
    # (issue 30 leftover 1): the upgrade reads them `unscored`, and nothing else
    from db.migrations_recent import UNSCORED_DONE_RUNS
    from db.store import now
    from tests.eval_factory import add_item, make_run

    path = tmp_path / "old.db"
    with Store(path, migrate=False) as s:
        s.migrate(24)
        never, scored, empty, stopped = (make_run(s, status=st) for st in ("done", "done", "done", "interrupted"))
        add_item(s, scored, 1, scores={"fi": "c"})
        with s.transaction():
            for run in (never, scored, stopped):
                s.conn.execute("INSERT INTO eval_outputs (run_id, seed_id, task, sample_idx, status, "
                               "prompt_hash, response, created_at) VALUES (?, 1, 'final', 0, 'ok', 'h', "
                               "'5', ?)", (run, now()))

    def statuses() -> dict[int, str]:
        with Store(path) as s:
            assert s.schema_version == SCHEMA_VERSION
            return {int(r["id"]): str(r["status"]) for r in s.query("SELECT id, status FROM eval_runs")}

    assert statuses() == {never: "unscored", scored: "done", empty: "done", stopped: "interrupted"}
    # idempotent: run again (an older copy of the file upgraded twice) it changes nothing
    with Store(path) as s:
        s.conn.execute("PRAGMA user_version = 24")
    assert statuses() == {never: "unscored", scored: "done", empty: "done", stopped: "interrupted"}
    # cheap on a big database: one pass over the runs, each an index seek into the outputs and
    # the scores (never a scan of either)
    with Store(path) as s:
        plan = [str(r[3]) for r in s.conn.execute("EXPLAIN QUERY PLAN " + UNSCORED_DONE_RUNS)]
    assert [p for p in plan if p.startswith("SCAN")] == ["SCAN eval_runs"], plan
    assert sum(p.startswith("SEARCH") and "INDEX" in p and "(run_id=?)" in p for p in plan) == 2, plan
