from __future__ import annotations

import json
import multiprocessing as mp
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from db import Store
from qcstation.core.review import qc
from qcstation.common.identity import os_account
from qcstation.common.stats import clopper_pearson_upper, cohen_kappa
from qcstation.common.errors import ReviewError
from tests import factories as f

ROOT = Path(__file__).resolve().parents[3]


def _sampled_keys(store: Store, sample_id: int) -> list[tuple[int, str, str]]:
    return [(r["position"], r["source"], r["orig_id"]) for r in store.query(
        "SELECT si.position, sd.source, sd.orig_id FROM sample_items si "
        "JOIN seeds sd ON sd.id = si.seed_id WHERE si.sample_id = ? ORDER BY si.position",
        (sample_id,))]


def _active_finals(store: Store) -> list[dict]:
    return store.query("SELECT * FROM reviews WHERE undone_at IS NULL "
                       "AND verdict IN ('accept', 'reject') ORDER BY id")


def _decide_all(store: Store, annotator: str, dimension: str,
                reject: set[int] | None = None) -> int:
    n = 0
    while (item := qc.next_item(store, annotator, dimension)) is not None:
        if reject and item.seed_id in reject:
            qc.decide(store, item.item_id, annotator, "reject", "story words left in")
        else:
            qc.decide(store, item.item_id, annotator, "accept")
        n += 1
    return n


# -- sampling -----------------------------------------------------------------------------

def test_sample_is_deterministic_for_a_seed_and_recorded(tmp_path: Path) -> None:
    keys = []
    for name in ("a.db", "b.db"):
        with Store(tmp_path / name) as s:
            f.populate(s, {"gsm8k": 40, "mawps": 20})
            info = qc.draw_sample(s, "arithmetic", rate=0.2, rng_seed=99, actor="lead")
            keys.append(_sampled_keys(s, info.id))
            row = s.one("SELECT * FROM samples WHERE id = ?", (info.id,))
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
        other = qc.draw_sample(s, "arithmetic", rate=0.2, rng_seed=100, actor="lead")
        assert sorted(_sampled_keys(s, other.id)) != sorted(keys[0])


def test_sample_is_stratified_by_source(store: Store) -> None:
    f.populate(store, {"gsm8k": 60, "mawps": 30, "aqua": 3, "aime2024": 1})
    info = qc.draw_sample(store, "understanding", rate=0.1, rng_seed=1, actor="lead")
    per = Counter(i.source for i in qc.list_items(store, info.id))
    # proportional (6, 3) and at least one from each small stratum
    assert per == {"gsm8k": 6, "mawps": 3, "aqua": 1, "aime2024": 1}
    strata = {r["stratum"] for r in store.query("SELECT stratum FROM sample_items")}
    assert strata == {"gsm8k", "mawps", "aqua", "aime2024"}
    # every sampled item is an understanding artifact of the right seed
    for it in qc.list_items(store, info.id):
        assert it.dimension == "understanding" and "problem_scenario" in it.content
        assert it.artifact_status == "verified"


def test_stratified_allocation_properties() -> None:
    alloc = qc.stratified_allocation({"a": 50, "b": 30, "c": 20}, 10)
    assert alloc == {"a": 5, "b": 3, "c": 2}
    alloc = qc.stratified_allocation({"a": 97, "b": 2, "c": 1}, 10)
    assert alloc["b"] >= 1 and alloc["c"] == 1 and alloc["a"] >= 8
    alloc = qc.stratified_allocation({"a": 3, "b": 3}, 100)
    assert alloc == {"a": 3, "b": 3}
    assert qc.stratified_allocation({"a": 0, "b": 4}, 2) == {"b": 2}
    alloc = qc.stratified_allocation({"a": 7, "b": 5, "c": 1}, 4, at_least_one=False)
    assert sum(alloc.values()) == 4 and alloc["c"] == 0


def test_min_size_and_only_current_verified_artifacts_of_active_seeds(store: Store) -> None:
    f.populate(store, {"gsm8k": 10})
    failed = f.add_full_seed(store, 100, statuses={"arithmetic": "failed"})
    pending = f.add_full_seed(store, 101, statuses={"arithmetic": "generated"})
    gone = f.add_full_seed(store, 102)
    store.execute("UPDATE seeds SET status = 'filtered' WHERE id = ?", (gone,))
    info = qc.draw_sample(store, "arithmetic", rate=0.1, rng_seed=3, actor="lead", min_size=5)
    assert info.size == 5                           # ceil(0.1 * 10) = 1 < min_size
    seeds = {i.seed_id for i in qc.list_items(store, info.id)}
    assert not seeds & {failed, pending, gone}
    everything = qc.extend_sample(store, info.id, extra=50, actor="lead", curators=["lead"])
    seeds = {i.seed_id for i in qc.list_items(store, everything.id)}
    assert len(seeds) == 10 and not seeds & {failed, pending, gone}
    with pytest.raises(ReviewError, match="already sampled"):
        qc.extend_sample(store, info.id, extra=1, actor="lead", curators=["lead"])


