"""The gate room: the QC gate's rule, its SQL aggregates against an item-by-item count, its
planning and wording, and the dashboard counts (qcstation/core/review/gate.py)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from db import Store
from qcstation.core.review.curation import exclude_seed
from qcstation.core.review.decisions import decide, next_item
from qcstation.core.review.gate import (
    GateStatus,
    bound_text,
    dashboard_counts,
    gate,
    gate_plan,
)
from qcstation.core.review.items import list_items
from qcstation.core.review.queries import current_artifacts
from qcstation.core.review.sampling import (
    draw_sample,
    extend_sample,
    open_sample,
    requeue_replacements,
)
from tests import factories as f
from tests.core.review.helpers import decide_all


# -- the rule --------------------------------------------------------------------------

def test_gate_bound_drops_below_threshold_after_59_clean_reviews(store: Store) -> None:
    f.populate(store, {"gsm8k": 70, "mawps": 30})
    g = gate(store, "arithmetic", threshold=0.05)
    assert not g.passed and "no arithmetic sample" in g.blockers[0]
    info = draw_sample(store, "arithmetic", rate=0.1, rng_seed=21, actor="lead")
    g = gate(store, "arithmetic", threshold=0.05)
    assert not g.passed and g.pending == 10 and g.next_step.startswith("review 10 more items")
    assert "5%" in g.rule and "95%" in g.rule and "Clopper-Pearson" in g.rule
    assert decide_all(store, "ann1", "arithmetic") == 10
    g = gate(store, "arithmetic", threshold=0.05)
    assert not g.passed and g.reviewed == 10 and g.defects == 0
    assert g.upper_bound == pytest.approx(1 - 0.05 ** (1 / 10))
    assert g.needed_reviews == 59
    assert "extend the sample by 49 accepted items" in g.next_step
    extend_sample(store, info.id, extra=48, actor="lead", curators=["lead"])
    decide_all(store, "ann2", "arithmetic")
    g = gate(store, "arithmetic", threshold=0.05)
    assert g.reviewed == 58 and not g.passed                  # 0/58 -> 5.03%
    extend_sample(store, info.id, extra=1, actor="lead", curators=["lead"])
    decide_all(store, "ann2", "arithmetic")
    g = gate(store, "arithmetic", threshold=0.05)
    assert g.reviewed == 59 and g.upper_bound == pytest.approx(0.0495, abs=5e-5)
    assert g.passed and g.next_step.startswith("nothing")


def test_gate_open_rejects_block_even_with_a_low_bound(store: Store) -> None:
    f.populate(store, {"gsm8k": 40})
    draw_sample(store, "understanding", rate=1.0, rng_seed=1, actor="lead")
    first = list_items(store, open_sample(store, "understanding").id)[0]  # type: ignore[union-attr]
    decide_all(store, "ann1", "understanding", reject={first.seed_id})
    g = gate(store, "understanding", threshold=0.2)
    assert g.upper_bound is not None and g.upper_bound < 0.2
    assert not g.passed and g.open_rejects == 1
    assert any("without an accepted replacement" in b for b in g.blockers)


def test_gate_asks_for_coverage_when_new_items_arrive(store: Store) -> None:
    f.populate(store, {"gsm8k": 20})
    info = draw_sample(store, "arithmetic", rate=0.5, rng_seed=1, actor="lead")
    decide_all(store, "ann1", "arithmetic")
    assert gate(store, "arithmetic", threshold=0.3).passed
    f.populate(store, {"mawps": 10}, start=500)                # a later generation batch
    g = gate(store, "arithmetic", threshold=0.3)
    assert not g.passed and g.required == 15 and g.covered == 10
    assert "extend the sample by 5" in g.next_step
    ext = extend_sample(store, info.id, extra=5, actor="lead", curators=["lead"])
    assert Counter(i.source for i in list_items(store, ext.id)[10:]) == {"mawps": 5}
    decide_all(store, "ann1", "arithmetic")
    assert gate(store, "arithmetic", threshold=0.3).passed


def test_dashboard_counts(store: Store) -> None:
    f.populate(store, {"gsm8k": 5, "mawps": 5})
    f.add_full_seed(store, 77, statuses={"arithmetic": "failed"})
    draw_sample(store, "arithmetic", rate=0.5, rng_seed=1, actor="lead")
    d = dashboard_counts(store)
    assert d["seeds"] == {"gsm8k": {"active": 6}, "mawps": {"active": 5}}
    assert d["artifacts"]["arithmetic"] == {"failed": 1, "verified": 10}
    assert d["samples"][0]["progress"]["total"] == 6
    assert set(d["gates"]) == {"arithmetic", "understanding"}
    assert d["gates"]["arithmetic"]["passed"] is False
    json.dumps(d)   # JSON-safe for --json output


# -- gate at scale: SQL aggregates against the rule computed item by item --------------

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
    info = draw_sample(store, "arithmetic", rate=0.3, rng_seed=5, actor="lead")
    items = list_items(store, info.id)
    rejected = {items[1].seed_id, items[4].seed_id, items[7].seed_id}
    decide_all(store, "ann1", "arithmetic", reject=rejected)
    arts = {r["seed_id"]: r["id"] for r in store.query(
        "SELECT seed_id, id FROM artifacts WHERE status = 'rejected'")}
    f.regenerate(store, arts[items[1].seed_id], status="verified")   # requeued, then rejected
    f.regenerate(store, arts[items[4].seed_id], status="failed")
    requeue_replacements(store, "lead")
    back = next_item(store, "ann2", "arithmetic")
    assert back is not None and back.requeued
    decide(store, back.item_id, "ann2", "reject", "still wrong")
    f.populate(store, {"mawps": 9}, start=500)                       # new items: coverage short
    exclude_seed(store, items[7].seed_id, actor="carol", reason="cannot be fixed",
                 curators=["carol"])
    g = gate(store, "arithmetic", threshold=0.2)
    want = _gate_by_hand(store, "arithmetic", 0.3)
    assert {k: getattr(g, k) for k in want} == want
    assert g.open_reject_detail == {"awaiting regeneration": 1, "regeneration failed": 1}
    assert g.extend_by >= g.required - g.covered > 0
    # the dashboard's gates are the same gates; its artifact counts are per current artifact
    d = dashboard_counts(store, threshold=0.2)
    assert d["gates"]["arithmetic"] == g.to_dict()
    assert d["artifacts"]["arithmetic"] == dict(sorted(Counter(
        a["status"] for a in current_artifacts(store, "arithmetic")).items()))


# -- planning and wording --------------------------------------------------------------

def test_next_step_is_plain_words_and_the_cli_hint_is_separate(store: Store) -> None:
    f.populate(store, {"gsm8k": 20})
    g = gate(store, "arithmetic", threshold=0.5)
    assert g.next_step == "draw a sample" and g.cli_hint == "qcstation qc sample arithmetic"
    info = draw_sample(store, "arithmetic", rate=0.5, rng_seed=1, actor="lead")
    bad = list_items(store, info.id)[0]
    decide_all(store, "ann1", "arithmetic", reject={bad.seed_id})
    g = gate(store, "arithmetic", threshold=0.5)
    assert g.next_step.startswith("regenerate 1 rejected item")
    assert "qcstation" not in g.next_step and "(" not in g.next_step
    assert "qcstation generate --rejected" in g.cli_hint
    f.regenerate(store, bad.artifact_id, status="verified")
    g = gate(store, "arithmetic", threshold=0.5)
    assert g.next_step.startswith("requeue 1 regenerated items for review")
    assert g.cli_hint == "qcstation qc requeue"
    requeue_replacements(store, "lead")
    decide_all(store, "ann2", "arithmetic")
    g = gate(store, "arithmetic", threshold=0.5)
    assert g.passed and g.cli_hint == ""


def test_gate_plan_says_what_the_gate_needs_and_when_it_is_out_of_reach() -> None:
    plan = gate_plan(110, threshold=0.05)
    assert (plan["clean"], plan["after_one"], plan["reachable"]) == (59, 93, True)
    assert plan["sentence"].startswith("The gate (5% threshold) needs 59 reviews with no "
                                       "defect, 93 after one reject; 110 verified items")
    small = gate_plan(40, threshold=0.05)
    assert not small["reachable"]
    assert small["sentence"].endswith(
        "out of reach, since at most 40 items can be reviewed; at this size the gate cannot "
        "pass: even all 40 verified items reviewed without a defect give an upper bound of "
        "7.2%, not below 5%; it needs at least 59 verified items (import more seeds) or a "
        "[qc] defect_threshold above 7.2%.")
    # with a defect among enough items: only what changes the outcome is offered
    late = gate_plan(93, threshold=0.05, reviewed=93, defects=2, available=0,
                     dimension="arithmetic")
    assert not late["reachable"] and late["ways_out"][0].startswith(
        "once every defect found is corrected, a curator starts a fresh random round "
        "(qcstation qc fresh arithmetic): 59 of the 93 items drawn anew")
    assert "import more seeds (the bound needs 124 reviews; at most 93" in late["sentence"]
    assert not any("fix" in w or "exclude" in w or "model" in w for w in late["ways_out"])


def test_a_bound_below_the_threshold_never_reads_as_the_threshold() -> None:
    from qcstation.widgets.labels import gate_line

    assert bound_text(0.0495, 0.05) == "4.95%"
    assert bound_text(0.04999, 0.05) == "4.999%"
    assert bound_text(0.393, 0.05) == "39.3%"
    assert bound_text(0.0501, 0.05) == "5%"           # a fail may read as the threshold
    status = GateStatus(dimension="arithmetic", passed=True, rule="", reviewed=90, defects=1,
                        upper_bound=0.0495, threshold=0.05, open_rejects=0, blockers=[],
                        next_step="")
    assert gate_line(status) == "Gate: passed · defect bound 4.95% (needs < 5%)"


def test_extension_reasons_are_the_real_ones(store: Store) -> None:
    f.populate(store, {"gsm8k": 40})
    draw_sample(store, "arithmetic", rate=0.1, rng_seed=1, actor="lead", min_size=4)
    while (item := next_item(store, "ann", "arithmetic")) is not None:
        decide(store, item.item_id, "ann", "accept")
    g = gate(store, "arithmetic", threshold=0.3)
    assert g.extend_by > 0 and g.extend_reason.startswith("the defect bound")
    assert "new verified items arrived" not in g.next_step
    f.populate(store, {"gsm8k": 100}, start=100)       # a hundred new verified items arrive
    g = gate(store, "arithmetic", threshold=0.3)
    assert g.extend_reason == "coverage: 100 new verified items arrived since the draw"
    assert "(100 new verified items arrived since the draw)" in g.next_step


def test_the_unreachable_gate_names_the_ways_out_not_a_redraw(store: Store) -> None:
    f.populate(store, {"gsm8k": 12})
    draw_sample(store, "arithmetic", rate=1.0, rng_seed=1, actor="lead")
    while (item := next_item(store, "ann", "arithmetic")) is not None:
        decide(store, item.item_id, "ann", "accept")
    g = gate(store, "arithmetic", threshold=0.05)
    assert "out of reach" in g.next_step and "re-draw" not in g.next_step
    # fixing or excluding never lowers the defects found: not offered as a way out
    assert "fix rejected items" not in g.next_step and "exclude" not in g.next_step
    assert "at this size the gate cannot pass: even all 12 verified items" in g.next_step
    assert not g.plan["reachable"]


def test_the_review_gate_line_says_what_helps_when_no_model_is_configured() -> None:
    """The review screen said "regenerate 1 rejected item" where the dashboard, with no model
    configured, says to fix it in place or exclude it (regenerating a rule-made item makes
    the same text again): both read the gate's next step through ``next_step_text``."""
    from qcstation.widgets.labels import gate_line, next_step_text

    status = GateStatus(dimension="arithmetic", passed=False, rule="", reviewed=12, defects=1,
                        upper_bound=0.3, threshold=0.05, open_rejects=1, blockers=[],
                        next_step="regenerate 1 rejected item; then review 4 more items")
    with_model = gate_line(status)
    assert with_model.startswith("Gate: not passed — regenerate 1 rejected item, then 1 more step")
    without = gate_line(status, has_model=False)
    assert without.startswith("Gate: not passed — fix 1 rejected item in place or exclude it (c; "
                              "no model is configured"), without
    assert "regenerate 1" not in without and without.endswith("(needs < 5%)")
    assert next_step_text("regenerate 3 rejected items", False).startswith(
        "fix 3 rejected items in place or exclude them")
