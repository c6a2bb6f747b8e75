"""The decisions room: claims, decisions, skips, undo and changes, by one annotator or several
processes at once (qcstation/core/review/decisions.py)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from db import Store
from db.artifacts import reject_feedback
from qcstation.common.errors import ReviewError
from qcstation.common.stats import cohen_kappa
from qcstation.core.review.decisions import (
    change_decision,
    decide,
    next_item,
    undo_last,
)
from qcstation.core.review.gate import gate, progress
from qcstation.core.review.items import get_item, list_items
from qcstation.core.review.sampling import (
    draw_sample,
)
from qcstation.core.review.team import agreement
from tests import factories as f
from tests.core.review.helpers import active_finals, claim
from tests.must import must


# -- claims and decisions --------------------------------------------------------------

def test_claim_decide_skip_undo(store: Store) -> None:
    f.populate(store, {"gsm8k": 30})
    info = draw_sample(store, "arithmetic", rate=0.2, rng_seed=2, actor="lead")
    a = next_item(store, "ann1", "arithmetic")
    b = next_item(store, "ann2", "arithmetic")
    assert a is not None and b is not None and a.item_id != b.item_id
    assert a.claimed_by == "ann1" and a.position == 0 and b.position == 1
    assert a.smtlib and "(assert" in a.smtlib and a.content["notation"]
    again = next_item(store, "ann1", "arithmetic")       # resume: same claim
    assert again is not None and again.item_id == a.item_id
    with pytest.raises(ReviewError, match="being reviewed by ann2"):
        decide(store, b.item_id, "ann1", "accept")

    decide(store, a.item_id, "ann1", "accept")
    assert f.artifact_status(store, a.artifact_id) == "accepted"
    assert get_item(store, a.item_id).claimed_by is None
    with pytest.raises(ReviewError, match="already decided"):
        decide(store, a.item_id, "ann1", "reject", "changes the answer")
    with pytest.raises(ReviewError, match="already decided by ann1"):
        decide(store, a.item_id, "ann3", "accept")

    # skip: the item goes to the back of ann1's queue, others may take it
    c = next_item(store, "ann1", "arithmetic")
    assert c is not None and c.item_id not in (a.item_id, b.item_id)
    decide(store, c.item_id, "ann1", "skip")
    assert f.artifact_status(store, c.artifact_id) == "verified"
    d = next_item(store, "ann1", "arithmetic")
    assert d is not None and d.item_id != c.item_id
    assert progress(store, info.id).skipped == 1
    e = next_item(store, "ann3", "arithmetic")
    assert e is not None and e.item_id == c.item_id           # free for someone else

    # undo the last decision: the review is kept (undone_at), status restored, item re-claimed
    decide(store, d.item_id, "ann1", "reject", "wrong relationship")
    assert f.artifact_status(store, d.artifact_id) == "rejected"
    assert undo_last(store, "ann1") == d.item_id
    assert f.artifact_status(store, d.artifact_id) == "verified"
    row = store.one("SELECT * FROM reviews WHERE sample_item_id = ? AND verdict = 'reject'",
                    (d.item_id,))
    assert row is not None and row["undone_at"] is not None
    assert get_item(store, d.item_id).claimed_by == "ann1"
    back = next_item(store, "ann1", "arithmetic")
    assert back is not None and back.item_id == d.item_id
    # undo again: the skip of c; then the accept of a
    assert undo_last(store, "ann1") == c.item_id
    assert undo_last(store, "ann1") == a.item_id
    assert f.artifact_status(store, a.artifact_id) == "verified"
    assert undo_last(store, "ann1") is None
    assert len(f.events(store, "qc.review.undone")) == 3
    assert {e["action"] for e in store.query("SELECT action FROM events")} >= {
        "qc.review.accept", "qc.review.reject", "qc.review.skip"}
    p = progress(store, info.id)
    assert (p.total, p.reviewed, p.remaining) == (6, 0, 6)
    assert p.sentence() == "0 of 6 reviewed, 0 rejected"


def test_reject_requires_a_reason(store: Store) -> None:
    f.populate(store, {"gsm8k": 10})
    draw_sample(store, "understanding", rate=0.5, rng_seed=2, actor="lead")
    item = next_item(store, "ann1")
    assert item is not None
    for reason in (None, "", "   "):
        with pytest.raises(ReviewError, match="needs a reason"):
            decide(store, item.item_id, "ann1", "reject", reason)
    with pytest.raises(ReviewError, match="unknown verdict"):
        decide(store, item.item_id, "ann1", "maybe")
    assert store.scalar("SELECT COUNT(*) FROM reviews") == 0
    assert f.artifact_status(store, item.artifact_id) == "verified"
    decide(store, item.item_id, "ann1", "reject", "  irrelevant info misfiled ")
    assert reject_feedback(store, item.artifact_id) == "irrelevant info misfiled"
    assert reject_feedback(store, item.artifact_id + 1000) is None


def test_a_reason_far_too_long_says_how_long_it_was(store: Store) -> None:
    """attack10: a 120,000-character reason was refused as '2000 characters' (the length
    after a cut the user never made); what it holds past the cut is not silently dropped."""
    f.populate(store, {"gsm8k": 10})
    draw_sample(store, "understanding", rate=0.5, rng_seed=2, actor="lead")
    item = must(next_item(store, "ann1"))
    with pytest.raises(ReviewError, match=r"120,000 characters; at most 500"):
        decide(store, item.item_id, "ann1", "reject", "a" * 120_000)
    with pytest.raises(ReviewError, match=r"2,500 characters"):
        decide(store, item.item_id, "ann1", "reject", "\x1b" * 2400 + "b" * 100)
    assert store.scalar("SELECT COUNT(*) FROM reviews") == 0


def test_expired_claim_can_be_taken_over(store: Store) -> None:
    f.populate(store, {"gsm8k": 10})
    draw_sample(store, "arithmetic", rate=0.1, rng_seed=4, actor="lead", min_size=1)
    item = next_item(store, "ann1")
    assert item is not None
    assert next_item(store, "ann2") is None                 # the only item is claimed
    store.execute("UPDATE sample_items SET claimed_at = '2000-01-01T00:00:00.000000Z'")
    taken = next_item(store, "ann2")
    assert taken is not None and taken.item_id == item.item_id and taken.claimed_by == "ann2"


def test_after_item_moves_on_and_releases_the_claim(store: Store) -> None:
    f.populate(store, {"gsm8k": 30})
    info = draw_sample(store, "arithmetic", rate=0.1, rng_seed=4, actor="lead")
    first = next_item(store, "ann1")
    assert first is not None
    nxt = next_item(store, "ann1", after_item_id=first.item_id)
    assert nxt is not None and nxt.position == first.position + 1
    assert get_item(store, first.item_id).claimed_by is None
    items = list_items(store, info.id)
    last = next_item(store, "ann1", after_item_id=items[-1].item_id)
    assert last is not None and last.position == 0              # wraps around


def test_undo_refused_once_the_reject_was_regenerated(store: Store) -> None:
    f.populate(store, {"gsm8k": 10})
    draw_sample(store, "arithmetic", rate=0.1, rng_seed=4, actor="lead", min_size=1)
    item = next_item(store, "ann1")
    assert item is not None
    decide(store, item.item_id, "ann1", "reject", "changes the answer")
    f.regenerate(store, item.artifact_id)
    with pytest.raises(ReviewError, match="already regenerated"):
        undo_last(store, "ann1")
    assert store.scalar("SELECT COUNT(*) FROM reviews WHERE undone_at IS NULL") == 1


def test_alice_and_Alice_are_one_annotator(store: Store) -> None:
    f.populate(store, {"gsm8k": 10})
    draw_sample(store, "arithmetic", rate=0.5, rng_seed=1, actor="lead")
    item = claim(store, "Alice", "arithmetic")
    decide(store, item.item_id, "alice", "accept")
    with pytest.raises(ReviewError, match="already decided"):
        decide(store, item.item_id, "ALICE", "reject", "changes the answer")
    assert store.scalar("SELECT annotator FROM reviews") == "alice"


def test_the_event_log_keeps_account_and_display_name(store: Store) -> None:
    f.populate(store, {"gsm8k": 10})
    draw_sample(store, "arithmetic", rate=0.5, rng_seed=1, actor="lead")
    store.display_name = "Bob B."
    item = claim(store, "bob", "arithmetic")
    decide(store, item.item_id, "bob", "reject", "story words left in",
           comment="line one\nline\x07 two", unsure=True)
    row = store.one("SELECT annotator, display_name, comment, unsure FROM reviews")
    assert row == {"annotator": "bob", "display_name": "Bob B.",
                   "comment": "line one\nline two", "unsure": 1}
    ev = must(store.one("SELECT actor, display_name, detail FROM events WHERE action = 'qc.review.reject'"))
    assert (ev["actor"], ev["display_name"]) == ("bob", "Bob B.")
    assert json.loads(ev["detail"])["unsure"] is True


def test_any_earlier_decision_of_your_own_can_be_changed(store: Store) -> None:
    f.populate(store, {"gsm8k": 10})
    draw_sample(store, "arithmetic", rate=1.0, rng_seed=2, actor="lead")
    first = claim(store, "ann", "arithmetic")
    r1 = decide(store, first.item_id, "ann", "accept")
    second = claim(store, "ann", "arithmetic")
    decide(store, second.item_id, "ann", "accept")
    with pytest.raises(ReviewError, match="is ann's, not yours"):
        change_decision(store, r1, "bob", "reject", "x")
    new = change_decision(store, r1, "ann", "reject", "changes the answer", unsure=True)
    rows = store.query("SELECT id, verdict, undone_at, changes_id FROM reviews "
                       "WHERE sample_item_id = ? ORDER BY id", (first.item_id,))
    assert [(r["verdict"], r["undone_at"] is None, r["changes_id"]) for r in rows] == \
        [("accept", False, None), ("reject", True, r1)]
    assert rows[1]["id"] == new
    assert f.artifact_status(store, first.artifact_id) == "rejected"
    assert f.events(store, "qc.review.reject")[0]["detail"]["changes_review_id"] == r1


# -- overlap items ---------------------------------------------------------------------

def test_overlap_items_get_two_different_annotators_and_kappa(store: Store) -> None:
    f.populate(store, {"gsm8k": 6})
    info = draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor="lead", overlap_rate=1.0)
    items = list_items(store, info.id)
    assert len(items) == 6 and all(i.overlap for i in items)
    v1 = ["accept", "accept", "accept", "reject", "reject", "accept"]
    v2 = ["accept", "accept", "reject", "reject", "accept", "accept"]
    by_pos = {i.position: i for i in items}
    for who, verdicts in (("ann1", v1), ("ann2", v2)):
        for _ in range(6):
            item = next_item(store, who)
            assert item is not None
            v = verdicts[item.position]
            decide(store, item.item_id, who, v, "wrong relationship" if v == "reject" else None)
        assert next_item(store, who) is None                  # never the same item twice
    assert next_item(store, "ann3") is None                   # two decisions is enough
    with pytest.raises(ReviewError, match="two decisions"):
        decide(store, items[0].item_id, "ann3", "accept")
    ag = agreement(store, "arithmetic")
    # hand-computed: p_o = 4/6; p_e = (4/6)(4/6) + (2/6)(2/6) = 20/36; kappa = 0.25
    assert ag.pairs == 6 and ag.observed == pytest.approx(4 / 6)
    assert ag.kappa == pytest.approx(0.25)
    assert ag.kappa == pytest.approx(cohen_kappa(v1, v2))
    assert ag.annotators == ["ann1", "ann2"]
    # disagreement counts as a defect (reject wins)
    assert f.artifact_status(store, by_pos[2].artifact_id) == "rejected"
    assert f.artifact_status(store, by_pos[4].artifact_id) == "rejected"
    g = gate(store, "arithmetic", threshold=0.9)
    assert g.defects == 3 and g.reviewed == 6


# -- several processes on one database -------------------------------------------------

@pytest.mark.slow
def test_four_processes_review_one_sample_without_overlap_or_loss(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    with Store(db) as s:
        f.populate(s, {"gsm8k": 40, "mawps": 20})
        info = draw_sample(s, "arithmetic", rate=1.0, rng_seed=3, actor="lead")
        assert info.size == 60
    got = f.run_at_once(f.review_worker, [(str(db), f"ann{n}", "arithmetic") for n in range(4)])
    errors = [e for _, _, _, errs in got for e in errs]
    assert errors == []                                    # no "database is locked", no refusals
    decided = [i for _, d, _, _ in got for i in d]
    assert len(decided) == len(set(decided)) == 60         # each item decided once, by one worker
    assert sum(1 for _, d, _, _ in got if d) >= 2          # the work really was shared
    with Store(db) as s:
        finals = active_finals(s)
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
        assert progress(s, info.id).remaining == 0


@pytest.mark.slow
def test_four_processes_deciding_the_same_item_exactly_one_wins(tmp_path: Path) -> None:
    db = tmp_path / "race.db"
    with Store(db) as s:
        f.populate(s, {"gsm8k": 10})
        info = draw_sample(s, "arithmetic", rate=0.1, rng_seed=3, actor="lead", min_size=1)
        item_id = list_items(s, info.id)[0].item_id
    got = f.run_at_once(f.race_decide_worker, [(str(db), f"ann{n}", item_id) for n in range(4)])
    outcomes = [o for _, o in got]
    assert outcomes.count("ok") == 1
    assert all(o.startswith("refused: ") and "already decided" in o for o in outcomes if o != "ok")
    with Store(db) as s:
        assert len(active_finals(s)) == 1


def test_my_latest_decisions_are_read_newest_first_from_the_index(store: Store) -> None:
    from qcstation.core.review.decisions import MY_DECISIONS_SQL, my_decisions

    f.populate(store, {"gsm8k": 8})
    draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor="lead")
    decided = [decide(store, item.item_id, "ann", "accept")
               for item in iter(lambda: next_item(store, "ann", "arithmetic"), None)]
    assert [d["review_id"] for d in my_decisions(store, "ann", limit=3)] == decided[::-1][:3]
    plan = " | ".join(r[3] for r in store.conn.execute("EXPLAIN QUERY PLAN " + MY_DECISIONS_SQL,
                                                       ("ann", 200)))
    assert "USING INDEX reviews_active_by_id" in plan and "TEMP B-TREE" not in plan, plan
