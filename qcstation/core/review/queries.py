"""The SQL and small readers the review rooms share.

- :data:`CUR_SQL` / :data:`CUR_COUNTS_SQL`: the current artifact (highest version not
  superseded) of every seed of one dimension, and those counted by source, seed status and
  artifact status; ``qcstation status`` counts with the same aggregate.
- :func:`rejected_sql`: is a sample item rejected (a curator's resolution first, else any
  active reject)? Used by the gate, requeueing, exclusions and releases.
- :data:`ITEMS_CTE`: a dimension's sample items with their decision state.
- :func:`active_reviews` / :func:`active_resolutions`: the decisions that count.

- :func:`current_counts`, :func:`flag_count_rows`, :func:`seed_count_rows`: read from the
  counts the database keeps as rows are written (``db/kept_counts.py``, migration 10);
  each ``*_from_scratch`` twin counts by a scan, as the tests' reference.

Pure SQL over :mod:`db`; no room imports another room from here.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from db.store import Store
from qcstation.common.errors import ReviewError
from qcstation.common.vocab import DIMENSIONS, FINAL_VERDICTS

__all__ = [
    "CUR_SQL", "CUR_COUNTS_SQL", "INACTIVE_SEED_IDS", "ITEMS_CTE", "LIVE_SEED_STATUSES",
    "live_status", "cur_sql", "derived_scopes", "scope_dimensions",
    "TAKEN_COUNTS_SELECT", "check_dimension", "rejected_sql", "current_artifacts",
    "current_counts", "current_counts_from_scratch", "flag_count_rows", "seed_count_rows",
    "seed_count_rows_from_scratch", "NEEDS_MODEL", "active_reviews",
    "active_resolutions", "final_decisions",
    "counting_since", "FRESH",
]

#: ``samples.params`` kind of a fresh random round (see :func:`counting_since`)
FRESH = "fresh"


def counting_since(store: Store, dimension: str, scope: str = "") -> int:
    """The first sample id whose decisions the gate counts: the latest *fresh* round of the
    dimension (a curator's new random sample of the data as corrected after its defects
    were found, :func:`qcstation.core.review.curation.fresh_round`), else 0 (every round).
    Earlier rounds measured data that has since been corrected; they stay in the log."""
    return int(store.scalar(
        "SELECT COALESCE(MAX(id), 0) FROM samples WHERE dimension = ? AND scope = ? "
        "AND json_extract(params, '$.kind') = ?", (dimension, scope, FRESH)) or 0)

# -- scopes --------------------------------------------------------------------------------
# A QC sample, gate or release is about one *scope*: the working set (scope '', imported
# seeds of status 'active') or one derived set (scope = the set's name; its items are seeds
# of status 'derived' listed in derived_items, see qcstation.core.derive). Every function
# here and in the rooms takes ``scope`` (default: the working set).

#: seed statuses of items that are in play (review hands them out, they count as pending)
LIVE_SEED_STATUSES: tuple[str, ...] = ("active", "derived")


def derived_scopes(store: Store) -> list[str]:
    """The derived sets that hold items, oldest first: each is a scope of its own for QC
    (samples, gates, releases)."""
    return [str(r["name"]) for r in store.query(
        "SELECT ds.name FROM derive_sets ds WHERE EXISTS "
        "(SELECT 1 FROM derived_items di WHERE di.set_id = ds.id) ORDER BY ds.id")]


def scope_dimensions(store: Store, scope: str, qc_dims: tuple[str, ...] | list[str]
                     ) -> tuple[str, ...]:
    """The QC dimensions of ``scope``: for the working set ``qc_dims``; for a derived set
    those of ``qc_dims`` its items carry (``derived_items.dimensions``), and for items that
    carry none of them (inverse problems, refinement-ladder items) the dimensions they do
    carry, so every item's text is sampled for review. Its samples are drawn, its gates
    shown and its release gated on these (:mod:`qcstation.core.release.derived`)."""
    if not scope:
        return tuple(qc_dims)
    carried = {tuple(json.loads(r["dimensions"])) for r in store.query(
        "SELECT DISTINCT di.dimensions FROM derived_items di JOIN derive_sets ds "
        "ON ds.id = di.set_id WHERE ds.name = ?", (scope,))}
    out = [d for d in qc_dims if any(d in c for c in carried)]
    for c in carried:
        if not any(d in c for d in qc_dims):
            out.extend(d for d in c if d not in out)
    return tuple(d for d in DIMENSIONS if d in out)


def live_status(scope: str = "") -> str:
    """The status of a seed that is in play in ``scope``."""
    return "derived" if scope else "active"


_SCOPE_SEEDS = ("SELECT di.seed_id FROM derived_items di JOIN derive_sets ds ON ds.id = di.set_id "
                "WHERE ds.name = :scope")


def cur_sql(scope: str = "") -> str:
    """:data:`CUR_SQL` for ``scope``: a derived set's seeds only (the working set's query
    also sees derived seeds; they are told apart by their status)."""
    if not scope:
        return CUR_SQL
    return CUR_SQL.replace("GROUP BY seed_id", f"AND seed_id IN ({_SCOPE_SEEDS}) GROUP BY seed_id")


def check_dimension(dimension: str) -> str:
    """``dimension`` itself, or :class:`ReviewError` naming the dimensions there are."""
    if dimension not in DIMENSIONS:
        raise ReviewError(f"unknown dimension {dimension!r}; expected one of "
                          f"{', '.join(DIMENSIONS)}", title="Unknown dimension")
    return dimension


# -- current artifacts --------------------------------------------------------------------

# The current artifact of every seed of one dimension (``:dim``), as (seed_id, id, status,
# version). SQLite's documented min/max rule: with exactly one MAX() aggregate, the bare
# columns come from the row holding the maximum; (seed_id, dimension, version) is unique, so
# that row is the highest non-superseded version. Served from the covering index
# artifacts_dim_seed_flags (migration 9, which extends migration 3's) without touching the table.
CUR_SQL = """
    SELECT seed_id, id, status, MAX(version) AS version FROM artifacts
    WHERE dimension = :dim AND status != 'superseded' GROUP BY seed_id
