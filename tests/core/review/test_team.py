"""The team room: per-annotator figures and agreement (qcstation/core/review/team.py)."""

from __future__ import annotations

from db import Store
from qcstation.core.review.team import team_stats
from tests.core.review.helpers import overlap_disagreement


def test_team_stats_per_annotator_and_kappa_with_a_note(store: Store) -> None:
    overlap_disagreement(store)
    stats = team_stats(store, ["arithmetic"])
    people = {p["annotator"]: p for p in stats["annotators"]}
    assert people["ann"]["decided"] == 20 and people["ann"]["rejects"] == 2
    assert people["bob"]["decided"] == 2 and people["bob"]["reject_rate"] == 0
    assert people["ann"]["per_hour"] is None          # 20 decisions within seconds: no rate
    a = stats["agreement"]["arithmetic"]
    assert a["pairs"] == 2 and "too few to mean anything" in a["note"]
    assert a["disagreed"] == 2


def test_kappa_comes_with_a_note_and_ac1_when_it_says_little(store: Store) -> None:
    from qcstation.core.review.decisions import decide, next_item
    from qcstation.core.review.sampling import draw_sample
    from tests import factories as f

    f.populate(store, {"gsm8k": 48})
    draw_sample(store, "arithmetic", rate=1.0, rng_seed=2, actor="lead", overlap_rate=1.0)
    while (item := next_item(store, "ann", "arithmetic")) is not None:
        decide(store, item.item_id, "ann", "accept")        # ann never rejects
    first = True
    while (item := next_item(store, "bob", "arithmetic")) is not None:
        if first:
            decide(store, item.item_id, "bob", "reject", "changes the answer")
            first = False
        else:
            decide(store, item.item_id, "bob", "accept")
    a = team_stats(store, ["arithmetic"])["agreement"]["arithmetic"]
    assert a["pairs"] == 48 and round(a["observed"], 3) == 0.979
    assert round(a["kappa"], 2) == 0.0 and round(a["ac1"], 2) == 0.98
    assert a["note"].startswith("kappa says little here: ann never rejected an overlap item")


def test_the_team_figures_read_the_active_reviews_index_not_the_table(store: Store) -> None:
    from qcstation.core.review.team import PEOPLE_SQL

    overlap_disagreement(store)
    plan = " | ".join(r[3] for r in store.conn.execute("EXPLAIN QUERY PLAN " + PEOPLE_SQL))
    assert "SCAN reviews USING COVERING INDEX reviews_active_annotator" in plan, plan
