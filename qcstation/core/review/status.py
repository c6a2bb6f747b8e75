"""Counts for ``qcstation status`` and the dashboard: per source, stage and dimension."""

from __future__ import annotations

from typing import Any

from db import Store
from qcstation.common.vocab import DIMENSIONS
from qcstation.core.review.audit import stored_counts
from qcstation.core.review.queries import flag_count_rows



# items whose latest attempt says no rule applies and no model is configured, and that
# have no current artifact (an artifact made later, e.g. by a model, takes precedence)
NEEDS_MODEL = """
SELECT t.dimension, COUNT(*) AS n FROM attempts t
JOIN seeds s ON s.id = t.seed_id AND s.status = 'active'
WHERE t.verify_status = 'needs_model'
  AND t.id = (SELECT MAX(u.id) FROM attempts u WHERE u.seed_id = t.seed_id AND u.dimension = t.dimension)
  AND NOT EXISTS (SELECT 1 FROM artifacts a WHERE a.seed_id = t.seed_id
                  AND a.dimension = t.dimension AND a.status != 'superseded')
GROUP BY t.dimension
"""


SEED_COUNTS_SQL = "SELECT source, status, COUNT(*) AS n FROM seeds GROUP BY source, status"
FILTERED_SQL = ("SELECT source, filter_reason, COUNT(*) AS n FROM seeds WHERE status != 'active' "
                "AND status != 'derived' GROUP BY source, filter_reason")
ATTEMPTS_SQL = "SELECT dimension, COUNT(*) AS n FROM attempts GROUP BY dimension"


def seed_count_rows(store: Store) -> dict[str, list[dict[str, Any]]]:
    """Seeds by (source, status) (``seeds``), the filtered ones by (source, filter_reason)
    (``filtered``), attempts by dimension (``attempts``) and items that need a model
    (``needs_model``): the rows :func:`seed_count_rows_from_scratch` gives, in its order, read
    from the counts the database keeps (migration 10) instead of a scan of every seed and
    attempt."""
    rows = store.query("SELECT source, status, NULLIF(filter_reason, '~') AS filter_reason, n "
                       "FROM seed_counts WHERE n != 0")
    seeds: dict[tuple[str, str], int] = {}
    filtered: dict[tuple[str, str | None], int] = {}
    for r in rows:
        seeds[(r["source"], r["status"])] = seeds.get((r["source"], r["status"]), 0) + r["n"]
        if r["status"] not in ("active", "derived"):
            key = (r["source"], r["filter_reason"])
            filtered[key] = filtered.get(key, 0) + r["n"]
    stage = store.query("SELECT dimension, kind, n FROM attempt_counts WHERE n != 0 "
                        "ORDER BY dimension")
    return {
        "seeds": [{"source": k[0], "status": k[1], "n": n} for k, n in sorted(seeds.items()) if n],
        "filtered": [{"source": k[0], "filter_reason": k[1], "n": n} for k, n in
                     sorted(filtered.items(), key=lambda kv: (kv[0][0], kv[0][1] is not None,
                                                              kv[0][1] or "")) if n],
        "attempts": [{"dimension": r["dimension"], "n": r["n"]} for r in stage
                     if r["kind"] == "attempts"],
        "needs_model": [{"dimension": r["dimension"], "n": r["n"]} for r in stage
                        if r["kind"] == "needs_model"],
    }


def seed_count_rows_from_scratch(store: Store) -> dict[str, list[dict[str, Any]]]:
    """:func:`seed_count_rows` by scanning the seeds and attempts."""
    return {"seeds": store.query(SEED_COUNTS_SQL), "filtered": store.query(FILTERED_SQL),
            "attempts": store.query(ATTEMPTS_SQL), "needs_model": store.query(NEEDS_MODEL)}


def status_counts(store: Store) -> dict[str, Any]:
    kept = seed_count_rows(store)
    seeds: dict[str, dict[str, int]] = {}
    for row in kept["seeds"]:
        seeds.setdefault(row["source"], {})[row["status"]] = row["n"]
    filtered: dict[str, dict[str, int]] = {}
    for row in kept["filtered"]:
        filtered.setdefault(row["source"], {})[row["filter_reason"] or "?"] = row["n"]
    artifacts: dict[str, dict[str, int]] = {d: {} for d in DIMENSIONS}
    by_source: dict[str, dict[str, dict[str, int]]] = {}
    rows = {}
    for dim in DIMENSIONS:
        # current artifacts with their stored self-check flags, from the counts the database
        # keeps as artifacts are written (migration 10; audit.FLAG_COUNTS_SQL's rows)
        rows[dim] = flag_count_rows(store, dim)
        for row in rows[dim]:
            if row["seed_status"] == "derived":
                continue  # derived items: counted per set (qcstation derive status)
            d = artifacts.setdefault(dim, {})
            d[row["status"]] = d.get(row["status"], 0) + row["n"]
            per = by_source.setdefault(row["source"], {}).setdefault(dim, {})
            per[row["status"]] = per.get(row["status"], 0) + row["n"]
    active = sum(r["n"] for r in kept["seeds"] if r["status"] == "active")
    missing = {}
    for dim in DIMENSIONS:
        have = sum(artifacts.get(dim, {}).values())
        missing[dim] = max(0, int(active) - have)
    needs_model: dict[str, int] = {d: 0 for d in DIMENSIONS}
    for row in kept["needs_model"]:
        needs_model[row["dimension"]] = row["n"]
    attempts = {r["dimension"]: r["n"] for r in kept["attempts"]}
    flags = stored_counts(store, examples=0, rows=rows)
    return {
        "audit": {"flags": flags["flags"], "flagged_artifacts": flags["flagged_artifacts"],
                  "not_audited": flags["not_audited"]},
        "database": str(store.path),
        "schema_version": store.schema_version,
        "seeds": seeds,
        "filtered": filtered,
        "active_seeds": int(active),
        "artifacts": artifacts,
        "artifacts_by_source": by_source,
        "not_generated": missing,
        "needs_model": needs_model,
        "attempts": attempts,
        "releases": store.scalar("SELECT COUNT(*) FROM releases") or 0,
        "derived_items": int(store.scalar("SELECT COUNT(*) FROM derived_items") or 0),
    }