"""

# Current artifacts of one dimension counted by seed source, seed status and artifact status
# (CROSS JOIN keeps the index-ordered scan of artifacts as the outer loop).
CUR_COUNTS_SQL = f"""
    SELECT sd.source AS source, sd.status AS seed_status, c.status AS status, COUNT(*) AS n
    FROM ({CUR_SQL}) c CROSS JOIN seeds sd ON sd.id = c.seed_id
    GROUP BY sd.source, sd.status, c.status
"""

# Seeds no longer in play (excluded in QC, filtered, duplicate): usually few, read from the
# seeds_status index as ranges around the live statuses 'active' and 'derived' (``NOT IN``
# would scan it). Sample items of either scope are judged by it: a working-set sample holds
# no derived seed, a derived set's sample no imported one.
INACTIVE_SEED_IDS = ("SELECT id FROM seeds WHERE status < 'active' OR "
                     "(status > 'active' AND status < 'derived') OR status > 'derived'")


def rejected_sql(item: str) -> str:
    """SQL: is sample item ``item`` (an id expression) rejected? A curator's latest active
    resolution (override or settlement) decides; else any active reject of a reviewer."""
    return (f"COALESCE((SELECT q.verdict = 'reject' FROM qc_resolutions q "
            f"WHERE q.sample_item_id = {item} AND q.undone_at IS NULL ORDER BY q.id DESC LIMIT 1), "
            f"EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = {item} "
            f"AND r.undone_at IS NULL AND r.verdict = 'reject'))")


def current_artifacts(store: Store, dimension: str, scope: str = "") -> list[dict[str, Any]]:
    """Current artifact (highest non-superseded version) of every seed for ``dimension``,
    with the seed's ``source``, ``orig_id`` and ``seed_status`` (a derived set's seeds only
    when ``scope`` names one)."""
    return store.query(
        f"SELECT a.*, s.source AS source, s.orig_id AS orig_id, s.status AS seed_status "
        f"FROM ({cur_sql(scope)}) c CROSS JOIN artifacts a ON a.id = c.id "
        f"JOIN seeds s ON s.id = a.seed_id ORDER BY a.seed_id", {"dim": dimension, "scope": scope})


def current_counts(store: Store, dimension: str, scope: str = "") -> list[dict[str, Any]]:
    """Current artifacts of ``dimension`` by (source, seed_status, status) -> n. The working
    set's are read from the counts the database keeps (``artifact_counts``, migration 10);
    a derived set's are counted (:func:`current_counts_from_scratch`)."""
    if not scope:
        return store.query(
            "SELECT source, seed_status, status, SUM(n) AS n FROM artifact_counts "
            "WHERE dimension = ? GROUP BY source, seed_status, status HAVING SUM(n) > 0",
            (dimension,))
    return current_counts_from_scratch(store, dimension, scope)


def current_counts_from_scratch(store: Store, dimension: str,
                                scope: str = "") -> list[dict[str, Any]]:
    """:func:`current_counts` by a scan of every artifact of ``dimension``."""
    if not scope:
        return store.query(CUR_COUNTS_SQL, {"dim": dimension})
    return store.query(CUR_COUNTS_SQL.replace(CUR_SQL, cur_sql(scope)),
                       {"dim": dimension, "scope": scope})


def flag_count_rows(store: Store, dimension: str, *,
                    working_set: bool = False) -> list[dict[str, Any]]:
    """Current artifacts of ``dimension`` by source, seed status, artifact status, audit
    version and stored flag codes (the rows of :data:`qcstation.core.review.audit.FLAG_COUNTS_SQL`,
    in its order), from the kept counts. ``working_set``: leave out derived items' seeds
    (``derived_items``), as the dashboard counts the dimensions without a gate."""
    rows = store.query(
        "SELECT source, seed_status, status, NULLIF(audit_version, -1) AS audit_version, "
        "NULLIF(flag_codes, '~') AS flag_codes, SUM(n) AS n FROM artifact_counts "
        "WHERE dimension = ? AND (? = 0 OR derived = 0) "
        "GROUP BY source, seed_status, status, audit_version, flag_codes HAVING SUM(n) > 0",
        (dimension, 1 if working_set else 0))
    return sorted(rows, key=lambda r: (r["source"], r["seed_status"], r["status"],
                                       _nulls_first(r["audit_version"]),
                                       _nulls_first(r["flag_codes"])))


