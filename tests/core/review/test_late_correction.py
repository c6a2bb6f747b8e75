"""A defect found after the gate passed: a curator corrects the accepted item, the correction
counts as the defect it reveals, the gate goes out of reach and says only what changes that,
and a fresh random round of the corrected data is taken to a passing gate (real SQLite, real
Z3; qcstation/core/review/{fixes,curation,gate}.py)."""

from __future__ import annotations

from typing import TypedDict

import pytest

from db import Store
from qcstation.common.errors import ReviewError
from qcstation.core.review.curation import fresh_round
from qcstation.core.review.decisions import decide, next_item
from qcstation.core.review.fixes import fix_in_place
from qcstation.core.review.gate import gate
from qcstation.core.review.items import list_items
from qcstation.core.review.sampling import draw_sample
from tests import factories as f

CURATORS = ("lead",)


class _Gate(TypedDict):
    threshold: float
    confidence: float


GATE: _Gate = {"threshold": 0.05, "confidence": 0.95}


def _accept_all(store: Store, who: str) -> int:
    n = 0
    while (item := next_item(store, who, "arithmetic")) is not None:
        decide(store, item.item_id, who, "accept")
        n += 1
    return n


def _correct(store: Store, item_id: int, seed_index: int, who: str = "lead") -> dict:
    p = f.problem(seed_index)
    text = (f"Given a = {p['a']}, b = {p['b']} and c = {p['c']}, let t = a + b and "
            f"answer = t × c. Find answer.")
    return fix_in_place(store, item_id, text, actor=who, reason="the question hid a step",
                        curators=CURATORS)


def test_a_late_correction_is_a_defect_and_a_fresh_round_reaches_a_passing_gate(
        store: Store) -> None:
    f.populate(store, {"gsm8k": 93})
    first = draw_sample(store, "arithmetic", rate=1.0, rng_seed=3, actor="lead")
    assert _accept_all(store, "ann") == 93
    assert gate(store, "arithmetic", **GATE).passed
    # a curator finds two accepted items defective; an annotator may not correct them
    items = [i for i in list_items(store, first.id) if i.outcome == "accept"][:2]
    index = {i.seed_id: int(i.orig_id.rsplit("-", 1)[1]) for i in items}
    with pytest.raises(ReviewError, match="only a curator can correct gsm8k-"):
        _correct(store, items[0].item_id, index[items[0].seed_id], who="ann")
    with pytest.raises(ReviewError, match="Z3 does not verify"):
        fix_in_place(store, items[0].item_id, "Let a = 1, b = 2. Let answer = a + b. "
                     "What is the value of answer?", actor="lead", reason="x", curators=CURATORS)
    done = [_correct(store, i.item_id, index[i.seed_id]) for i in items]
    assert all(d["late_correction"] and d["verify"] == "verified" for d in done)
    g = gate(store, "arithmetic", **GATE)
    # each correction counts as the defect it reveals; the corrected versions are accepted
    assert (g.defects, g.reviewed, g.open_rejects, g.passed) == (2, 93, 0, False)
    assert "only 0 unsampled items are left: out of reach" in g.next_step
    assert "a curator starts a fresh random round (qcstation qc fresh arithmetic)" in g.next_step
    assert "fix rejected" not in g.next_step and "exclude" not in g.next_step
    assert g.cli_hint == "qcstation qc fresh arithmetic"
    # a fresh round is a curator's, and only for corrected data
    with pytest.raises(ReviewError, match="only a curator can start a fresh round"):
        fresh_round(store, "arithmetic", actor="ann", curators=CURATORS, rate=0.1, rng_seed=9,
                    **GATE)
    fresh = fresh_round(store, "arithmetic", actor="lead", curators=CURATORS, rate=0.1,
                        rng_seed=9, **GATE)
    assert (fresh["size"], fresh["needs"], fresh["defects_before"]) == (59, 59, 2)
    g = gate(store, "arithmetic", **GATE)
    assert (g.reviewed, g.defects, g.pending, g.passed) == (0, 0, 59, False)
    # the same annotator may review the corrected data again; all accepted, the gate passes
    assert _accept_all(store, "ann") == 59
    g = gate(store, "arithmetic", **GATE)
    assert g.passed and (g.reviewed, g.defects) == (59, 0)
    assert [e["detail"]["defects_before"] for e in f.events(store, "qc.fresh_round")] == [2]
    # the release's QC record says which round the gate counted, and keeps the first
    from qcstation.core.release.releases import QCPolicy, _qc_section

    qc = _qc_section(store, QCPolicy(curators=CURATORS, dimensions=("arithmetic",)))
    assert qc["arithmetic"]["gate_counts_from_round"] == 2
    assert [x["round"] for x in qc["arithmetic"]["samples"]] == [1, 2]


def test_a_fresh_round_is_refused_when_it_would_not_be_honest(store: Store) -> None:
    f.populate(store, {"gsm8k": 70})
    draw_sample(store, "arithmetic", rate=0.1, rng_seed=3, actor="lead")
    def fresh() -> None:
        fresh_round(store, "arithmetic", actor="lead", curators=CURATORS, rate=0.1, rng_seed=9, **GATE)

    with pytest.raises(ReviewError, match="no defect has been found"):
        fresh()
    item = next_item(store, "ann", "arithmetic")
    assert item is not None
    decide(store, item.item_id, "ann", "reject", "changes the answer")
    with pytest.raises(ReviewError, match="still undecided"):
        fresh()
    _accept_all(store, "ann")
    with pytest.raises(ReviewError, match="1 rejected arithmetic item"):
        fresh()


def test_a_population_too_small_for_the_threshold_says_so_plainly(store: Store) -> None:
    f.populate(store, {"gsm8k": 10})
    draw_sample(store, "arithmetic", rate=1.0, rng_seed=3, actor="lead")
    _accept_all(store, "ann")
    g = gate(store, "arithmetic", **GATE)
    assert not g.passed
    assert ("at this size the gate cannot pass: even all 10 verified items reviewed without a "
            "defect give an upper bound of 25.9%, not below 5%; it needs at least 59 verified "
            "items (import more seeds) or a [qc] defect_threshold above 25.9%") in g.next_step
