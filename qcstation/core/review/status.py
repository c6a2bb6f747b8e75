"""Counts for ``qcstation status`` and the dashboard: per source, stage and dimension."""

from __future__ import annotations

from typing import Any

from db import Store
from qcstation.common.vocab import DIMENSIONS
from qcstation.core.review.audit import count_rows, stored_counts



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


def status_counts(store: Store) -> dict[str, Any]:
    seeds: dict[str, dict[str, int]] = {}
    for row in store.query("SELECT source, status, COUNT(*) AS n FROM seeds GROUP BY source, status"):
        seeds.setdefault(row["source"], {})[row["status"]] = row["n"]
    filtered: dict[str, dict[str, int]] = {}
    for row in store.query(
        "SELECT source, filter_reason, COUNT(*) AS n FROM seeds WHERE status != 'active' "
        "AND status != 'derived' GROUP BY source, filter_reason"
    ):
        filtered.setdefault(row["source"], {})[row["filter_reason"] or "?"] = row["n"]
    artifacts: dict[str, dict[str, int]] = {d: {} for d in DIMENSIONS}
    by_source: dict[str, dict[str, dict[str, int]]] = {}
    rows = {}
    for dim in DIMENSIONS:
        # the current-version aggregate the QC gate uses, with the stored self-check flags
        # (one index-only scan per dimension; audit.FLAG_COUNTS_SQL)
        rows[dim] = count_rows(store, dim)
        for row in rows[dim]:
            if row["seed_status"] == "derived":
                continue  # derived items: counted per set (qcstation derive status)
            d = artifacts.setdefault(dim, {})
            d[row["status"]] = d.get(row["status"], 0) + row["n"]
            per = by_source.setdefault(row["source"], {}).setdefault(dim, {})
            per[row["status"]] = per.get(row["status"], 0) + row["n"]
    active = store.scalar("SELECT COUNT(*) FROM seeds WHERE status = 'active'") or 0
    missing = {}
    for dim in DIMENSIONS:
        have = sum(artifacts.get(dim, {}).values())
        missing[dim] = max(0, int(active) - have)
    needs_model: dict[str, int] = {d: 0 for d in DIMENSIONS}
    for row in store.query(NEEDS_MODEL):
        needs_model[row["dimension"]] = row["n"]
    attempts = {r["dimension"]: r["n"] for r in store.query(
        "SELECT dimension, COUNT(*) AS n FROM attempts GROUP BY dimension")}
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
