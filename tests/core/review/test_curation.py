"""The curation room: excluding seeds, curators' resolutions (settle, override) and the curator
queue (qcstation/core/review/curation.py)."""

from __future__ import annotations

import pytest

from db import Store
from qcstation.common.errors import ReviewError, SearchError
from qcstation.common.stats import clopper_pearson_upper
from qcstation.core.review.curation import (
    exclude_seed,
    excluded_seeds,
    override,
    queue,
    settle,
)
from qcstation.core.review.decisions import decide, next_item
from qcstation.core.review.gate import gate, progress
from qcstation.core.review.items import ReviewItem, get_item, list_items
from qcstation.core.review.sampling import (
    draw_sample,
    requeue_replacements,
)
from qcstation.core.review.team import agreement
from tests import factories as f
from tests.core.review.helpers import claim, decide_all, overlap_disagreement


# -- excluding a seed whose artifact cannot be fixed -----------------------------------

def test_exclude_seed_needs_a_curator_and_a_reason(store: Store) -> None:
    f.populate(store, {"gsm8k": 5})
    sid = 1
    with pytest.raises(ReviewError, match="only a curator") as exc:
        exclude_seed(store, sid, actor="mallory", reason="broken", curators=["carol"])
    assert exc.value.title == "Not allowed"
    with pytest.raises(ReviewError, match="no curators are configured"):
        exclude_seed(store, sid, actor="carol", reason="broken", curators=[])
    for reason in ("", "   "):
        with pytest.raises(ReviewError, match="say why"):
            exclude_seed(store, sid, actor="carol", reason=reason, curators=["carol"])
    with pytest.raises(ReviewError, match="no seed #999"):
        exclude_seed(store, 999, actor="carol", reason="broken", curators=["carol"])
    assert store.scalar("SELECT COUNT(*) FROM seeds WHERE status != 'active'") == 0
    assert f.events(store, "qc.seed.excluded") == []
    store.execute("UPDATE seeds SET status = 'filtered', filter_reason = 'x' WHERE id = 2")
    with pytest.raises(ReviewError, match="is filtered"):
        exclude_seed(store, 2, actor="carol", reason="broken", curators=["carol"])
    exclude_seed(store, sid, actor="carol", reason="broken", curators=["carol"])
    with pytest.raises(ReviewError, match="already excluded"):
        exclude_seed(store, sid, actor="carol", reason="again", curators=["carol"])