def test_second_draw_while_open_refused_and_redraw_starts_a_new_round(store: Store) -> None:
    f.populate(store, {"gsm8k": 20, "mawps": 10})
    first = qc.draw_sample(store, "arithmetic", rate=0.2, rng_seed=5, actor="lead")
    with pytest.raises(ReviewError, match="still open"):
        qc.draw_sample(store, "arithmetic", rate=0.2, rng_seed=5, actor="lead")
    assert store.scalar("SELECT COUNT(*) FROM samples") == 1
    # review three items, then re-draw: those seeds are never drawn again, the others are free
    reviewed = set()
    for _ in range(3):
        item = qc.next_item(store, "ann1", "arithmetic")
        assert item is not None
        qc.decide(store, item.item_id, "ann1", "accept")
        reviewed.add(item.seed_id)
    second = qc.draw_sample(store, "arithmetic", rate=0.2, rng_seed=5, actor="lead", redraw=True,
                             curators=["lead"])
    assert second.round == 2 and second.status == "open"
    assert qc.get_sample(store, first.id).status == "failed"
    new_seeds = {i.seed_id for i in qc.list_items(store, second.id)}
    assert not new_seeds & reviewed
    assert second.params["population"] == {"gsm8k": 20 - sum(1 for s in reviewed if s <= 20),
                                           "mawps": 10 - sum(1 for s in reviewed if s > 20)}
    # decisions from the first round still count in the gate
    g = qc.gate(store, "arithmetic", threshold=0.5)
    assert g.reviewed == 3


def test_extend_is_deterministic_and_stratified(tmp_path: Path) -> None:
    got = []
    for name in ("a.db", "b.db"):
        with Store(tmp_path / name) as s:
            f.populate(s, {"gsm8k": 30, "mawps": 30})
            info = qc.draw_sample(s, "arithmetic", rate=0.1, rng_seed=8, actor="lead")
            ext = qc.extend_sample(s, info.id, extra=10, actor="lead", curators=["lead"])
            assert ext.size == info.size + 10
            items = qc.list_items(s, info.id)
            assert [i.position for i in items] == list(range(ext.size))
            assert len({i.seed_id for i in items}) == ext.size        # no seed twice
            assert Counter(i.source for i in items[info.size:]) == {"gsm8k": 5, "mawps": 5}
            assert len(f.events(s, "qc.sample.extended")) == 1
            got.append([i.artifact_id for i in items])
    assert got[0] == got[1]


# -- claims and decisions -----------------------------------------------------------------

def test_claim_decide_skip_undo(store: Store) -> None:
    f.populate(store, {"gsm8k": 30})
    info = qc.draw_sample(store, "arithmetic", rate=0.2, rng_seed=2, actor="lead")
    a = qc.next_item(store, "ann1", "arithmetic")
    b = qc.next_item(store, "ann2", "arithmetic")
    assert a is not None and b is not None and a.item_id != b.item_id
    assert a.claimed_by == "ann1" and a.position == 0 and b.position == 1
    assert a.smtlib and "(assert" in a.smtlib and a.content["notation"]
    again = qc.next_item(store, "ann1", "arithmetic")       # resume: same claim
    assert again is not None and again.item_id == a.item_id
    with pytest.raises(ReviewError, match="being reviewed by ann2"):
        qc.decide(store, b.item_id, "ann1", "accept")

    qc.decide(store, a.item_id, "ann1", "accept")
    assert f.artifact_status(store, a.artifact_id) == "accepted"
    assert qc.get_item(store, a.item_id).claimed_by is None
    with pytest.raises(ReviewError, match="already decided"):
        qc.decide(store, a.item_id, "ann1", "reject", "changes the answer")
    with pytest.raises(ReviewError, match="already decided by ann1"):
        qc.decide(store, a.item_id, "ann3", "accept")

    # skip: the item goes to the back of ann1's queue, others may take it
    c = qc.next_item(store, "ann1", "arithmetic")
    assert c is not None and c.item_id not in (a.item_id, b.item_id)
    qc.decide(store, c.item_id, "ann1", "skip")
    assert f.artifact_status(store, c.artifact_id) == "verified"
    d = qc.next_item(store, "ann1", "arithmetic")
    assert d is not None and d.item_id != c.item_id
    assert qc.progress(store, info.id).skipped == 1
    e = qc.next_item(store, "ann3", "arithmetic")
    assert e is not None and e.item_id == c.item_id           # free for someone else

    # undo the last decision: the review is kept (undone_at), status restored, item re-claimed
    qc.decide(store, d.item_id, "ann1", "reject", "wrong relationship")
    assert f.artifact_status(store, d.artifact_id) == "rejected"
    assert qc.undo_last(store, "ann1") == d.item_id
    assert f.artifact_status(store, d.artifact_id) == "verified"
    row = store.one("SELECT * FROM reviews WHERE sample_item_id = ? AND verdict = 'reject'",
                    (d.item_id,))
    assert row is not None and row["undone_at"] is not None
    assert qc.get_item(store, d.item_id).claimed_by == "ann1"
    back = qc.next_item(store, "ann1", "arithmetic")
    assert back is not None and back.item_id == d.item_id
    # undo again: the skip of c; then the accept of a
    assert qc.undo_last(store, "ann1") == c.item_id
    assert qc.undo_last(store, "ann1") == a.item_id
    assert f.artifact_status(store, a.artifact_id) == "verified"
    assert qc.undo_last(store, "ann1") is None
    assert len(f.events(store, "qc.review.undone")) == 3
    assert {e["action"] for e in store.query("SELECT action FROM events")} >= {
        "qc.review.accept", "qc.review.reject", "qc.review.skip"}
    p = qc.progress(store, info.id)
    assert (p.total, p.reviewed, p.remaining) == (6, 0, 6)
    assert p.sentence() == "0 of 6 reviewed, 0 rejected"


