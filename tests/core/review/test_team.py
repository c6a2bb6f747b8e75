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
