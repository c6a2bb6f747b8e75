"""Full-text search (db/search.py) on real SQLite files: the indexes follow every write
through their triggers, plain words and FTS5 syntax both work, and a query FTS5 cannot
parse is a clear SearchError, never an sqlite3 error."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from db import Store
from db.search import FTS_TABLES, fts_query, match_sql, run_search
from qcstation.common.errors import SearchError
from tests import factories as f

HOSTILE = ['"unterminated', "AND", "OR OR", "*", "x:garbled", "NEAR(", "()", "^", "apples)",
           "story AND NOT", "rowid:1", "{question}: (", "NOT", '""', "a" * 501, "", "   ",
           "\x1b[2J\x07", "\u202egnp.exe", "'; DROP TABLE seeds; --"]


def _seeds(store: Store, text: str) -> list[int]:
    return run_search(store, text, lambda q: [int(r["rowid"]) for r in store.query(
        match_sql("seeds") + " ORDER BY rowid", [q])])


def _seed(store: Store, seed_id: int, question: str) -> None:
    with store.transaction():
        store.insert("seeds", {"id": seed_id, "source": "t", "orig_id": str(seed_id),
                               "question": question, "answer_text": "1", "level": "easy",
                               "content_hash": f"h{seed_id}", "imported_at": "t"})


def test_every_index_exists_with_its_columns(store: Store) -> None:
    for table, columns in FTS_TABLES.items():
        assert store.db.table(table).detect_fts() == f"{table}_fts"
        assert store.db[f"{table}_fts"].columns_dict.keys() == set(columns)


def test_the_seed_index_follows_inserts_updates_and_deletes(db_file: Path) -> None:
    with Store(db_file) as store:
        _seed(store, 1, "Zoë has 3.5 apples and buys more.")
        _seed(store, 2, "A farmer sells eggs at the market.")
        assert _seeds(store, "apples") == [1]
        assert _seeds(store, "zoe 3.5") == [1]            # plain words, diacritics folded
        assert _seeds(store, "market OR apples") == [1, 2]
        assert _seeds(store, "appl*") == [1]
        assert _seeds(store, '"sells eggs"') == [2]
        assert _seeds(store, "eggs NOT farmer") == []
        with store.transaction():
            store.execute("UPDATE seeds SET question = 'A baker sells bread.' WHERE id = 2")
            store.execute("UPDATE seeds SET status = 'excluded' WHERE id = 1")  # not re-indexed
        assert _seeds(store, "eggs") == [] and _seeds(store, "bread") == [2]
        assert _seeds(store, "apples") == [1]
        with store.transaction():
            store.execute("DELETE FROM seeds WHERE id = 1")
        assert _seeds(store, "apples") == []
    with Store(db_file) as store:                          # what is stored stays found
        assert _seeds(store, "bread") == [2]
        store.execute("INSERT INTO seeds_fts (seeds_fts) VALUES ('integrity-check')")


def test_review_reasons_and_comments_are_searchable(store: Store) -> None:
    from qcstation.core.review.decisions import decide, next_item
    from qcstation.core.review.sampling import draw_sample

    f.populate(store, {"gsm8k": 6})
    draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor="lead")
    item = next_item(store, "ann", "arithmetic")
    assert item is not None
    decide(store, item.item_id, "ann", "reject", "story words left in",
           comment="the word 'ticket' remains")
    found = run_search(store, "ticket", lambda q: store.query(match_sql("reviews"), [q]))
    assert len(found) == 1
    assert run_search(store, "reason: story", lambda q: store.query(match_sql("reviews"), [q]))
    assert run_search(store, "reason: ticket", lambda q: store.query(match_sql("reviews"), [q])) \
        == []


@pytest.mark.parametrize("query", HOSTILE)
def test_a_hostile_query_is_a_clear_message_or_a_search(store: Store, query: str) -> None:
    _seed(store, 1, "Janet's ducks lay 16 eggs per day.")
    try:
        found = _seeds(store, query)
    except SearchError as exc:
        message = str(exc)
        assert exc.title in ("Search not understood", "Nothing to search", "Search too long")
        assert "\x1b" not in message and "\u202e" not in message and "\n" not in message
        if exc.title == "Search not understood":
            assert "type:" in message                      # what to type instead
    else:
        assert found in ([], [1])
    assert store.scalar("SELECT COUNT(*) FROM seeds") == 1  # nothing was run but the search


def test_the_suggested_plain_form_of_a_bad_query_runs(store: Store) -> None:
    _seed(store, 1, "Tom pays $5 (five dollars) for 2 apples.")
    with pytest.raises(SearchError, match="syntax error") as exc:
        _seeds(store, "apples)")
    suggestion = str(exc.value).rsplit("type: ", 1)[1]
    assert _seeds(store, suggestion) == [1]


def test_plain_words_are_quoted_and_syntax_is_kept() -> None:
    assert fts_query("  3.5   apples ") == '"3.5" "apples"'
    assert fts_query("it's") == "\"it's\""
    assert fts_query("garb* OR text") == "garb* OR text"
    with pytest.raises(SearchError, match="type something"):
        fts_query(" \t")


def test_an_error_that_is_not_about_the_query_is_not_hidden(store: Store) -> None:
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        run_search(store, "x", lambda q: store.query("SELECT * FROM missing_fts WHERE "
                                                     "missing_fts MATCH ?", [q]))


def test_migration_7_indexes_what_an_older_database_holds(tmp_path: Path) -> None:
    path = tmp_path / "v6.db"
    with Store(path, migrate=False) as store:
        store.migrate(target=6)
        _seed(store, 1, "How many kites fly?")
        with store.transaction():
            store.execute("INSERT INTO eval_runs (model, status, started_at) VALUES ('m', 'done', 't')")
            store.execute("INSERT INTO eval_outputs (run_id, seed_id, task, status, prompt_hash, "
                          "response, created_at) VALUES (1, 1, 'final', 'ok', 'h', "
                          "'Seven kites.', 't')")
        assert "seeds_fts" not in store.db.table_names()
    with Store(path) as store:                              # opening migrates: 7 builds the indexes
        assert _seeds(store, "kites") == [1]
        found = run_search(store, "seven", lambda q: store.query(match_sql("eval_outputs"), [q]))
        assert found == [{"rowid": 1}]
        for table in FTS_TABLES:
            store.execute(f"INSERT INTO {table}_fts ({table}_fts) VALUES ('integrity-check')")