def test_reject_requires_a_reason(store: Store) -> None:
    f.populate(store, {"gsm8k": 10})
    qc.draw_sample(store, "understanding", rate=0.5, rng_seed=2, actor="lead")
    item = qc.next_item(store, "ann1")
    assert item is not None
    for reason in (None, "", "   "):
        with pytest.raises(ReviewError, match="needs a reason"):
            qc.decide(store, item.item_id, "ann1", "reject", reason)
    with pytest.raises(ReviewError, match="unknown verdict"):
        qc.decide(store, item.item_id, "ann1", "maybe")
    assert store.scalar("SELECT COUNT(*) FROM reviews") == 0
    assert f.artifact_status(store, item.artifact_id) == "verified"
    qc.decide(store, item.item_id, "ann1", "reject", "  irrelevant info misfiled ")
    assert qc.reject_feedback(store, item.artifact_id) == "irrelevant info misfiled"
    assert qc.reject_feedback(store, item.artifact_id + 1000) is None


def test_expired_claim_can_be_taken_over(store: Store) -> None:
    f.populate(store, {"gsm8k": 10})
    qc.draw_sample(store, "arithmetic", rate=0.1, rng_seed=4, actor="lead", min_size=1)
    item = qc.next_item(store, "ann1")
    assert item is not None
    assert qc.next_item(store, "ann2") is None                 # the only item is claimed
    store.execute("UPDATE sample_items SET claimed_at = '2000-01-01T00:00:00.000000Z'")
    taken = qc.next_item(store, "ann2")
    assert taken is not None and taken.item_id == item.item_id and taken.claimed_by == "ann2"


def test_after_item_moves_on_and_releases_the_claim(store: Store) -> None:
    f.populate(store, {"gsm8k": 30})
    info = qc.draw_sample(store, "arithmetic", rate=0.1, rng_seed=4, actor="lead")
    first = qc.next_item(store, "ann1")
    assert first is not None
    nxt = qc.next_item(store, "ann1", after_item_id=first.item_id)
    assert nxt is not None and nxt.position == first.position + 1
    assert qc.get_item(store, first.item_id).claimed_by is None
    items = qc.list_items(store, info.id)
    last = qc.next_item(store, "ann1", after_item_id=items[-1].item_id)
    assert last is not None and last.position == 0              # wraps around


# -- reject -> regenerate -> requeue -> gate ------------------------------------------------

def test_reject_regenerate_requeue_accept_then_gate(store: Store) -> None:
    f.populate(store, {"gsm8k": 14, "mawps": 6})
    info = qc.draw_sample(store, "arithmetic", rate=0.5, rng_seed=11, actor="lead")
    assert info.size == 10
    items = qc.list_items(store, info.id)
    bad = items[3]
    _decide_all(store, "ann1", "arithmetic", reject={bad.seed_id})
    assert f.artifact_status(store, bad.artifact_id) == "rejected"

    g = qc.gate(store, "arithmetic", threshold=0.5)
    assert not g.passed and g.open_rejects == 1 and g.pending == 0
    assert g.open_reject_detail == {"awaiting regeneration": 1}
    assert "regenerate 1 rejected item" in g.next_step
    assert g.reviewed == 10 and g.defects == 1
    assert qc.reject_feedback(store, bad.artifact_id) == "story words left in"

    # what the generation loop does: version + 1, replaces_id, re-verified
    new_id = f.regenerate(store, bad.artifact_id, status="verified")
    g = qc.gate(store, "arithmetic", threshold=0.5)
    assert g.open_reject_detail == {"awaiting requeue": 1} and not g.passed
    assert qc.requeue_replacements(store, "lead") == 1
    assert qc.requeue_replacements(store, "lead") == 0          # idempotent
    ev = f.events(store, "qc.requeued")
    assert ev[0]["detail"]["replaces_id"] == bad.artifact_id
    assert ev[0]["detail"]["rejected_item_id"] == bad.item_id

    back = qc.next_item(store, "ann2", "arithmetic")
    assert back is not None
    assert back.artifact_id == new_id and back.replaces_id == bad.artifact_id
    assert back.artifact_version == 2 and back.requeued and back.sample_id == info.id
    assert back.replaces_reason == "story words left in"   # the reviewer sees why v1 failed
    assert back.position == info.size                       # appended at the end
    g = qc.gate(store, "arithmetic", threshold=0.5)
    assert g.open_reject_detail == {"awaiting review": 1} and g.pending == 1

    qc.decide(store, back.item_id, "ann2", "accept")
    g = qc.gate(store, "arithmetic", threshold=0.5)
    # the replacement closes the open reject but is not a random draw: 1 defect in 10
    assert g.open_rejects == 0 and g.reviewed == 10 and g.defects == 1
    assert g.upper_bound == pytest.approx(clopper_pearson_upper(1, 10, 0.95))
    assert g.upper_bound == pytest.approx(0.3942, abs=1e-4)
    assert g.passed and g.blockers == []
    assert not qc.gate(store, "arithmetic", threshold=0.35).passed
    # a rejected row with a replacement can no longer be un-rejected
    p = qc.progress(store, info.id)
    assert (p.total, p.reviewed, p.rejected, p.accepted) == (11, 11, 1, 10)


