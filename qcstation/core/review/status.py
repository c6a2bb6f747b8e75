"""Counts for ``qcstation status`` and the dashboard: per source, stage and dimension."""

from __future__ import annotations

from typing import Any

from db import Store
from qcstation.common.vocab import DIMENSIONS
from qcstation.core.review.audit import stored_counts
from qcstation.core.review.queries import NEEDS_MODEL, flag_count_rows, seed_count_rows

__all__ = ["NEEDS_MODEL", "status_counts", "generation_usage"]


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
        "generation_usage": generation_usage(store),
        "releases": store.scalar("SELECT COUNT(*) FROM releases") or 0,
        "derived_items": int(store.scalar("SELECT COUNT(*) FROM derived_items") or 0),
    }


def generation_usage(store: Store) -> list[dict[str, Any]]:
    """Per generator model, the calls generation made (``llm_calls`` of purpose
    ``generate:*``): calls, from the cache, failed, tokens in and out, and the cost in USD
    (None when no call was priced). A cached call costs nothing and counts no tokens."""
    rows = store.query(
        "SELECT model, COUNT(*) AS calls, SUM(cached) AS cached, "
        "SUM(CASE WHEN status != 'ok' THEN 1 ELSE 0 END) AS failed, "
        "SUM(CASE WHEN cached = 0 THEN COALESCE(prompt_tokens, 0) ELSE 0 END) AS prompt_tokens, "
        "SUM(CASE WHEN cached = 0 THEN COALESCE(completion_tokens, 0) ELSE 0 END) AS completion_tokens, "
        "SUM(cost) AS cost FROM llm_calls WHERE purpose LIKE 'generate:%' GROUP BY model ORDER BY model")
    return [{"model": r["model"], "calls": int(r["calls"] or 0), "cached": int(r["cached"] or 0),
             "failed": int(r["failed"] or 0), "prompt_tokens": int(r["prompt_tokens"] or 0),
             "completion_tokens": int(r["completion_tokens"] or 0),
             "cost": None if r["cost"] is None else round(float(r["cost"]), 6)} for r in rows]