def _nulls_first(value: Any) -> tuple[int, Any]:
    return (0, 0) if value is None else (1, value)


# -- the decisions that count ------------------------------------------------------------

def active_reviews(store: Store, item_ids: list[int] | None = None,
                   dimension: str | None = None) -> dict[int, list[dict[str, Any]]]:
    """Active (not undone) reviews per sample item, oldest first."""
    sql = ("SELECT r.* FROM reviews r JOIN sample_items si ON si.id = r.sample_item_id "
           "JOIN samples s ON s.id = si.sample_id WHERE r.undone_at IS NULL")
    params: list[Any] = []
    if dimension is not None:
        sql += " AND s.dimension = ?"
        params.append(dimension)
    if item_ids is not None:
        if not item_ids:
            return {}
        sql += f" AND r.sample_item_id IN ({','.join('?' * len(item_ids))})"
        params.extend(item_ids)
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in store.query(sql + " ORDER BY r.id", params):
        out[int(r["sample_item_id"])].append(r)
    return out


def active_resolutions(store: Store, item_ids: list[int]) -> dict[int, dict[str, Any]]:
    """The latest active curator resolution (override or settlement) per sample item."""
    if not item_ids:
        return {}
    out: dict[int, dict[str, Any]] = {}
    for start in range(0, len(item_ids), 900):
        chunk = item_ids[start:start + 900]
        for r in store.query(
                f"SELECT * FROM qc_resolutions WHERE undone_at IS NULL AND sample_item_id IN "
                f"({','.join('?' * len(chunk))}) ORDER BY id", chunk):
            out[int(r["sample_item_id"])] = r
    return out


def final_decisions(reviews: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The accepts and rejects among ``reviews`` (skips left out)."""
    return [r for r in reviews if r["verdict"] in FINAL_VERDICTS]


# -- a dimension's sample items -----------------------------------------------------------

# Sample items of one dimension (``:dim``) and scope (``:scope``) of the rounds that count
# (sample id >= ``:since``, see :func:`counting_since`) with their decision state, the first item of every
# seed with an active reject (later items of that seed are regenerated replacements, not
# random draws), and the seeds already taken (decided, or in the open sample).
ITEMS_CTE = f"""
    items AS (
        SELECT si.id, si.seed_id, si.artifact_id, s.status AS sample_status,
               a.status AS artifact_status, si.seed_id NOT IN ({INACTIVE_SEED_IDS}) AS active,
               EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id
                       AND r.undone_at IS NULL AND r.verdict IN ('accept', 'reject')) AS decided,
               {rejected_sql("si.id")} AS rejected
        FROM sample_items si JOIN samples s ON s.id = si.sample_id
        JOIN artifacts a ON a.id = si.artifact_id
        WHERE s.dimension = :dim AND s.scope = :scope AND s.id >= :since),
    first_reject AS (SELECT seed_id, MIN(id) AS item_id FROM items WHERE rejected GROUP BY seed_id),
    taken AS (SELECT DISTINCT seed_id FROM items WHERE decided OR sample_status = 'open'),
    taken_cur AS (
        SELECT seed_id, status, MAX(version) AS version FROM artifacts
        WHERE dimension = :dim AND status != 'superseded' AND seed_id IN (SELECT seed_id FROM taken)
        GROUP BY seed_id)
"""

# Taken seeds in play (status ``:live``) by source and current-artifact status.
TAKEN_COUNTS_SELECT = """
    SELECT 'taken' AS kind, sd.source AS k1, tc.status AS k2, COUNT(*) AS n,
           NULL AS a, NULL AS b, NULL AS c
    FROM taken_cur tc CROSS JOIN seeds sd ON sd.id = tc.seed_id WHERE sd.status = :live
    GROUP BY sd.source, tc.status
"""


# -- seeds and attempts (qcstation status, the dashboard) -----------------------------------

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


def has_model_made(store: Store, dimension: str) -> bool:
    """Whether a verified or accepted artifact of ``dimension`` was made by a model (not by
    the rules): read from the partial index of model-made artifacts (migration 16)."""
    return store.scalar(
        "SELECT 1 FROM artifacts INDEXED BY artifacts_model_made WHERE dimension = ? "
        "AND status IN ('verified', 'accepted') AND generator NOT LIKE 'rule:%' LIMIT 1",
        (dimension,)) is not None


def qc_dimensions(store: Store, dimensions: Any, sample_model_reasoning: bool = True
                  ) -> tuple[str, ...]:
    """The QC dimensions in force: the configured ones, and Reasoning once a model made a
    Reasoning artifact (Z3 checks its value, not its meaning), unless ``[qc]
    sample_model_reasoning = false`` (after the configured ones)."""
    dims = tuple(dimensions)
    if sample_model_reasoning and "reasoning" not in dims and has_model_made(store, "reasoning"):
        dims += ("reasoning",)
    return dims
