"""Self-check flags stored when an artifact is made: ``status`` and ``audit --stored`` count
them without reading any artifact; ``audit`` re-reads, refreshes and backfills them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from db import Store
from qcstation.core.construct.pipeline import Pipeline
from qcstation.common.config import load_config
from qcstation.core.ingest.importer import import_file
from qcstation.core.review.audit import AUDIT_VERSION, audit_database, stored_counts
from qcstation.core.review.status import status_counts
from tests.conftest import dataset
from tests.must import must


def _made(tmp_path: Path, ids: tuple[int, ...] = (1, 2, 3, 8, 57, 295, 446, 511)) -> Path:
    lines = dataset("gsm8k/test.jsonl").read_text().splitlines()
    src = tmp_path / "part.jsonl"
    src.write_text("\n".join(lines[i - 1] for i in ids) + "\n")
    db = tmp_path / "a.db"
    with Store(db) as store:
        import_file(store, src, "gsm8k", source="gsm8k")
    with Pipeline(db, load_config(None), actor="t") as pipe:
        pipe.generate()
    return db


def test_flags_are_stored_at_make_time_and_counted_without_reading_artifacts(tmp_path: Path) -> None:
    db = _made(tmp_path)
    with Store(db) as store:
        rows = store.query("SELECT flags, flag_codes, audit_version FROM artifacts WHERE status != 'failed'")
        assert rows and all(r["audit_version"] == AUDIT_VERSION and r["flags"] is not None for r in rows)
        fresh = audit_database(store, examples=3, store_flags=False)
        stored = stored_counts(store, examples=3)
        assert stored["flags"] == fresh["flags"]
        assert stored["flagged_artifacts"] == fresh["flagged_artifacts"]
        assert stored["audited"] == fresh["audited"] and stored["not_audited"] == {}
        assert status_counts(store)["audit"]["flags"] == fresh["flags"]
        # a change behind the audit's back (no make, no audit) is not seen by the counts:
        # they come from what was stored, not from re-reading the artifacts
        art = must(store.one("SELECT id, content FROM artifacts WHERE dimension = 'refinement' "
                        "AND status != 'failed' ORDER BY id LIMIT 1"))
        c = json.loads(art["content"])
        seed = must(store.one("SELECT answer_text FROM seeds s JOIN artifacts a ON a.seed_id = s.id "
                              "WHERE a.id = ?", (art["id"],)))
        c["w_cot"] = c["gt_cot"].rsplit("\n", 1)[0] + f"\nThe answer is {seed['answer_text']}."
        c["errors"] = [{"type": "arithmetic_inaccuracy", "step": 0}]
        store.execute("UPDATE artifacts SET content = ? WHERE id = ?", (json.dumps(c), art["id"]))
        assert status_counts(store)["audit"]["flags"] == fresh["flags"]
        # audit re-reads, stores, and from then on the counts show it
        again = audit_database(store, examples=0)
        assert again["stored"] == 1
        after = stored_counts(store, examples=5)
        assert after["flags"]["refinement"]["wrong-cot-keeps-gold"] == \
            fresh["flags"].get("refinement", {}).get("wrong-cot-keeps-gold", 0) + 1
        assert any(e["seed_id"] == store.scalar("SELECT seed_id FROM artifacts WHERE id = ?", (art["id"],))
                   for e in after["examples"]["wrong-cot-keeps-gold"])
        assert audit_database(store, examples=0)["stored"] == 0  # nothing changed since


def test_an_old_database_counts_unaudited_artifacts_until_audit_stores_their_flags(tmp_path: Path) -> None:
    db = _made(tmp_path, (1, 2, 3))
    con = sqlite3.connect(db)
    # as a database made before migration 9 holds them (the columns added empty)
    con.execute("UPDATE artifacts SET flags = NULL, flag_codes = NULL, audit_version = NULL")
    con.commit()
    n = con.execute("SELECT COUNT(*) FROM artifacts WHERE status NOT IN ('superseded', 'failed')").fetchone()[0]
    con.close()
    with Store(db) as store:
        before = stored_counts(store, examples=0)
        assert sum(before["not_audited"].values()) == n and before["audited"] == {}
        assert status_counts(store)["audit"]["not_audited"] == before["not_audited"]
        audit_database(store, examples=0)
        after = stored_counts(store, examples=0)
        assert after["not_audited"] == {} and sum(after["audited"].values()) == n
    # an older rule version counts as not audited as well
    con = sqlite3.connect(db)
    con.execute("UPDATE artifacts SET audit_version = ? WHERE id = 1", (AUDIT_VERSION - 1,))
    con.commit()
    con.close()
    with Store(db) as store:
        assert sum(stored_counts(store, examples=0)["not_audited"].values()) == 1


def test_the_count_is_an_index_only_scan(tmp_path: Path) -> None:
    from qcstation.core.review.audit import FLAG_COUNTS_SQL

    with Store(tmp_path / "e.db") as store:
        plan = " ".join(str(r["detail"]) for r in store.query(
            "EXPLAIN QUERY PLAN " + FLAG_COUNTS_SQL, {"dim": "reasoning"}))
    assert "COVERING INDEX artifacts_dim_seed_flags" in plan