def test_excluding_an_unfixable_seed_unblocks_the_gate_but_the_defect_counts(store: Store) -> None:
    f.populate(store, {"gsm8k": 40})
    info = draw_sample(store, "understanding", rate=1.0, rng_seed=1, actor="lead")
    bad = list_items(store, info.id)[0]
    decide_all(store, "ann1", "understanding", reject={bad.seed_id})
    before = gate(store, "understanding", threshold=0.2)
    assert not before.passed and before.open_rejects == 1
    assert (before.defects, before.reviewed) == (1, 40)

    done = exclude_seed(store, bad.seed_id, actor="carol", reason="  the rule makes the same "
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
    g = gate(store, "understanding", threshold=0.2)
    assert g.open_rejects == 0 and g.open_reject_detail == {}
    assert (g.defects, g.reviewed) == (1, 40)
    assert g.upper_bound == pytest.approx(clopper_pearson_upper(1, 40, 0.95))
    assert g.population == 39 and g.covered == 39
    assert g.passed and g.blockers == []
    # the rejected artifact stays as it was (nothing is lost), and is not requeued
    assert f.artifact_status(store, bad.artifact_id) == "rejected"
    f.regenerate(store, bad.artifact_id, status="verified")
    assert requeue_replacements(store, "lead") == 0
    assert excluded_seeds(store)[0]["excluded_by"] == "carol"


def test_items_of_an_excluded_seed_are_not_handed_out_or_pending(store: Store) -> None:
    f.populate(store, {"gsm8k": 30})
    info = draw_sample(store, "arithmetic", rate=0.2, rng_seed=2, actor="lead")
    held = next_item(store, "ann1", "arithmetic")
    assert held is not None
    assert gate(store, "arithmetic", threshold=0.3).pending == 6
    exclude_seed(store, held.seed_id, actor="carol", reason="garbled seed", curators=["carol"])
    assert get_item(store, held.item_id).claimed_by is None      # the claim is given back
    assert get_item(store, held.item_id).seed_status == "excluded"
    assert gate(store, "arithmetic", threshold=0.3).pending == 5
    p = progress(store, info.id)
    assert (p.total, p.excluded, p.remaining) == (6, 1, 5)
    assert p.sentence() == "0 of 6 reviewed, 0 rejected, 1 excluded"
    seen = set()
    while (item := next_item(store, "ann1", "arithmetic")) is not None:
        seen.add(item.seed_id)
        decide(store, item.item_id, "ann1", "accept")
    assert len(seen) == 5 and held.seed_id not in seen
    assert progress(store, info.id).remaining == 0


# -- resolutions -----------------------------------------------------------------------

def test_settling_a_disagreement_is_what_the_gate_counts(store: Store) -> None:
    item = overlap_disagreement(store)
    before = gate(store, "arithmetic", threshold=0.3)
    kappa_before = agreement(store, "arithmetic").to_dict()
    assert before.defects == 2 and item.disagreed
    with pytest.raises(ReviewError, match="only a curator"):
        settle(store, item.item_id, verdict="accept", reason="fine", actor="ann",
               curators=["carol"])
    with pytest.raises(ReviewError, match="say why"):
        settle(store, item.item_id, verdict="accept", reason="  ", actor="carol",
               curators=["carol"])
    done = settle(store, item.item_id, verdict="accept", reason="the notation is right",
                  actor="Carol", curators=["carol"])
    assert done["curator"] == "carol" and done["artifact_status"] == "accepted"
    after = gate(store, "arithmetic", threshold=0.3)
    assert after.defects == 1 and after.reviewed == before.reviewed
    # both original decisions stay; kappa still sees them
    assert [d["verdict"] for d in get_item(store, item.item_id).decisions] == \
        ["reject", "accept"]
    assert agreement(store, "arithmetic").to_dict() == kappa_before
    assert [r.state for r in queue(store, state="settled")] == ["settled"]
    with pytest.raises(ReviewError, match="no open disagreement"):
        settle(store, item.item_id, verdict="reject", reason="x", actor="carol",
               curators=["carol"])


def test_override_closes_an_open_reject_and_is_logged(store: Store) -> None:
    f.populate(store, {"gsm8k": 10})
    draw_sample(store, "arithmetic", rate=1.0, rng_seed=2, actor="lead")
    item = claim(store, "ann", "arithmetic")
    decide(store, item.item_id, "ann", "reject", "story words left in")
    assert gate(store, "arithmetic", threshold=0.5).open_rejects == 1
    assert [r.state for r in queue(store, state="rejected")] == ["awaiting replacement"]
    override(store, item.item_id, verdict="accept", reason="no story words: misread",
             actor="carol", curators=["carol"])
    g = gate(store, "arithmetic", threshold=0.5)
    assert g.open_rejects == 0 and g.defects == 0
    assert f.artifact_status(store, item.artifact_id) == "accepted"
    ev = f.events(store, "qc.override")[0]
    assert ev["actor"] == "carol" and ev["detail"]["reason"] == \
        "no story words: misread"
    row = queue(store, state="overridden")[0]
    assert row.key == f"{item.source}-{item.orig_id}" and "misread" in row.note


# -- the curator queue -----------------------------------------------------------------

def test_queue_filters(store: Store) -> None:
    f.populate(store, {"gsm8k": 6, "mawps": 6})
    draw_sample(store, "arithmetic", rate=1.0, rng_seed=2, actor="lead")
    seen: list[ReviewItem] = []
    while (item := next_item(store, "ann", "arithmetic")) is not None:
        if len(seen) == 0:
            decide(store, item.item_id, "ann", "reject", "garbled text")
        elif len(seen) == 1:
            decide(store, item.item_id, "ann", "skip")
        else:
            decide(store, item.item_id, "ann", "accept")
        seen.append(item)
        if len(seen) == 4:
            break
    assert [r.item_id for r in queue(store, state="rejected")] == [seen[0].item_id]
    assert [r.item_id for r in queue(store, state="skipped")] == [seen[1].item_id]
    assert [r.item_id for r in queue(store, reason="GARBLED")] == [seen[0].item_id]
    assert len(queue(store, annotator="ANN")) == 4
    assert queue(store, annotator="bob") == []
    assert {r.source for r in queue(store, source="mawps")} == {"mawps"}
    assert len(queue(store, state="pending")) == 12 - 4
    with pytest.raises(ReviewError, match="unknown state"):
        queue(store, state="lost")


def test_queue_text_searches_questions_reasons_comments_and_curators(store: Store) -> None:
    f.populate(store, {"gsm8k": 8})
    with store.transaction():
        store.execute("UPDATE seeds SET question = 'A baker sells 3.5 loaves of rye bread.' "
                      "WHERE id = (SELECT MIN(id) FROM seeds)")
    draw_sample(store, "arithmetic", rate=1.0, rng_seed=2, actor="lead")
    items = {}
    while (item := next_item(store, "ann", "arithmetic")) is not None:
        items[item.seed_id] = item
        decide(store, item.item_id, "ann", "accept")
    bread = min(items)
    ids = sorted(items)
    rejected = items[ids[1]]
    override(store, rejected.item_id, verdict="reject", reason="the duration is wrong",
             actor="carol", curators=["carol"])
    noted = items[ids[2]]
    undone = items[ids[3]]
    with store.transaction():   # a comment, and a reason of a decision since undone
        store.execute("UPDATE reviews SET comment = 'ticket price unclear' "
                      "WHERE sample_item_id = ?", (noted.item_id,))
        store.execute("UPDATE reviews SET reason = 'ticket', undone_at = 'x' "
                      "WHERE sample_item_id = ?", (undone.item_id,))

    def found(text: str, **kw: object) -> list[int]:
        return [r.seed_id for r in queue(store, text=text, **kw)]  # type: ignore[arg-type]

    assert found("rye bread") == [bread]                    # the question
    assert found("3.5 loaves") == [bread]                   # plain words, as typed
    assert found("duration") == [rejected.seed_id]          # a curator's reason
    assert found("ticket") == [noted.seed_id]               # a comment; not an undone review
    assert found("bread OR duration") == sorted([bread, rejected.seed_id])
    assert found("bread", state="rejected") == []           # with the other filters
    assert found("duration", state="overridden") == [rejected.seed_id]
    with pytest.raises(SearchError, match="cannot search for 'bread\\)'"):
        queue(store, text="bread)")


def test_each_state_filter_keeps_exactly_the_items_of_that_state(store: Store) -> None:
    """The state filter narrows the candidates in SQL (a million-seed queue builds only the
    items that can have the state); what it keeps is what the whole queue says, state by
    state, on a database holding every state."""
    from qcstation.core.review.curation import QUEUE_STATES

    f.populate(store, {"gsm8k": 30})
    sample = draw_sample(store, "arithmetic", rate=1.0, rng_seed=2, actor="lead",
                         overlap_rate=0.2)
    plan = ["reject", "skip", "override", "accept", "reject", "accept"]
    n = 0
    while n < len(plan) and (item := next_item(store, "ann", "arithmetic")) is not None:
        verdict = "reject" if item.overlap else plan[n]
        decide(store, item.item_id, "ann", "reject" if verdict == "override" else verdict,
               "garbled" if verdict in ("reject", "override") else None)
        if verdict == "override":
            override(store, item.item_id, verdict="accept", reason="misread", actor="carol",
                     curators=["carol"])
        n += 1
    while (item := next_item(store, "bob", "arithmetic")) is not None and item.overlap:
        decide(store, item.item_id, "bob", "accept")              # disagrees with ann
        break
    pending = [i for i in list_items(store, sample.id) if not i.decisions]
    exclude_seed(store, pending[0].seed_id, reason="cannot be fixed", actor="carol",
                 curators=["carol"])
    everything = queue(store, limit=10_000)
    states = {r.state for r in everything}
    assert {"awaiting replacement", "skipped", "overridden", "accepted", "excluded",
            "pending"} <= states, states
    for state in QUEUE_STATES:
        want = [r.item_id for r in everything
                if r.state == state or (state == "rejected" and r.state in (
                    "rejected", "awaiting replacement"))]
        assert [r.item_id for r in queue(store, state=state, limit=10_000)] == want, state


def test_the_queue_continues_after_a_row_as_one_longer_read(store: Store) -> None:
    """``after`` = the last row's (dimension, item id) gives the rows that follow it in one
    longer read, across dimensions, for the paged states, the few-item states (read from an
    index) and a text search: the curator queue reads its next page without the ones before."""
    f.populate(store, {"gsm8k": 14})
    with store.transaction():
        store.execute("UPDATE seeds SET question = question || ' bread' WHERE id % 2 = 0")
    for dimension in ("arithmetic", "understanding"):
        draw_sample(store, dimension, rate=1.0, rng_seed=2, actor="lead")
    n = 0
    while (item := next_item(store, "ann")) is not None and n < 12:
        decide(store, item.item_id, "ann", ("reject", "skip", "accept")[n % 3],
               "garbled" if n % 3 == 0 else None)
        n += 1
    for kw in ({}, {"state": "skipped"}, {"state": "rejected"}, {"text": "bread"},
               {"dimension": "understanding"}):
        everything = queue(store, limit=10_000, **kw)  # type: ignore[arg-type]
        assert len({r.dimension for r in everything}) == (1 if kw.get("dimension") else 2) \
            or kw.get("state"), kw
        for cut in range(len(everything)):
            last = everything[cut]
            rest = queue(store, limit=3, after=(last.dimension, last.item_id), **kw)
            assert [r.item_id for r in rest] == \
                [r.item_id for r in everything[cut + 1:cut + 4]], (kw, cut)
