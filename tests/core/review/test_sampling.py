"""The sampling room: seeded stratified draws, extensions, re-draws and requeued replacements
(qcstation/core/review/sampling.py)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from db import Store
from db.artifacts import reject_feedback
from qcstation.common.errors import ReviewError
from qcstation.common.stats import clopper_pearson_upper
from qcstation.core.review.decisions import decide, next_item
from qcstation.core.review.gate import gate, progress
from qcstation.core.review.items import list_items
from qcstation.core.review.sampling import (
    draw_sample,
    extend_sample,
    get_sample,
    requeue_replacements,
    stratified_allocation,
)
from tests import factories as f
from tests.core.review.helpers import decide_all, sampled_keys
from tests.must import must


# -- drawing ---------------------------------------------------------------------------

def test_sample_is_deterministic_for_a_seed_and_recorded(tmp_path: Path) -> None:
    keys = []
    for name in ("a.db", "b.db"):
        with Store(tmp_path / name) as s:
            f.populate(s, {"gsm8k": 40, "mawps": 20})
            info = draw_sample(s, "arithmetic", rate=0.2, rng_seed=99, actor="lead")
            keys.append(sampled_keys(s, info.id))
            row = must(s.one("SELECT * FROM samples WHERE id = ?", (info.id,)))
            assert row["rng_seed"] == 99 and row["rate"] == 0.2 and row["round"] == 1
            params = json.loads(row["params"])
            assert params["population"] == {"gsm8k": 40, "mawps": 20}
            assert params["allocation"] == {"gsm8k": 8, "mawps": 4}
            ids = [r["artifact_id"] for r in s.query(
                "SELECT artifact_id FROM sample_items WHERE sample_id = ? ORDER BY position",
                (info.id,))]
            assert params["artifact_ids"] == ids
            ev = f.events(s, "qc.sample.drawn")
            assert len(ev) == 1 and ev[0]["detail"]["rng_seed"] == 99
            assert ev[0]["detail"]["size"] == 12 and ev[0]["actor"] == "lead"
    assert keys[0] == keys[1]
    assert len(keys[0]) == 12
    with Store(tmp_path / "c.db") as s:
        f.populate(s, {"gsm8k": 40, "mawps": 20})
        other = draw_sample(s, "arithmetic", rate=0.2, rng_seed=100, actor="lead")
        assert sorted(sampled_keys(s, other.id)) != sorted(keys[0])


def test_sample_is_stratified_by_source(store: Store) -> None:
    f.populate(store, {"gsm8k": 60, "mawps": 30, "aqua": 3, "aime2024": 1})
    info = draw_sample(store, "understanding", rate=0.1, rng_seed=1, actor="lead")
    per = Counter(i.source for i in list_items(store, info.id))
    # proportional (6, 3) and at least one from each small stratum
    assert per == {"gsm8k": 6, "mawps": 3, "aqua": 1, "aime2024": 1}
    strata = {r["stratum"] for r in store.query("SELECT stratum FROM sample_items")}
    assert strata == {"gsm8k", "mawps", "aqua", "aime2024"}
    # every sampled item is an understanding artifact of the right seed
    for it in list_items(store, info.id):
        assert it.dimension == "understanding" and "problem_scenario" in it.content
        assert it.artifact_status == "verified"


def test_stratified_allocation_properties() -> None:
    alloc = stratified_allocation({"a": 50, "b": 30, "c": 20}, 10)
    assert alloc == {"a": 5, "b": 3, "c": 2}
    alloc = stratified_allocation({"a": 97, "b": 2, "c": 1}, 10)
    assert alloc["b"] >= 1 and alloc["c"] == 1 and alloc["a"] >= 8
    alloc = stratified_allocation({"a": 3, "b": 3}, 100)
    assert alloc == {"a": 3, "b": 3}
    assert stratified_allocation({"a": 0, "b": 4}, 2) == {"b": 2}
    alloc = stratified_allocation({"a": 7, "b": 5, "c": 1}, 4, at_least_one=False)
    assert sum(alloc.values()) == 4 and alloc["c"] == 0


def test_min_size_and_only_current_verified_artifacts_of_active_seeds(store: Store) -> None:
    f.populate(store, {"gsm8k": 10})
    failed = f.add_full_seed(store, 100, statuses={"arithmetic": "failed"})
    pending = f.add_full_seed(store, 101, statuses={"arithmetic": "generated"})
    gone = f.add_full_seed(store, 102)
    store.execute("UPDATE seeds SET status = 'filtered' WHERE id = ?", (gone,))
    info = draw_sample(store, "arithmetic", rate=0.1, rng_seed=3, actor="lead", min_size=5)
    assert info.size == 5                           # ceil(0.1 * 10) = 1 < min_size
    seeds = {i.seed_id for i in list_items(store, info.id)}
    assert not seeds & {failed, pending, gone}
    everything = extend_sample(store, info.id, extra=50, actor="lead", curators=["lead"])
    seeds = {i.seed_id for i in list_items(store, everything.id)}
    assert len(seeds) == 10 and not seeds & {failed, pending, gone}
    with pytest.raises(ReviewError, match="already sampled"):
        extend_sample(store, info.id, extra=1, actor="lead", curators=["lead"])


def test_second_draw_while_open_refused_and_redraw_starts_a_new_round(store: Store) -> None:
    f.populate(store, {"gsm8k": 20, "mawps": 10})
    first = draw_sample(store, "arithmetic", rate=0.2, rng_seed=5, actor="lead")
    with pytest.raises(ReviewError, match="still open"):
        draw_sample(store, "arithmetic", rate=0.2, rng_seed=5, actor="lead")
    assert store.scalar("SELECT COUNT(*) FROM samples") == 1
    # review three items, then re-draw: those seeds are never drawn again, the others are free
    reviewed = set()
    for _ in range(3):
        item = next_item(store, "ann1", "arithmetic")
        assert item is not None
        decide(store, item.item_id, "ann1", "accept")
        reviewed.add(item.seed_id)
    second = draw_sample(store, "arithmetic", rate=0.2, rng_seed=5, actor="lead", redraw=True,
                             curators=["lead"])
    assert second.round == 2 and second.status == "open"
    assert get_sample(store, first.id).status == "failed"
    new_seeds = {i.seed_id for i in list_items(store, second.id)}
    assert not new_seeds & reviewed
    assert second.params["population"] == {"gsm8k": 20 - sum(1 for s in reviewed if s <= 20),
                                           "mawps": 10 - sum(1 for s in reviewed if s > 20)}
    # decisions from the first round still count in the gate
    g = gate(store, "arithmetic", threshold=0.5)
    assert g.reviewed == 3


def test_extend_is_deterministic_and_stratified(tmp_path: Path) -> None:
    got = []
    for name in ("a.db", "b.db"):
        with Store(tmp_path / name) as s:
            f.populate(s, {"gsm8k": 30, "mawps": 30})
            info = draw_sample(s, "arithmetic", rate=0.1, rng_seed=8, actor="lead")
            ext = extend_sample(s, info.id, extra=10, actor="lead", curators=["lead"])
            assert ext.size == info.size + 10
            items = list_items(s, info.id)
            assert [i.position for i in items] == list(range(ext.size))
            assert len({i.seed_id for i in items}) == ext.size        # no seed twice
            assert Counter(i.source for i in items[info.size:]) == {"gsm8k": 5, "mawps": 5}
            assert len(f.events(s, "qc.sample.extended")) == 1
            got.append([i.artifact_id for i in items])
    assert got[0] == got[1]


def test_redraw_and_extend_are_for_curators(store: Store) -> None:
    f.populate(store, {"gsm8k": 30})
    info = draw_sample(store, "arithmetic", rate=0.1, rng_seed=1, actor="ann", min_size=3)
    with pytest.raises(ReviewError, match="only a curator can extend a sample"):
        extend_sample(store, info.id, extra=2, actor="ann", curators=["carol"])
    with pytest.raises(ReviewError, match="only a curator can re-draw a sample"):
        draw_sample(store, "arithmetic", rate=0.1, rng_seed=1, actor="ann", redraw=True,
                    curators=["carol"])
    ext = extend_sample(store, info.id, extra=2, actor="Carol", curators=["carol"],
                        reason="coverage")
    assert ext.size == info.size + 2 and ext.params["extensions"][-1]["reason"] == "coverage"


# -- reject -> regenerate -> requeue -> gate -------------------------------------------

def test_reject_regenerate_requeue_accept_then_gate(store: Store) -> None:
    f.populate(store, {"gsm8k": 14, "mawps": 6})
    info = draw_sample(store, "arithmetic", rate=0.5, rng_seed=11, actor="lead")
    assert info.size == 10
    items = list_items(store, info.id)
    bad = items[3]
    decide_all(store, "ann1", "arithmetic", reject={bad.seed_id})
    assert f.artifact_status(store, bad.artifact_id) == "rejected"

    g = gate(store, "arithmetic", threshold=0.5)
    assert not g.passed and g.open_rejects == 1 and g.pending == 0
    assert g.open_reject_detail == {"awaiting regeneration": 1}
    assert "regenerate 1 rejected item" in g.next_step
    assert g.reviewed == 10 and g.defects == 1
    assert reject_feedback(store, bad.artifact_id) == "story words left in"

    # what the generation loop does: version + 1, replaces_id, re-verified
    new_id = f.regenerate(store, bad.artifact_id, status="verified")
    g = gate(store, "arithmetic", threshold=0.5)
    assert g.open_reject_detail == {"awaiting requeue": 1} and not g.passed
    assert requeue_replacements(store, "lead") == 1
    assert requeue_replacements(store, "lead") == 0          # idempotent
    ev = f.events(store, "qc.requeued")
    assert ev[0]["detail"]["replaces_id"] == bad.artifact_id
    assert ev[0]["detail"]["rejected_item_id"] == bad.item_id

    back = next_item(store, "ann2", "arithmetic")
    assert back is not None
    assert back.artifact_id == new_id and back.replaces_id == bad.artifact_id
    assert back.artifact_version == 2 and back.requeued and back.sample_id == info.id
    assert back.replaces_reason == "story words left in"   # the reviewer sees why v1 failed
    assert back.position == info.size                       # appended at the end
    g = gate(store, "arithmetic", threshold=0.5)
    assert g.open_reject_detail == {"awaiting review": 1} and g.pending == 1

    decide(store, back.item_id, "ann2", "accept")
    g = gate(store, "arithmetic", threshold=0.5)
    # the replacement closes the open reject but is not a random draw: 1 defect in 10
    assert g.open_rejects == 0 and g.reviewed == 10 and g.defects == 1
    assert g.upper_bound == pytest.approx(clopper_pearson_upper(1, 10, 0.95))
    assert g.upper_bound == pytest.approx(0.3942, abs=1e-4)
    assert g.passed and g.blockers == []
    assert not gate(store, "arithmetic", threshold=0.35).passed
    # a rejected row with a replacement can no longer be un-rejected
    p = progress(store, info.id)
    assert (p.total, p.reviewed, p.rejected, p.accepted) == (11, 11, 1, 10)
