"""The team's figures: agreement between reviewers (Cohen's kappa over overlap items, with
Gwet's AC1 beside it and a note when kappa cannot say much) and, per annotator, items
decided, decisions per hour and the reject rate.

An *overlap* item asks a second, different annotator for a decision; :func:`agreement`
compares the first decisions of the two.
"""

from __future__ import annotations

import datetime as _dt
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from db.store import Store
from qcstation.common.stats import cohen_kappa, gwet_ac1, observed_agreement
from qcstation.common.vocab import QC_DIMENSIONS
from qcstation.core.review.queries import active_reviews, final_decisions

__all__ = ["MIN_KAPPA_PAIRS", "Agreement", "agreement", "team_people",
           "team_people_from_scratch", "team_stats"]

#: below this many overlap pairs, kappa is shown with a warning that it means little
MIN_KAPPA_PAIRS = 20
#: above this share of one verdict, kappa is dominated by chance agreement (kappa paradox)
PREVALENCE_NOTE = 0.9


@dataclass
class Agreement:
    """Agreement of two reviewers over one dimension's overlap items."""

    pairs: int
    observed: float | None
    kappa: float | None
    annotators: list[str] = field(default_factory=list)
    table: dict[str, int] = field(default_factory=dict)  # "accept/reject" -> count
    ac1: float | None = None     # Gwet's AC1 over the same pairs
    note: str = ""               # why kappa says little here, when it does

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def agreement(store: Store, dimension: str) -> Agreement:
    """Cohen's kappa over overlap items decided by two different annotators (their first
    decisions; accept vs reject)."""
    rows = store.query(
        "SELECT si.id FROM sample_items si JOIN samples s ON s.id = si.sample_id "
        "WHERE s.dimension = ? AND si.overlap ORDER BY si.id", (dimension,))
    reviews = active_reviews(store, [int(r["id"]) for r in rows])
    a: list[str] = []
    b: list[str] = []
    people: set[str] = set()
    table: Counter[str] = Counter()
    rejects: Counter[str] = Counter()
    for r in rows:
        firsts: dict[str, str] = {}
        for v in final_decisions(reviews.get(int(r["id"]), [])):
            firsts.setdefault(v["annotator"], v["verdict"])
        if len(firsts) < 2:
            continue
        (p1, v1), (p2, v2) = list(firsts.items())[:2]
        a.append(v1)
        b.append(v2)
        people |= {p1, p2}
        rejects[p1] += v1 == "reject"
        rejects[p2] += v2 == "reject"
        table[f"{v1}/{v2}"] += 1
    observed, kappa = observed_agreement(a, b), cohen_kappa(a, b)
    return Agreement(pairs=len(a), observed=observed, kappa=kappa,
                     annotators=sorted(people), table=dict(sorted(table.items())),
                     ac1=gwet_ac1(a, b, ("accept", "reject")),
                     note=_kappa_note(a + b, observed, kappa, sorted(people), rejects))


def _kappa_note(verdicts: list[str], observed: float | None, kappa: float | None,
                people: list[str], rejects: Counter[str]) -> str:
    """Why kappa is uninformative over these pairs ('' when it is not): a reviewer who never
    rejected caps it at 0 whatever the agreement, and when one verdict dominates, chance
    agreement is so high that one decision swings kappa (Feinstein & Cicchetti's paradox);
    Gwet's AC1 beside it is not affected."""
    if not verdicts or observed is None:
        return ""
    never = [p for p in people if not rejects[p]]
    if never and len(people) >= 2 and any(rejects.values()):
        who = ", ".join(never)
        return (f"kappa says little here: {who} never rejected an overlap item, which caps "
                f"kappa near 0 whatever the agreement ({observed * 100:.1f}%); read AC1")
    top = max(Counter(verdicts).values()) / len(verdicts)
    if top >= PREVALENCE_NOTE and kappa is not None:
        return (f"kappa says little here: {top * 100:.0f}% of the decisions are one verdict, so "
                f"chance agreement is high and one decision swings kappa (the kappa paradox); "
                f"read AC1")
    return ""


# -- the team panel -----------------------------------------------------------------------


def _hours_between(first: str, last: str) -> float:
    def parse(t: str) -> _dt.datetime:
        return _dt.datetime.strptime(t, "%Y-%m-%dT%H:%M:%S.%fZ")
    try:
        return max((parse(last) - parse(first)).total_seconds() / 3600.0, 0.0)
    except ValueError:
        return 0.0


#: each annotator's active decisions; served by the covering index reviews_active_annotator
#: (migration 11) without reading the reviews table
PEOPLE_SQL = ("SELECT annotator, COUNT(*) AS n, SUM(verdict = 'reject') AS rejects, "
              "SUM(verdict = 'skip') AS skips, SUM(unsure) AS unsure, MIN(created_at) AS first, "
              "MAX(created_at) AS last, GROUP_CONCAT(DISTINCT display_name) AS names "
              "FROM reviews WHERE undone_at IS NULL GROUP BY annotator ORDER BY annotator")


