"""``generate`` and ``verify`` read the seeds a page at a time (issue 30.1: a run held every
seed row, 1-2 GB at a million seeds): no query returns more than a page of seed rows, and the
artifacts made are those of a run over the whole selection at once. Real GSM8K seeds, real Z3,
real SQLite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from db import Store
from qcstation.common.config import load_config
from qcstation.core.construct.pipeline import Pipeline
from tests.conftest import dataset

CFG = load_config(None, env={})


def _db(tmp_path: Path, name: str, n: int = 14) -> Path:
    from qcstation.core.ingest.importer import import_file

    sample = tmp_path / "gsm8k.jsonl"
    if not sample.exists():
        lines = dataset("gsm8k/test.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
        sample.write_text("".join(lines[:n]), encoding="utf-8")
    db = tmp_path / name
    with Store(db) as store:
        import_file(store, sample, "gsm8k")
    return db


def _made(db: Path) -> list[tuple[Any, ...]]:
    """Every artifact, independent of ids: (seed, dimension, version, status, generator, content)."""
    with Store(db) as s:
        return [(r["orig_id"], r["dimension"], r["version"], r["status"], r["generator"],
                 json.loads(r["content"]) if r["content"] else None)
                for r in s.query("SELECT s.orig_id, a.dimension, a.version, a.status, a.generator, "
                                 "a.content FROM artifacts a JOIN seeds s ON s.id = a.seed_id "
                                 "ORDER BY s.orig_id, a.dimension, a.version")]


class _Spy:
    """Wraps a pipeline's store.query: the size of every page of seed rows read."""

    def __init__(self, p: Pipeline) -> None:
        self.pages: list[int] = []
        self._query = p.store.query
        p.store.query = self  # type: ignore[method-assign]

    def __call__(self, sql: str, params: Any = ()) -> list[dict[str, Any]]:
        rows = self._query(sql, params)
        if sql.startswith("SELECT * FROM seeds"):
            self.pages.append(len(rows))
        return rows


def test_generate_reads_a_page_of_seeds_at_a_time_and_makes_the_same_artifacts(tmp_path: Path) -> None:
    paged, whole = _db(tmp_path, "paged.db"), _db(tmp_path, "whole.db")
    with Store(paged) as s:
        active = int(s.scalar("SELECT COUNT(*) FROM seeds WHERE status = 'active'"))
    assert active > 8
    marks: list[tuple[int, int, str]] = []
    with Pipeline(paged, CFG, progress=lambda d, t, m: marks.append((d, t, m))) as p:
        p.PAGE = 4
        spy = _Spy(p)
        summary = p.generate()
    # every dimension reads every active seed, four rows at a time
    assert spy.pages and max(spy.pages) == 4
    assert sum(spy.pages) == 4 * active
    with Pipeline(whole, CFG) as p:
        p.PAGE = 10_000
        again = p.generate()
    assert _made(paged) == _made(whole) != []
    assert summary.to_dict()["dimensions"] == again.to_dict()["dimensions"]
    # progress counts the seeds of each dimension, up to all of them
    for dim in ("reasoning", "arithmetic", "understanding", "refinement"):
        mine = [(d, t) for d, t, m in marks if m.startswith(dim)]
        assert mine[-1] == (active, active) and all(t == active for _, t in mine)
        assert [d for d, _ in mine] == sorted(d for d, _ in mine)


def test_a_limit_and_seeds_imported_during_a_run_hold_across_pages(tmp_path: Path) -> None:
    db = _db(tmp_path, "limit.db")
    with Pipeline(db, CFG) as p:
        p.PAGE = 3
        with Store(db) as s:
            ids = [int(r["id"]) for r in s.query("SELECT id FROM seeds WHERE status = 'active' "
                                                  "ORDER BY id")]
        pages = list(p.seed_pages(source=None, limit=7))
        assert [len(page) for page in pages] == [3, 3, 1]
        assert [r["id"] for page in pages for r in page] == ids[:7]
        assert p.count_seeds(source=None, limit=7) == 7
        # a seed imported while a run pages is not taken (one query at the start would not)
        top = p.last_seed_id()
        reading = p.seed_pages(source=None, limit=None, up_to=top)
        read = next(reading)
        p.store.execute("INSERT INTO seeds (source, orig_id, question, answer_text, answer_value, "
                        "level, status, content_hash, imported_at) SELECT source, orig_id || '-late', "
                        "question || ' Late.', answer_text, answer_value, level, status, "
                        "content_hash || 'x', imported_at FROM seeds WHERE id = ?", (read[0]["id"],))
        read += [r for page in reading for r in page]
        assert [r["id"] for r in read] == ids and p.last_seed_id() > top
        summary = p.generate(limit=5)
    with Store(db) as s:
        made = [int(r["seed_id"]) for r in s.query("SELECT DISTINCT seed_id FROM artifacts ORDER BY 1")]
    assert made and set(made) <= set(ids[:5])
    assert sum(summary.counts["reasoning"].values()) == 5
