"""``qcstation audit`` and the stored flag counts of ``qcstation status``.

The flags themselves (what each means, how they are found) are
:mod:`qcstation.core.construct.check.selfcheck`'s; they are computed when an artifact is made and
stored with it. Here: :func:`audit_database` re-audits every current artifact and stores what
it finds (how a database made before flags were stored gets them), :func:`stored_counts`
counts the stored flags without reading any artifact.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from qcstation.core.construct.check.selfcheck import (AUDIT_VERSION, FLAG_CODES, Flag, audit_artifact,
                                                flag_columns, parse_flag_codes, stored_flags)

__all__ = ["Flag", "FLAG_CODES", "AUDIT_VERSION", "audit_artifact", "audit_database", "flag_columns",
           "stored_flags", "stored_counts", "count_rows", "FLAG_COUNTS_SQL"]


def audit_database(store: Any, *, source: str | None = None, dimensions: list[str] | None = None,
                   examples: int = 20, store_flags: bool = True) -> dict[str, Any]:
    """Audit the current version of every artifact of the active seeds. Returns counts per
    dimension and flag code, the number of artifacts audited, and up to ``examples``
    flagged items per code. With ``store_flags`` the flags found are stored with each
    artifact whose stored flags differ (or are missing, or of an older rule version), which
    is how a database made before flags were stored gets them."""
    sql = ("SELECT a.id AS artifact_id, a.dimension, a.content, a.generator, a.flags AS stored, "
           "a.audit_version, s.id AS seed_id, s.source, s.orig_id, s.question, "
           "s.solution, s.answer_value, s.answer_text FROM artifacts a JOIN seeds s ON s.id = a.seed_id "
           "WHERE s.status = 'active' AND a.status NOT IN ('superseded', 'failed') AND a.version = "
           "(SELECT MAX(b.version) FROM artifacts b WHERE b.seed_id = a.seed_id AND b.dimension = a.dimension "
           "AND b.status != 'superseded')")
    params: list[Any] = []
    if source:
        sql += " AND s.source = ?"
        params.append(source)
    sql += " ORDER BY s.id, a.dimension"
    counts: dict[str, Counter[str]] = {}
    audited: Counter[str] = Counter()
    flagged: Counter[str] = Counter()
    shown: dict[str, list[dict[str, Any]]] = {}
    updates: list[tuple[Any, ...]] = []
    for row in store.query(sql, tuple(params)):
        dim = row["dimension"]
        if dimensions and dim not in dimensions:
            continue
        audited[dim] += 1
        flags = audit_artifact(dim, row["content"], dict(row))
        if store_flags:
            cols = flag_columns(flags)
            if row["audit_version"] != AUDIT_VERSION or row["stored"] != cols["flags"]:
                updates.append((cols["flags"], cols["flag_codes"], AUDIT_VERSION, row["artifact_id"]))
        if flags:
            flagged[dim] += 1
        for f in flags:
            counts.setdefault(dim, Counter())[f.code] += 1
            lst = shown.setdefault(f.code, [])
            if len(lst) < examples:
                lst.append({"seed_id": row["seed_id"], "source": row["source"], "orig_id": row["orig_id"],
                            "dimension": dim, "generator": row["generator"], "message": f.message})
    for i in range(0, len(updates), 500):
        with store.transaction():
            for u in updates[i:i + 500]:
                store.execute("UPDATE artifacts SET flags = ?, flag_codes = ?, audit_version = ? "
                              "WHERE id = ?", u)
    return {"audited": dict(audited), "flagged_artifacts": dict(flagged),
            "flags": {d: dict(c) for d, c in counts.items()}, "examples": shown,
            "stored": len(updates)}


#: current artifacts of one dimension (as CUR_SQL) counted by seed source and status,
#: artifact status and stored flags; served from the covering index of migration 9
FLAG_COUNTS_SQL = """
    SELECT sd.source AS source, sd.status AS seed_status, c.status AS status,
           c.audit_version AS audit_version, c.flag_codes AS flag_codes, COUNT(*) AS n
    FROM (SELECT seed_id, status, audit_version, flag_codes, MAX(version) AS version FROM artifacts
          WHERE dimension = :dim AND status != 'superseded' GROUP BY seed_id) c
    CROSS JOIN seeds sd ON sd.id = c.seed_id
    GROUP BY sd.source, sd.status, c.status, c.audit_version, c.flag_codes