#: the same from the kept counts (migration 20); first and last from the index of each
#: annotator's decisions in time order (reviews_annotator, undone ones skipped: few)
_PEOPLE_KEPT_SQL = (
    "SELECT annotator, SUM(n) AS n, SUM(CASE WHEN verdict = 'reject' THEN n ELSE 0 END) AS rejects, "
    "SUM(CASE WHEN verdict = 'skip' THEN n ELSE 0 END) AS skips, SUM(unsure * n) AS unsure, "
    "GROUP_CONCAT(CASE WHEN n > 0 AND display_name != '' THEN display_name END) AS names "
    "FROM review_counts GROUP BY annotator HAVING SUM(n) > 0 ORDER BY annotator")
_FIRST_LAST_SQL = (
    "SELECT (SELECT created_at FROM reviews INDEXED BY reviews_annotator WHERE annotator = :a "
    "AND undone_at IS NULL ORDER BY created_at LIMIT 1) AS first, "
    "(SELECT created_at FROM reviews INDEXED BY reviews_annotator WHERE annotator = :a "
    "AND undone_at IS NULL ORDER BY created_at DESC LIMIT 1) AS last")


def _person(r: dict[str, Any]) -> dict[str, Any]:
    names = sorted(set(filter(None, (r["names"] or "").split(","))))
    return {"annotator": r["annotator"], "n": int(r["n"]), "rejects": int(r["rejects"] or 0),
            "skips": int(r["skips"] or 0), "unsure": int(r["unsure"] or 0),
            "first": r["first"], "last": r["last"], "names": names}


def team_people(store: Store) -> list[dict[str, Any]]:
    """Each annotator's active decisions: how many, rejects, skips, unsure, first and last
    time and display names, from the kept counts (:func:`team_people_from_scratch` counts
    every decision; the two agree)."""
    out = []
    for r in store.query(_PEOPLE_KEPT_SQL):
        times = store.one(_FIRST_LAST_SQL, {"a": r["annotator"]}) or {}
        out.append(_person({**r, "first": times.get("first"), "last": times.get("last")}))
    return out


def team_people_from_scratch(store: Store) -> list[dict[str, Any]]:
    return [_person(r) for r in store.query(PEOPLE_SQL)]


def team_stats(store: Store, dimensions: tuple[str, ...] | list[str] = QC_DIMENSIONS
               ) -> dict[str, Any]:
    """Per annotator (account): items decided, throughput (decisions per hour between their
    first and last decision; None below five decisions or ten minutes), reject rate, skips, unsure flags and
    the display names used; per dimension: Cohen's kappa with its number of pairs and a note
    when there are too few to mean anything."""
    people: list[dict[str, Any]] = []
    for r in team_people(store):
        decided = r["n"] - r["skips"]
        hours = _hours_between(r["first"], r["last"])
        # a rate over less than ten minutes or a handful of decisions means nothing
        rate = None if decided < 5 or hours < 1 / 6 else round(decided / hours, 1)
        people.append({"annotator": r["annotator"], "decided": decided,
                       "rejects": r["rejects"], "skips": r["skips"], "unsure": r["unsure"],
                       "reject_rate": (r["rejects"] / decided) if decided else None,
                       "per_hour": rate, "last": r["last"], "names": r["names"]})
    kappas: dict[str, Any] = {}
    for dim in dimensions:
        ag = agreement(store, dim)
        note = ""
        if ag.pairs == 0:
            note = "no overlap item has two decisions yet ([qc] overlap_rate sets how many)"
        elif ag.pairs < MIN_KAPPA_PAIRS:
            note = f"only {ag.pairs} pair{'s' if ag.pairs != 1 else ''}: too few to mean anything"
        elif ag.kappa is None:
            note = "kappa undefined: every decision was the same; read AC1"
        if ag.note and ag.pairs >= MIN_KAPPA_PAIRS:
            note = ag.note
        # the overlap items first (CROSS JOIN), through their partial index (migration 11)
        disagreed = int(store.scalar(
            "SELECT COUNT(*) FROM sample_items si CROSS JOIN samples s ON s.id = si.sample_id "
            "WHERE s.dimension = ? AND si.overlap "
            "AND NOT EXISTS (SELECT 1 FROM qc_resolutions q WHERE q.sample_item_id = si.id "
            "AND q.undone_at IS NULL) "
            "AND EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id "
            "AND r.undone_at IS NULL AND r.verdict = 'accept') "
            "AND EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id "
            "AND r.undone_at IS NULL AND r.verdict = 'reject')", (dim,)) or 0)
        kappas[dim] = {"pairs": ag.pairs, "kappa": ag.kappa, "observed": ag.observed,
                       "ac1": ag.ac1, "note": note, "disagreed": disagreed}
    return {"annotators": people, "agreement": kappas}