def test_undo_refused_once_the_reject_was_regenerated(store: Store) -> None:
    f.populate(store, {"gsm8k": 10})
    qc.draw_sample(store, "arithmetic", rate=0.1, rng_seed=4, actor="lead", min_size=1)
    item = qc.next_item(store, "ann1")
    assert item is not None
    qc.decide(store, item.item_id, "ann1", "reject", "changes the answer")
    f.regenerate(store, item.artifact_id)
    with pytest.raises(ReviewError, match="already regenerated"):
        qc.undo_last(store, "ann1")
    assert store.scalar("SELECT COUNT(*) FROM reviews WHERE undone_at IS NULL") == 1


def test_gate_bound_drops_below_threshold_after_59_clean_reviews(store: Store) -> None:
    f.populate(store, {"gsm8k": 70, "mawps": 30})
    g = qc.gate(store, "arithmetic", threshold=0.05)
    assert not g.passed and "no arithmetic sample" in g.blockers[0]
    info = qc.draw_sample(store, "arithmetic", rate=0.1, rng_seed=21, actor="lead")
    g = qc.gate(store, "arithmetic", threshold=0.05)
    assert not g.passed and g.pending == 10 and g.next_step.startswith("review 10 more items")
    assert "5%" in g.rule and "95%" in g.rule and "Clopper-Pearson" in g.rule
    assert _decide_all(store, "ann1", "arithmetic") == 10
    g = qc.gate(store, "arithmetic", threshold=0.05)
    assert not g.passed and g.reviewed == 10 and g.defects == 0
    assert g.upper_bound == pytest.approx(1 - 0.05 ** (1 / 10))
    assert g.needed_reviews == 59
    assert "extend the sample by 49 accepted items" in g.next_step
    qc.extend_sample(store, info.id, extra=48, actor="lead", curators=["lead"])
    _decide_all(store, "ann2", "arithmetic")
    g = qc.gate(store, "arithmetic", threshold=0.05)
    assert g.reviewed == 58 and not g.passed                  # 0/58 -> 5.03%
    qc.extend_sample(store, info.id, extra=1, actor="lead", curators=["lead"])
    _decide_all(store, "ann2", "arithmetic")
    g = qc.gate(store, "arithmetic", threshold=0.05)
    assert g.reviewed == 59 and g.upper_bound == pytest.approx(0.0495, abs=5e-5)
    assert g.passed and g.next_step.startswith("nothing")


def test_gate_open_rejects_block_even_with_a_low_bound(store: Store) -> None:
    f.populate(store, {"gsm8k": 40})
    qc.draw_sample(store, "understanding", rate=1.0, rng_seed=1, actor="lead")
    first = qc.list_items(store, qc.open_sample(store, "understanding").id)[0]  # type: ignore[union-attr]
    _decide_all(store, "ann1", "understanding", reject={first.seed_id})
    g = qc.gate(store, "understanding", threshold=0.2)
    assert g.upper_bound is not None and g.upper_bound < 0.2
    assert not g.passed and g.open_rejects == 1
    assert any("without an accepted replacement" in b for b in g.blockers)


def test_gate_asks_for_coverage_when_new_items_arrive(store: Store) -> None:
    f.populate(store, {"gsm8k": 20})
    info = qc.draw_sample(store, "arithmetic", rate=0.5, rng_seed=1, actor="lead")
    _decide_all(store, "ann1", "arithmetic")
    assert qc.gate(store, "arithmetic", threshold=0.3).passed
    f.populate(store, {"mawps": 10}, start=500)                # a later generation batch
    g = qc.gate(store, "arithmetic", threshold=0.3)
    assert not g.passed and g.required == 15 and g.covered == 10
    assert "extend the sample by 5" in g.next_step
    ext = qc.extend_sample(store, info.id, extra=5, actor="lead", curators=["lead"])
    assert Counter(i.source for i in qc.list_items(store, ext.id)[10:]) == {"mawps": 5}
    _decide_all(store, "ann1", "arithmetic")
    assert qc.gate(store, "arithmetic", threshold=0.3).passed


# -- overlap and agreement ----------------------------------------------------------------