"""


def count_rows(store: Any, dimension: str) -> list[Any]:
    """FLAG_COUNTS_SQL's rows for ``dimension`` (status counts and flag counts in one scan)."""
    return store.query(FLAG_COUNTS_SQL, {"dim": dimension})


def stored_counts(store: Any, *, source: str | None = None, dimensions: list[str] | None = None,
                  examples: int = 20, rows: dict[str, list[Any]] | None = None) -> dict[str, Any]:
    """What :func:`audit_database` returns, from the stored flags (no artifact is read but the
    ``examples``), plus ``not_audited``: current artifacts with no stored flags of this rule
    version (``qcstation audit`` stores them). ``rows`` reuses :func:`count_rows` results."""
    from qcstation.common.vocab import DIMENSIONS

    counts: dict[str, Counter[str]] = {}
    audited: Counter[str] = Counter()
    flagged: Counter[str] = Counter()
    not_audited: Counter[str] = Counter()
    for dim in dimensions or DIMENSIONS:
        for r in (rows or {}).get(dim) or count_rows(store, dim):
            if r["seed_status"] != "active" or r["status"] == "failed":
                continue
            if source and r["source"] != source:
                continue
            n = int(r["n"])
            if r["audit_version"] != AUDIT_VERSION or r["flag_codes"] is None:
                not_audited[dim] += n
                continue
            audited[dim] += n
            per = parse_flag_codes(r["flag_codes"])
            if per:
                flagged[dim] += n
                for code, k in per.items():
                    counts.setdefault(dim, Counter())[code] += k * n
    shown: dict[str, list[dict[str, Any]]] = {}
    if examples:
        for dim in counts:
            for code in counts[dim]:
                _stored_examples(store, dim, code, source, examples, shown)
    return {"audited": dict(audited), "flagged_artifacts": dict(flagged),
            "flags": {d: dict(c) for d, c in counts.items()}, "examples": shown,
            "not_audited": dict(not_audited)}


def _stored_examples(store: Any, dim: str, code: str, source: str | None, limit: int,
                     shown: dict[str, list[dict[str, Any]]]) -> None:
    lst = shown.setdefault(code, [])
    if len(lst) >= limit:
        return
    sql = ("SELECT a.flags, a.generator, s.id AS seed_id, s.source, s.orig_id FROM artifacts a "
           "JOIN seeds s ON s.id = a.seed_id WHERE a.dimension = ? AND a.status NOT IN "
           "('superseded', 'failed') AND a.audit_version = ? AND a.flag_codes LIKE ? "
           "AND s.status = 'active' AND a.version = (SELECT MAX(b.version) FROM artifacts b "
           "WHERE b.seed_id = a.seed_id AND b.dimension = a.dimension AND b.status != 'superseded')")
    params: list[Any] = [dim, AUDIT_VERSION, f"%{code}:%"]
    if source:
        sql += " AND s.source = ?"
        params.append(source)
    sql += " ORDER BY s.id LIMIT ?"
    params.append(limit - len(lst))
    for row in store.query(sql, tuple(params)):
        try:
            flags = json.loads(row["flags"] or "[]")
        except ValueError:
            continue
        for f in flags:
            if isinstance(f, dict) and f.get("code") == code and len(lst) < limit:
                lst.append({"seed_id": row["seed_id"], "source": row["source"], "orig_id": row["orig_id"],
                            "dimension": dim, "generator": row["generator"],
                            "message": str(f.get("message", ""))})

