"""Helpers shared by the review rooms' tests: deciding a whole sample, claiming, an overlap
disagreement, and a database the real pipeline made from the shipped sample (offline)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from db import Store
from qcstation.core.review.curation import queue
from qcstation.core.review.decisions import decide, next_item
from qcstation.core.review.items import ReviewItem, get_item
from qcstation.core.review.sampling import draw_sample
from tests import factories as f


def sampled_keys(store: Store, sample_id: int) -> list[tuple[int, str, str]]:
    return [(r["position"], r["source"], r["orig_id"]) for r in store.query(
        "SELECT si.position, sd.source, sd.orig_id FROM sample_items si "
        "JOIN seeds sd ON sd.id = si.seed_id WHERE si.sample_id = ? ORDER BY si.position",
        (sample_id,))]


def active_finals(store: Store) -> list[dict]:
    return store.query("SELECT * FROM reviews WHERE undone_at IS NULL "
                       "AND verdict IN ('accept', 'reject') ORDER BY id")


def decide_all(store: Store, annotator: str, dimension: str,
               reject: set[int] | None = None) -> int:
    n = 0
    while (item := next_item(store, annotator, dimension)) is not None:
        if reject and item.seed_id in reject:
            decide(store, item.item_id, annotator, "reject", "story words left in")
        else:
            decide(store, item.item_id, annotator, "accept")
        n += 1
    return n


def claim(store: Store, who: str, dimension: str) -> ReviewItem:
    item = next_item(store, who, dimension)
    assert item is not None
    return item


def overlap_disagreement(store: Store) -> ReviewItem:
    f.populate(store, {"gsm8k": 20})
    draw_sample(store, "arithmetic", rate=1.0, rng_seed=2, actor="lead", overlap_rate=0.1)
    while (item := next_item(store, "ann", "arithmetic")) is not None:
        verdict = "reject" if item.overlap else "accept"
        decide(store, item.item_id, "ann", verdict, "changes the answer")
    while (item := next_item(store, "bob", "arithmetic")) is not None:
        decide(store, item.item_id, "bob", "accept")
    disputed = [r for r in queue(store, state="disagreed")]
    assert len(disputed) == 2
    return get_item(store, disputed[0].item_id)


@pytest.fixture(scope="module")
def shipped_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from qcstation.common.config import parse_config
    from qcstation.core.construct.pipeline import Pipeline
    from qcstation.core.ingest.importer import import_file, shipped_samples

    path = tmp_path_factory.mktemp("shipped") / "template.db"
    with Store(path) as store:
        for sample_path, fmt in shipped_samples():
            import_file(store, sample_path, fmt, actor="importer")
    cfg = parse_config({}, "<test>")
    with Pipeline(path, cfg, actor="generator") as p:
        p.generate(dimensions=["reasoning", "arithmetic", "understanding", "refinement"])
    with Store(path) as store:
        for dimension in ("arithmetic", "understanding"):
            draw_sample(store, dimension, rate=0.1, rng_seed=12345, actor="lead")
        store.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.fixture
def shipped(shipped_template: Path, tmp_path: Path) -> Iterator[Store]:
    path = tmp_path / "shipped.db"
    shutil.copy(shipped_template, path)
    s = Store(path)
    yield s
    s.close()