def test_overlap_items_get_two_different_annotators_and_kappa(store: Store) -> None:
    f.populate(store, {"gsm8k": 6})
    info = qc.draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor="lead", overlap_rate=1.0)
    items = qc.list_items(store, info.id)
    assert len(items) == 6 and all(i.overlap for i in items)
    v1 = ["accept", "accept", "accept", "reject", "reject", "accept"]
    v2 = ["accept", "accept", "reject", "reject", "accept", "accept"]
    by_pos = {i.position: i for i in items}
    for who, verdicts in (("ann1", v1), ("ann2", v2)):
        for _ in range(6):
            item = qc.next_item(store, who)
            assert item is not None
            v = verdicts[item.position]
            qc.decide(store, item.item_id, who, v, "wrong relationship" if v == "reject" else None)
        assert qc.next_item(store, who) is None               # never the same item twice
    assert qc.next_item(store, "ann3") is None                # two decisions is enough
    with pytest.raises(ReviewError, match="two decisions"):
        qc.decide(store, items[0].item_id, "ann3", "accept")
    ag = qc.agreement(store, "arithmetic")
    # hand-computed: p_o = 4/6; p_e = (4/6)(4/6) + (2/6)(2/6) = 20/36; kappa = 0.25
    assert ag.pairs == 6 and ag.observed == pytest.approx(4 / 6)
    assert ag.kappa == pytest.approx(0.25)
    assert ag.kappa == pytest.approx(cohen_kappa(v1, v2))
    assert ag.annotators == ["ann1", "ann2"]
    # disagreement counts as a defect (reject wins)
    assert f.artifact_status(store, by_pos[2].artifact_id) == "rejected"
    assert f.artifact_status(store, by_pos[4].artifact_id) == "rejected"
    g = qc.gate(store, "arithmetic", threshold=0.9)
    assert g.defects == 3 and g.reviewed == 6


def test_dashboard_counts(store: Store) -> None:
    f.populate(store, {"gsm8k": 5, "mawps": 5})
    f.add_full_seed(store, 77, statuses={"arithmetic": "failed"})
    qc.draw_sample(store, "arithmetic", rate=0.5, rng_seed=1, actor="lead")
    d = qc.dashboard_counts(store)
    assert d["seeds"] == {"gsm8k": {"active": 6}, "mawps": {"active": 5}}
    assert d["artifacts"]["arithmetic"] == {"failed": 1, "verified": 10}
    assert d["samples"][0]["progress"]["total"] == 6
    assert set(d["gates"]) == {"arithmetic", "understanding"}
    assert d["gates"]["arithmetic"]["passed"] is False
    json.dumps(d)   # JSON-safe for --json output


# -- gate at scale: SQL aggregates against the rule computed item by item ------------------

