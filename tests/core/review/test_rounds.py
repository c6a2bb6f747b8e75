"""The curator's bulk operations (qcstation/core/review/rounds.py) on real SQLite: a sample
drawn per dimension, then refused with a typed reason; an extension where the gate asks
for one, and why not elsewhere."""

from __future__ import annotations

from db import Store
from qcstation.common.config import QCConfig, parse_config
from qcstation.core.review.decisions import decide, next_item
from qcstation.core.review.rounds import Why, draw_samples, extend_samples, fresh_rounds
from qcstation.core.review.sampling import open_sample
from tests import factories as f


def _qc(**more: object) -> QCConfig:
    return parse_config({"qc": {"dimensions": ["arithmetic", "understanding"], "min_sample": 2,
                                "sample_rate": 0.2, "rng_seed": 5, "curators": ["cur"],
                                **more}}).qc


def test_draw_then_already_open(store: Store) -> None:
    f.populate(store, {"gsm8k": 20})
    qc = _qc()
    first = draw_samples(store, qc, actor="cur")
    assert [(r.dimension, r.scope, r.why_not) for r in first.rounds] == [
        ("arithmetic", "", None), ("understanding", "", None)]
    for r in first.done:
        assert r.sample is not None and open_sample(store, r.dimension) == r.sample
        assert r.plan                                   # the gate's plan, in words
    again = draw_samples(store, qc, actor="cur")
    assert [r.why_not for r in again.rounds] == [Why.ALREADY_OPEN, Why.ALREADY_OPEN]
    assert again.done == [] and again.requeued == 0


def test_extend_only_a_finished_sample_the_gate_asks_more_of(store: Store) -> None:
    f.populate(store, {"gsm8k": 40})
    qc = _qc(defect_threshold=0.1)
    draw_samples(store, qc, actor="cur")
    unfinished = extend_samples(store, qc, actor="cur")
    assert {r.why_not for r in unfinished.rounds} == {Why.UNFINISHED}
    assert all(r.detail for r in unfinished.rounds)     # the gate's next step
    while (item := next_item(store, "ann", "arithmetic")) is not None:
        decide(store, item.item_id, "ann", "accept")
    before = open_sample(store, "arithmetic")
    assert before is not None
    refused = extend_samples(store, _qc(defect_threshold=0.1, curators=["someone"]),
                             actor="cur")
    arith = {r.dimension: r for r in refused.rounds}["arithmetic"]
    assert arith.why_not is Why.REFUSED and "curator" in arith.detail and arith.sample is None
    rounds = extend_samples(store, qc, actor="cur")
    by_dim = {r.dimension: r for r in rounds.rounds}
    assert by_dim["understanding"].why_not is Why.UNFINISHED
    arith = by_dim["arithmetic"]
    assert arith.why_not is None and arith.added == 21 and "defect bound" in arith.because
    assert arith.sample is not None and arith.sample.size == before.size + 21
    assert open_sample(store, "arithmetic") == arith.sample


def test_a_fresh_round_refused_says_why_in_the_curation_words(store: Store) -> None:
    f.populate(store, {"gsm8k": 20})
    qc = _qc()
    draw_samples(store, qc, actor="cur")
    rounds = fresh_rounds(store, qc, [("arithmetic", "")], actor="cur")
    (r,) = rounds.rounds
    assert (r.dimension, r.scope, r.why_not) == ("arithmetic", "", Why.REFUSED) and r.detail
    assert rounds.done == []