def _gate_by_hand(store: Store, dimension: str, rate: float) -> dict[str, int]:
    """The gate's counts recomputed in Python from plain rows (the pre-SQL algorithm)."""
    cur: dict[int, dict] = {}
    for a in store.query("SELECT a.*, s.source, s.status AS seed_status FROM artifacts a "
                         "JOIN seeds s ON s.id = a.seed_id WHERE a.dimension = ? "
                         "AND a.status != 'superseded' ORDER BY a.version", (dimension,)):
        cur[int(a["seed_id"])] = a
    items = store.query("SELECT si.*, s.status AS sample_status, a.status AS artifact_status, "
                        "sd.status AS seed_status FROM sample_items si "
                        "JOIN samples s ON s.id = si.sample_id JOIN artifacts a "
                        "ON a.id = si.artifact_id JOIN seeds sd ON sd.id = si.seed_id "
                        "WHERE s.dimension = ? ORDER BY si.id", (dimension,))
    verdicts = {int(i["id"]): {r["verdict"] for r in store.query(
        "SELECT verdict FROM reviews WHERE sample_item_id = ? AND undone_at IS NULL",
        (i["id"],))} for i in items}
    first_reject: dict[int, int] = {}
    for i in items:
        if "reject" in verdicts[int(i["id"])]:
            first_reject.setdefault(int(i["seed_id"]), int(i["id"]))
    reviewed = defects = pending = 0
    taken: set[int] = set()
    for i in items:
        v = verdicts[int(i["id"])]
        decided = bool(v & {"accept", "reject"})
        if decided or i["sample_status"] == "open":
            taken.add(int(i["seed_id"]))
        if not decided and i["sample_status"] == "open" and i["artifact_status"] != "superseded" \
                and i["seed_status"] == "active":
            pending += 1
        if decided and int(i["id"]) <= first_reject.get(int(i["seed_id"]), int(i["id"])):
            reviewed += 1
            defects += "reject" in v
    open_rejects = sum(1 for sid in first_reject if cur[sid]["seed_status"] == "active"
                       and cur[sid]["status"] != "accepted")
    pop: Counter[str] = Counter()
    cov: Counter[str] = Counter()
    for sid, a in cur.items():
        if a["seed_status"] == "active" and (a["status"] in ("verified", "accepted", "rejected")
                                             or sid in taken):
            pop[a["source"]] += 1
            cov[a["source"]] += sid in taken
    required = sum(min(n, -(-n * int(rate * 100) // 100)) for n in pop.values())
    return {"reviewed": reviewed, "defects": defects, "pending": pending,
            "open_rejects": open_rejects, "population": sum(pop.values()),
            "covered": sum(cov.values()), "required": required}


def test_gate_aggregates_match_an_item_by_item_count(store: Store) -> None:
    f.populate(store, {"gsm8k": 40, "mawps": 20, "aqua": 7})
    f.add_full_seed(store, 300, statuses={"arithmetic": "failed"})
    info = qc.draw_sample(store, "arithmetic", rate=0.3, rng_seed=5, actor="lead")
    items = qc.list_items(store, info.id)
    rejected = {items[1].seed_id, items[4].seed_id, items[7].seed_id}
    _decide_all(store, "ann1", "arithmetic", reject=rejected)
    arts = {r["seed_id"]: r["id"] for r in store.query(
        "SELECT seed_id, id FROM artifacts WHERE status = 'rejected'")}
    f.regenerate(store, arts[items[1].seed_id], status="verified")   # requeued, then rejected
    f.regenerate(store, arts[items[4].seed_id], status="failed")
    qc.requeue_replacements(store, "lead")
    back = qc.next_item(store, "ann2", "arithmetic")
    assert back is not None and back.requeued
    qc.decide(store, back.item_id, "ann2", "reject", "still wrong")
    f.populate(store, {"mawps": 9}, start=500)                       # new items: coverage short
    qc.exclude_seed(store, items[7].seed_id, actor="carol", reason="cannot be fixed",
                    curators=["carol"])
    g = qc.gate(store, "arithmetic", threshold=0.2)
    want = _gate_by_hand(store, "arithmetic", 0.3)
    assert {k: getattr(g, k) for k in want} == want
    assert g.open_reject_detail == {"awaiting regeneration": 1, "regeneration failed": 1}
    assert g.extend_by >= g.required - g.covered > 0
    # the dashboard's gates are the same gates; its artifact counts are per current artifact
    d = qc.dashboard_counts(store, threshold=0.2)
    assert d["gates"]["arithmetic"] == g.to_dict()
    assert d["artifacts"]["arithmetic"] == dict(sorted(Counter(
        a["status"] for a in qc.current_artifacts(store, "arithmetic")).items()))


def test_next_step_is_plain_words_and_the_cli_hint_is_separate(store: Store) -> None:
    f.populate(store, {"gsm8k": 20})
    g = qc.gate(store, "arithmetic", threshold=0.5)
    assert g.next_step == "draw a sample" and g.cli_hint == "qcstation qc sample arithmetic"
    info = qc.draw_sample(store, "arithmetic", rate=0.5, rng_seed=1, actor="lead")
    bad = qc.list_items(store, info.id)[0]
    _decide_all(store, "ann1", "arithmetic", reject={bad.seed_id})
    g = qc.gate(store, "arithmetic", threshold=0.5)
    assert g.next_step.startswith("regenerate 1 rejected item")
    assert "qcstation" not in g.next_step and "(" not in g.next_step
    assert "qcstation generate --rejected" in g.cli_hint
    f.regenerate(store, bad.artifact_id, status="verified")
    g = qc.gate(store, "arithmetic", threshold=0.5)
    assert g.next_step.startswith("requeue 1 regenerated items for review")
    assert g.cli_hint == "qcstation qc requeue"
    qc.requeue_replacements(store, "lead")
    _decide_all(store, "ann2", "arithmetic")
    g = qc.gate(store, "arithmetic", threshold=0.5)
    assert g.passed and g.cli_hint == ""


# -- excluding a seed whose artifact cannot be fixed ---------------------------------------

def test_exclude_seed_needs_a_curator_and_a_reason(store: Store) -> None:
    f.populate(store, {"gsm8k": 5})
    sid = 1
    with pytest.raises(ReviewError, match="only a curator") as exc:
        qc.exclude_seed(store, sid, actor="mallory", reason="broken", curators=["carol"])
    assert exc.value.title == "Not allowed"
    with pytest.raises(ReviewError, match="no curators are configured"):
        qc.exclude_seed(store, sid, actor="carol", reason="broken", curators=[])
    for reason in ("", "   "):
        with pytest.raises(ReviewError, match="say why"):
            qc.exclude_seed(store, sid, actor="carol", reason=reason, curators=["carol"])
    with pytest.raises(ReviewError, match="no seed #999"):
        qc.exclude_seed(store, 999, actor="carol", reason="broken", curators=["carol"])
    assert store.scalar("SELECT COUNT(*) FROM seeds WHERE status != 'active'") == 0
    assert f.events(store, "qc.seed.excluded") == []
    store.execute("UPDATE seeds SET status = 'filtered', filter_reason = 'x' WHERE id = 2")
    with pytest.raises(ReviewError, match="is filtered"):
        qc.exclude_seed(store, 2, actor="carol", reason="broken", curators=["carol"])
    qc.exclude_seed(store, sid, actor="carol", reason="broken", curators=["carol"])
    with pytest.raises(ReviewError, match="already excluded"):
        qc.exclude_seed(store, sid, actor="carol", reason="again", curators=["carol"])


def test_excluding_an_unfixable_seed_unblocks_the_gate_but_the_defect_counts(store: Store) -> None:
    f.populate(store, {"gsm8k": 40})
    info = qc.draw_sample(store, "understanding", rate=1.0, rng_seed=1, actor="lead")
    bad = qc.list_items(store, info.id)[0]
    _decide_all(store, "ann1", "understanding", reject={bad.seed_id})
    before = qc.gate(store, "understanding", threshold=0.2)
    assert not before.passed and before.open_rejects == 1
    assert (before.defects, before.reviewed) == (1, 40)

    done = qc.exclude_seed(store, bad.seed_id, actor="carol", reason="  the rule makes the same "
                           "text ", curators=["carol", "dave"])
    assert done["open_rejects_closed"] == {"understanding": "awaiting regeneration"}
    seed = store.one("SELECT * FROM seeds WHERE id = ?", (bad.seed_id,))
    assert seed is not None and seed["status"] == "excluded"
    assert seed["filter_reason"] == "excluded_in_qc"
    assert "the rule makes the same text" in seed["filter_detail"] and "carol" in seed["filter_detail"]
    ev = f.events(store, "qc.seed.excluded")
    assert len(ev) == 1 and ev[0]["actor"] == "carol" and ev[0]["entity_id"] == bad.seed_id
    assert ev[0]["detail"]["reason"] == "the rule makes the same text"
    # the reject no longer blocks; the defect happened and still counts in the bound
    g = qc.gate(store, "understanding", threshold=0.2)
    assert g.open_rejects == 0 and g.open_reject_detail == {}
    assert (g.defects, g.reviewed) == (1, 40)
    assert g.upper_bound == pytest.approx(clopper_pearson_upper(1, 40, 0.95))
    assert g.population == 39 and g.covered == 39
    assert g.passed and g.blockers == []
    # the rejected artifact stays as it was (nothing is lost), and is not requeued
    assert f.artifact_status(store, bad.artifact_id) == "rejected"
    f.regenerate(store, bad.artifact_id, status="verified")
    assert qc.requeue_replacements(store, "lead") == 0
    assert qc.excluded_seeds(store)[0]["excluded_by"] == "carol"


def test_items_of_an_excluded_seed_are_not_handed_out_or_pending(store: Store) -> None:
    f.populate(store, {"gsm8k": 30})
    info = qc.draw_sample(store, "arithmetic", rate=0.2, rng_seed=2, actor="lead")
    held = qc.next_item(store, "ann1", "arithmetic")
    assert held is not None
    assert qc.gate(store, "arithmetic", threshold=0.3).pending == 6
    qc.exclude_seed(store, held.seed_id, actor="carol", reason="garbled seed", curators=["carol"])
    assert qc.get_item(store, held.item_id).claimed_by is None      # the claim is given back
    assert qc.get_item(store, held.item_id).seed_status == "excluded"
    assert qc.gate(store, "arithmetic", threshold=0.3).pending == 5
    p = qc.progress(store, info.id)
    assert (p.total, p.excluded, p.remaining) == (6, 1, 5)
    assert p.sentence() == "0 of 6 reviewed, 0 rejected, 1 excluded"
    seen = set()
    while (item := qc.next_item(store, "ann1", "arithmetic")) is not None:
        seen.add(item.seed_id)
        qc.decide(store, item.item_id, "ann1", "accept")
    assert len(seen) == 5 and held.seed_id not in seen
    assert qc.progress(store, info.id).remaining == 0


def test_cli_exclude_is_for_curators_and_status_prints_the_hint(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    conf = tmp_path / "qcstation.toml"
    conf.write_text('[qc]\ncurators = ["carol"]\ndefect_threshold = 0.3\n', encoding="utf-8")
    with Store(db) as s:
        f.populate(s, {"gsm8k": 10})
        info = qc.draw_sample(s, "arithmetic", rate=1.0, rng_seed=1, actor="lead")
        bad = qc.list_items(s, info.id)[0]
        _decide_all(s, "ann1", "arithmetic", reject={bad.seed_id})
    r = _cli(db, tmp_path, "--config", str(conf), "qc", "status", "arithmetic")
    assert r.returncode == 1
    assert "next: regenerate 1 rejected item" in r.stdout
    assert "run: qcstation generate --rejected" in r.stdout
    # the person is the OS account: typing a curator's name grants nothing
    r = _cli(db, tmp_path, "--config", str(conf), "--annotator", "carol", "qc", "exclude",
             str(bad.seed_id), "--reason", "cannot be fixed")
    assert r.returncode == 2 and "only a curator" in r.stderr
    assert f"the account {os_account()} is not one" in r.stderr
    # the account itself is a curator (matched case-insensitively); --annotator is the name shown
    conf.write_text(f'[qc]\ncurators = ["carol", "{os_account().upper()}"]\n'
                    'defect_threshold = 0.3\n', encoding="utf-8")
    r = _cli(db, tmp_path, "--config", str(conf), "--annotator", "Carol D.", "qc", "exclude",
             str(bad.seed_id), "--reason", "cannot be fixed", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["seed_id"] == bad.seed_id and out["excluded_by"] == os_account()
    with Store(db) as s:
        ev = s.one("SELECT actor, display_name FROM events WHERE action = 'qc.seed.excluded'")
        assert ev == {"actor": os_account(), "display_name": "Carol D."}
        assert s.scalar("SELECT status FROM seeds WHERE id = ?", (bad.seed_id,)) == "excluded"
        assert qc.gate(s, "arithmetic", threshold=0.3).open_rejects == 0


# -- several processes on one database ----------------------------------------------------

@pytest.mark.slow
def test_four_processes_review_one_sample_without_overlap_or_loss(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    with Store(db) as s:
        f.populate(s, {"gsm8k": 40, "mawps": 20})
        info = qc.draw_sample(s, "arithmetic", rate=1.0, rng_seed=3, actor="lead")
        assert info.size == 60
    ctx = mp.get_context("spawn")
    start = ctx.Barrier(4)
    results = ctx.Queue()
    procs = [ctx.Process(target=f.review_worker, args=(str(db), f"ann{n}", "arithmetic", start, results))
             for n in range(4)]
    for p in procs:
        p.start()
    got = [results.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0
    errors = [e for _, _, _, errs in got for e in errs]
    assert errors == []                                    # no "database is locked", no refusals
    decided = [i for _, d, _, _ in got for i in d]
    assert len(decided) == len(set(decided)) == 60         # each item decided once, by one worker
    assert sum(1 for _, d, _, _ in got if d) >= 2          # the work really was shared
    with Store(db) as s:
        finals = _active_finals(s)
        per_item = Counter(r["sample_item_id"] for r in finals)
        assert len(per_item) == 60 and set(per_item.values()) == {1}
        owner = {i: who for who, d, _, _ in got for i in d}
        assert all(owner[r["sample_item_id"]] == r["annotator"] for r in finals)
        for r in finals:                                   # artifact status follows the verdict
            want = "rejected" if r["verdict"] == "reject" else "accepted"
            assert f.artifact_status(s, r["artifact_id"]) == want
        decisions = s.scalar("SELECT COUNT(*) FROM events WHERE action IN "
                             "('qc.review.accept', 'qc.review.reject')")
        assert decisions == 60
        assert qc.progress(s, info.id).remaining == 0


@pytest.mark.slow
def test_four_processes_deciding_the_same_item_exactly_one_wins(tmp_path: Path) -> None:
    db = tmp_path / "race.db"
    with Store(db) as s:
        f.populate(s, {"gsm8k": 10})
        info = qc.draw_sample(s, "arithmetic", rate=0.1, rng_seed=3, actor="lead", min_size=1)
        item_id = qc.list_items(s, info.id)[0].item_id
    ctx = mp.get_context("spawn")
    start = ctx.Barrier(4)
    results = ctx.Queue()
    procs = [ctx.Process(target=f.race_decide_worker, args=(str(db), f"ann{n}", item_id, start, results))
             for n in range(4)]
    for p in procs:
        p.start()
    got = [results.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=30)
    outcomes = [o for _, o in got]
    assert outcomes.count("ok") == 1
    assert all(o.startswith("refused: ") and "already decided" in o for o in outcomes if o != "ok")
    with Store(db) as s:
        assert len(_active_finals(s)) == 1


def _cli(db: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("QCSTATION_USER", None)
    return subprocess.run([sys.executable, "-m", "qcstation", "--db", str(db), *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_cli_annotators_in_parallel_processes(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    with Store(db) as s:
        f.populate(s, {"gsm8k": 5, "mawps": 3})
    r = _cli(db, tmp_path, "--annotator", "lead", "qc", "sample", "arithmetic", "--rate", "1",
             "--seed", "5", "--json")
    assert r.returncode == 0, r.stderr
    sample = json.loads(r.stdout)[0]
    assert sample["size"] == 8 and sample["rng_seed"] == 5
    assert sample["created_by"] == os_account()              # the account, not the typed name
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = False
    rounds = 0
    while not done:
        rounds += 1
        assert rounds < 10
        procs = [subprocess.Popen(
            [sys.executable, "-m", "qcstation", "--db", str(db), "--annotator", f"ann{n}",
             "qc", "decide", "next", "accept", "--json"],
            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for n in range(4)]
        outs = [(p.wait(timeout=120), p.stdout.read(), p.stderr.read()) for p in procs]  # type: ignore[union-attr]
        # four sessions of one OS account (one person, four terminals): the names typed
        # are display names only; a session may be refused an item its twin just decided
        for code, out, err in outs:
            assert code in (0, 1, 2), err
            assert "locked" not in err
            if code == 1:
                assert "nothing left to review" in err
            if code == 2:
                assert "already decided" in err
        done = all(code == 1 for code, _, _ in outs)
    with Store(db) as s:
        per_item = Counter(r["sample_item_id"] for r in _active_finals(s))
        assert len(per_item) == 8 and set(per_item.values()) == {1}
        assert {r["annotator"] for r in _active_finals(s)} == {os_account()}
        assert {r["display_name"] for r in _active_finals(s)} <= {"ann0", "ann1", "ann2", "ann3"}
    r = _cli(db, tmp_path, "--annotator", "ann0", "qc", "undo", "--json")
    assert r.returncode == 0, r.stderr
    r = _cli(db, tmp_path, "qc", "status", "arithmetic", "--json")
    assert r.returncode == 1                                 # one item pending again
    status = json.loads(r.stdout)["arithmetic"]
    assert status["gate"]["reviewed"] == 7 and status["gate"]["pending"] == 1
    r = _cli(db, tmp_path, "--annotator", "ann0", "qc", "decide", "next", "reject")
    assert r.returncode == 2 and "needs a reason" in r.stderr
