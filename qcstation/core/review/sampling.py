"""Seeded random samples of verified artifacts, stratified by source.

:func:`draw_sample` draws a seeded random sample of the *verified* current artifacts of one
dimension (normally ``arithmetic`` notation questions and ``understanding`` key
information), stratified by seed source (:func:`stratified_allocation`); the RNG seed,
rate, strata sizes and the chosen artifacts are recorded in ``samples`` / ``sample_items``.
:func:`extend_sample` adds draws to the open sample (sources below the rate first),
:func:`close_sample` closes it, ``draw_sample(..., redraw=True)`` starts a new round.
:func:`requeue_replacements` puts a regenerated, re-verified replacement of a rejected item
back into the open sample, linked to the version it replaces. :func:`coverage_from` says how
much of each source is sampled (the gate's coverage rule).
"""

from __future__ import annotations

import json
import math
import random
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

from db.artifacts import current_artifact
from db.store import Store, from_json, now
from qcstation.common.errors import ReviewError
from qcstation.common.identity import norm, require_curator
from qcstation.common.vocab import SAMPLE_STATUSES, USABLE_STATUSES
from qcstation.core.review.queries import (
    ITEMS_CTE,
    LIVE_SEED_STATUSES,
    TAKEN_COUNTS_SELECT,
    FRESH,
    check_dimension,
    counting_since,
    current_artifacts,
    current_counts,
    live_status,
)

__all__ = [
    "DEFAULT_RATE", "REVIEWABLE", "POPULATION", "SampleInfo", "stratified_allocation",
    "get_sample", "open_sample", "list_samples", "coverage_from", "coverage", "close_sample",
    "draw_sample", "extend_sample", "join_open_sample", "pending_requeues", "requeue_replacements",
]

DEFAULT_RATE = 0.10
#: current-artifact statuses of an item people can review (or have reviewed)
REVIEWABLE = ("verified", "accepted", "rejected")
#: current-artifact statuses of the population a sample is drawn from and measured against
POPULATION = USABLE_STATUSES


@dataclass
class SampleInfo:
    """A sample as recorded: its round, RNG seed, rate, status and size (``params`` holds the
    strata, the chosen artifacts and every extension)."""

    id: int
    dimension: str
    round: int
    rng_seed: int
    rate: float
    status: str
    size: int
    created_at: str
    created_by: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    scope: str = ""               # '' the working set, else the derived set it samples

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- reading samples ----------------------------------------------------------------------

def _rng_text(dimension: str, rng_seed: int, round_no: int, stage: str, scope: str = "") -> str:
    where = f"{dimension}@{scope}" if scope else dimension
    return f"qcstation-sample:{where}:{rng_seed}:{round_no}:{stage}"


def _rng(dimension: str, rng_seed: int, round_no: int, stage: str, scope: str = "") -> random.Random:
    # str seeds are hashed with SHA-512 by random.Random: stable across runs and platforms
    return random.Random(_rng_text(dimension, rng_seed, round_no, stage, scope))


def stratified_allocation(sizes: dict[str, int], total: int, *,
                          at_least_one: bool = True) -> dict[str, int]:
    """Split ``total`` draws over strata proportionally to ``sizes`` (largest remainder).

    With ``at_least_one`` every non-empty stratum gets at least one draw (which may make the
    total slightly larger than asked). Never more than a stratum holds. Deterministic: ties
    break by stratum size, then name.
    """
    strata = sorted(s for s, n in sizes.items() if n > 0)
    pop = sum(sizes[s] for s in strata)
    if pop == 0:
        return {}
    total = min(max(total, 0), pop)
    quota = {s: Fraction(total * sizes[s], pop) for s in strata}
    alloc = {s: math.floor(quota[s]) for s in strata}
    if at_least_one:
        alloc = {s: max(1, alloc[s]) for s in strata}
    remaining = total - sum(alloc.values())
    order = sorted(strata, key=lambda s: (-(quota[s] - math.floor(quota[s])), -sizes[s], s))
    while remaining > 0:
        progressed = False
        for s in order:
            if remaining == 0:
                break
            if alloc[s] < sizes[s]:
                alloc[s] += 1
                remaining -= 1
                progressed = True
        if not progressed:
            break
    return alloc


def _sample_row_to_info(store: Store, row: dict[str, Any]) -> SampleInfo:
    # its items as counted by the triggers of migration 10 (sample_progress.total): counting
    # them read 190,000 index entries per sample at 1M seeds, on every dashboard refresh
    size = int(store.scalar("SELECT COALESCE((SELECT total FROM sample_progress "
                            "WHERE sample_id = ?), 0)", (row["id"],)))
    return SampleInfo(
        id=int(row["id"]), dimension=row["dimension"], round=int(row["round"]),
        rng_seed=int(row["rng_seed"]), rate=float(row["rate"]), status=row["status"],
        size=size, created_at=row["created_at"], created_by=row.get("created_by"),
        params=from_json(row.get("params")) or {}, scope=row.get("scope") or "",
    )


def get_sample(store: Store, sample_id: int) -> SampleInfo:
    """Sample ``sample_id``, or :class:`ReviewError` when there is none."""
    row = store.one("SELECT * FROM samples WHERE id = ?", (sample_id,))
    if row is None:
        raise ReviewError(f"no sample #{sample_id}", title="No such sample")
    return _sample_row_to_info(store, row)


def open_sample(store: Store, dimension: str, scope: str = "") -> SampleInfo | None:
    """The open sample of ``dimension`` in ``scope`` (the newest), or None."""
    row = store.one("SELECT * FROM samples WHERE dimension = ? AND scope = ? AND status = 'open' "
                    "ORDER BY id DESC LIMIT 1", (dimension, scope))
    return None if row is None else _sample_row_to_info(store, row)


def list_samples(store: Store, dimension: str | None = None, scope: str | None = None
                 ) -> list[SampleInfo]:
    """Every sample (of ``dimension``; of ``scope``, None: of every scope), oldest first."""
    sql, params = "SELECT * FROM samples WHERE 1", []
    if dimension is not None:
        sql += " AND dimension = ?"
        params.append(dimension)
    if scope is not None:
        sql += " AND scope = ?"
        params.append(scope)
    return [_sample_row_to_info(store, r) for r in store.query(sql + " ORDER BY id", params)]


# -- the pool and its coverage ------------------------------------------------------------

def _sampled_seed_ids(store: Store, dimension: str, scope: str = "") -> set[int]:
    """Seeds already taken for this dimension: in the open sample, or with an active decision
    in any sample of the rounds that count (:func:`counting_since`). (Undecided items of a
    closed sample are released.)"""
    rows = store.query(
        """
        SELECT DISTINCT si.seed_id FROM sample_items si JOIN samples s ON s.id = si.sample_id
        WHERE s.dimension = ? AND s.scope = ? AND s.id >= ? AND (
            s.status = 'open'
            OR EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id
                       AND r.undone_at IS NULL AND r.verdict IN ('accept', 'reject')))
        """, (dimension, scope, counting_since(store, dimension, scope)))
    return {int(r["seed_id"]) for r in rows}


def _pool(store: Store, dimension: str, scope: str = "", *,
          fresh: bool = False) -> dict[str, list[dict[str, Any]]]:
    """Current verified (or accepted) artifacts of the scope's seeds in play not taken in
    the rounds that count (``fresh``: none taken, a new round starts), by source, in a
    stable order."""
    taken = set() if fresh else _sampled_seed_ids(store, dimension, scope)
    live = live_status(scope)
    pool: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for a in current_artifacts(store, dimension, scope):
        if a["status"] not in POPULATION or a["seed_status"] != live or int(a["seed_id"]) in taken:
            continue
        pool[a["source"]].append(a)
    for rows in pool.values():
        rows.sort(key=lambda a: (str(a["orig_id"]), int(a["seed_id"])))
    return dict(pool)


def _ceil_rate(rate: float, n: int) -> int:
    return min(n, math.ceil(Fraction(rate).limit_denominator(10**9) * n))


def coverage_from(current: list[dict[str, Any]], taken: list[dict[str, Any]],
                  rate: float, live: str = "active") -> dict[str, dict[str, int]]:
    """Per-source coverage from :func:`current_counts` rows and 'taken' rows (see
    :func:`coverage`), plus ``unsampled``: active verified/accepted items not yet taken."""
    out: dict[str, dict[str, int]] = {}

    def slot(source: str) -> dict[str, int]:
        return out.setdefault(source, {"population": 0, "covered": 0, "required": 0,
                                       "unsampled": 0})

    for r in current:
        if r["seed_status"] != live:
            continue
        n = int(r["n"])
        if r["status"] in REVIEWABLE:
            slot(r["source"])["population"] += n
        if r["status"] in POPULATION:
            slot(r["source"])["unsampled"] += n
    for r in taken:
        n = int(r["n"])
        c = slot(r["k1"])
        c["covered"] += n
        if r["k2"] not in REVIEWABLE:      # being regenerated: a sampled seed stays covered
            c["population"] += n
        if r["k2"] in POPULATION:
            c["unsampled"] -= n
    for c in out.values():
        c["required"] = _ceil_rate(rate, c["population"])
    return dict(sorted(out.items()))


def coverage(store: Store, dimension: str, rate: float, scope: str = "") -> dict[str, dict[str, int]]:
    """Per source: items of active seeds that are reviewable (current artifact verified,
    accepted or rejected) or already sampled (``population``), how many of them are sampled
    (``covered``) and how many the rate asks for (``required``). A sampled seed whose artifact
    is being regenerated stays covered."""
    live = live_status(scope)
    taken = store.query(f"WITH {ITEMS_CTE} {TAKEN_COUNTS_SELECT}",
                        {"dim": dimension, "scope": scope, "live": live,
                         "since": counting_since(store, dimension, scope)})
    cov = coverage_from(current_counts(store, dimension, scope), taken, rate, live)
    return {src: {k: v for k, v in c.items() if k != "unsampled"} for src, c in cov.items()}


# -- drawing ------------------------------------------------------------------------------

def _choose(rng: random.Random, pool: dict[str, list[dict[str, Any]]],
            alloc: dict[str, int]) -> list[dict[str, Any]]:
    chosen: list[dict[str, Any]] = []
    for source in sorted(alloc):
        n = alloc[source]
        if n:
            chosen.extend(rng.sample(pool[source], n))
    rng.shuffle(chosen)  # interleave strata in review order
    return chosen


def _overlap_flags(rng: random.Random, n: int, overlap_rate: float) -> set[int]:
    if overlap_rate <= 0 or n == 0:
        return set()
    k = min(n, max(1, round(overlap_rate * n)))
    return set(rng.sample(range(n), k))


def _insert_items(store: Store, sample_id: int, chosen: list[dict[str, Any]],
                  overlap_idx: set[int], start: int) -> None:
    store.insert_many("sample_items", ({
        "sample_id": sample_id, "seed_id": int(a["seed_id"]), "artifact_id": int(a["id"]),
        "stratum": a["source"], "position": start + i, "overlap": 1 if i in overlap_idx else 0,
    } for i, a in enumerate(chosen)))


def close_sample(store: Store, sample_id: int, *, actor: str, status: str = "failed") -> SampleInfo:
    """Close an open sample (``failed`` or ``superseded``); its decisions keep counting in the
    gate, its undecided items are released so a new draw may take those seeds again."""
    if status not in SAMPLE_STATUSES[1:]:
        raise ReviewError(f"cannot close a sample as {status!r}; use failed, superseded or passed")
    with store.transaction():
        row = store.one("SELECT * FROM samples WHERE id = ?", (sample_id,))
        if row is None:
            raise ReviewError(f"no sample #{sample_id}", title="No such sample")
        if row["status"] != "open":
            raise ReviewError(f"sample #{sample_id} is already {row['status']}")
        store.execute("UPDATE samples SET status = ? WHERE id = ?", (status, sample_id))
        store.execute("UPDATE sample_items SET claimed_by = NULL, claimed_at = NULL "
                      "WHERE sample_id = ?", (sample_id,))
        store.event(actor, "qc.sample.closed", "sample", sample_id,
                    {"dimension": row["dimension"], "status": status})
    return get_sample(store, sample_id)


def _check_draw_args(rate: float, min_size: int, overlap_rate: float) -> None:
    if not 0.0 < rate <= 1.0:
        raise ReviewError(f"sample rate must be in (0, 1], got {rate}")
    if min_size < 0:
        raise ReviewError(f"minimum sample size must be >= 0, got {min_size}")
    if not 0.0 <= overlap_rate <= 1.0:
        raise ReviewError(f"overlap rate must be in [0, 1], got {overlap_rate}")


def _draw_allocation(sizes: dict[str, int], rate: float, min_size: int) -> dict[str, int]:
    """Draws per source: every source sampled at the rate (rounded up, so each non-empty
    source gets >= 1), topped up proportionally to reach ``min_size``."""
    alloc = {src: _ceil_rate(rate, n) for src, n in sizes.items()}
    floor_size = min(sum(sizes.values()), min_size)
    if sum(alloc.values()) < floor_size:
        room = {src: sizes[src] - alloc[src] for src in sizes}
        top = stratified_allocation(room, floor_size - sum(alloc.values()), at_least_one=False)
        alloc = {src: alloc[src] + top.get(src, 0) for src in sizes}
    return alloc


def draw_sample(store: Store, dimension: str, *, rate: float, rng_seed: int, actor: str,
                min_size: int = 5, overlap_rate: float = 0.0, redraw: bool = False,
                curators: list[str] | tuple[str, ...] | None = None,
                scope: str = "", fresh: bool = False) -> SampleInfo:
    """Draw a seeded random sample, stratified by source, of the current ``verified``
    artifacts of ``dimension`` not sampled before; records RNG seed, rate and strata.

    Size: ``ceil(rate * N_s)`` from every source ``s`` (so at least one per non-empty
    source), topped up proportionally (largest remainder) to ``min_size`` when smaller.
    ``scope`` names a derived set to sample (default: the working set). Raises
    :class:`ReviewError` while an open sample exists for the dimension, unless ``redraw``
    (the open one is closed as ``failed``
    first and a new round is drawn; only a curator, one of ``curators``, may re-draw).
    ``fresh`` (a curator's fresh round, see :func:`qcstation.core.review.curation.fresh_round`,
    which checks when one is allowed): the open sample is closed as ``superseded`` and the
    new round draws from every current verified or accepted item, sampled before or not;
    the gate counts from this round on.
    """
    check_dimension(dimension)
    actor = norm(actor) or actor
    if redraw or fresh:
        require_curator(actor, curators, "start a fresh round" if fresh else "re-draw a sample")
    _check_draw_args(rate, min_size, overlap_rate)
    with store.transaction():
        existing = open_sample(store, dimension, scope)
        where = f"{dimension} items of the derived set {scope}" if scope else f"{dimension} items"
        if existing is not None:
            if not (redraw or fresh):
                raise ReviewError(
                    f"sample #{existing.id} (round {existing.round}) for {where} is still open; "
                    f"extend it, or re-draw with --redraw", title="Sample already open")
            close_sample(store, existing.id, actor=actor,
                         status="superseded" if fresh else "failed")
        pool = _pool(store, dimension, scope, fresh=fresh)
        sizes = {s: len(rows) for s, rows in pool.items()}
        population = sum(sizes.values())
        if population == 0:
            raise ReviewError(f"no verified {where} left to sample; "
                              + ("derive the set first" if scope else
                                 "generate and verify artifacts first"), title="Nothing to sample")
        alloc = _draw_allocation(sizes, rate, min_size)
        round_no = int(store.scalar("SELECT COUNT(*) FROM samples WHERE dimension = ? AND scope = ?",
                                    (dimension, scope))) + 1
        rng = _rng(dimension, rng_seed, round_no, "draw", scope)
        chosen = _choose(rng, pool, alloc)
        overlap_idx = _overlap_flags(rng, len(chosen), overlap_rate)
        params = {
            "kind": FRESH if fresh else "redraw" if existing is not None else "draw",
            "min_size": min_size, "overlap_rate": overlap_rate,
            "population": dict(sorted(sizes.items())), "allocation": dict(sorted(alloc.items())),
            "artifact_ids": [int(a["id"]) for a in chosen],
            "rng": f"random.Random('{_rng_text(dimension, rng_seed, round_no, 'draw', scope)}')",
            "extensions": [],
        }
        created = now()
        sample_id = store.insert("samples", {
            "dimension": dimension, "round": round_no, "rng_seed": int(rng_seed), "rate": float(rate),
            "status": "open", "params": params, "created_by": actor, "created_at": created,
            "scope": scope,
        })
        _insert_items(store, sample_id, chosen, overlap_idx, 0)
        store.event(actor, "qc.sample.drawn", "sample", sample_id, {
            "dimension": dimension, "round": round_no, "rng_seed": int(rng_seed), "rate": rate,
            "size": len(chosen), "population": population, "allocation": params["allocation"],
            "overlap": len(overlap_idx),
            "replaces_sample": existing.id if existing is not None else None,
            **({"scope": scope} if scope else {}),
        })
        return get_sample(store, sample_id)


def extend_sample(store: Store, sample_id: int, *, extra: int, actor: str,
                  curators: list[str] | tuple[str, ...] | None,
                  reason: str | None = None) -> SampleInfo:
    """Add ``extra`` more random draws to an open sample from the unsampled verified items,
    stratified by source (proportional to what is left). Deterministic: the RNG is derived
    from the sample's seed, round and extension number. Only a curator (one of
    ``curators``) may extend; ``reason`` (why, e.g. the gate's) is recorded."""
    actor = require_curator(actor, curators, "extend a sample")
    if extra < 1:
        raise ReviewError(f"extend by at least 1 item, got {extra}")
    with store.transaction():
        row = store.one("SELECT * FROM samples WHERE id = ?", (sample_id,))
        if row is None:
            raise ReviewError(f"no sample #{sample_id}", title="No such sample")
        if row["status"] != "open":
            raise ReviewError(f"sample #{sample_id} is {row['status']}; draw a new sample instead")
        dimension = row["dimension"]
        scope = row.get("scope") or ""
        params = from_json(row["params"]) or {}
        extensions = list(params.get("extensions") or [])
        pool = _pool(store, dimension, scope)
        sizes = {s: len(rows) for s, rows in pool.items()}
        left = sum(sizes.values())
        if left == 0:
            raise ReviewError(f"every verified {dimension} item is already sampled; nothing to "
                              f"extend with", title="Nothing left to sample")
        take = min(extra, left)
        # first the sources sampled below the rate (new items arrived), then proportionally
        cov = coverage(store, dimension, float(row["rate"]), scope)
        deficit = {src: min(sizes.get(src, 0), max(0, c["required"] - c["covered"]))
                   for src, c in cov.items()}
        deficit = {src: n for src, n in deficit.items() if n > 0}
        if sum(deficit.values()) >= take:
            alloc = stratified_allocation(deficit, take, at_least_one=False)
        else:
            room = {src: sizes[src] - deficit.get(src, 0) for src in sizes}
            rest = stratified_allocation(room, take - sum(deficit.values()), at_least_one=False)
            alloc = {src: deficit.get(src, 0) + rest.get(src, 0) for src in sizes}
        alloc = {src: n for src, n in sorted(alloc.items()) if n > 0}
        stage = f"extend{len(extensions) + 1}"
        rng = _rng(dimension, int(row["rng_seed"]), int(row["round"]), stage, scope)
        chosen = _choose(rng, pool, alloc)
        overlap_idx = _overlap_flags(rng, len(chosen), float(params.get("overlap_rate") or 0.0))
        start = int(store.scalar("SELECT COALESCE(MAX(position), -1) + 1 FROM sample_items "
                                 "WHERE sample_id = ?", (sample_id,)))
        _insert_items(store, sample_id, chosen, overlap_idx, start)
        extensions.append({
            "asked": extra, "added": len(chosen), "allocation": dict(sorted(alloc.items())),
            "artifact_ids": [int(a["id"]) for a in chosen], "by": actor, "stage": stage,
            "reason": reason,
        })
        params["extensions"] = extensions
        store.execute("UPDATE samples SET params = ? WHERE id = ?",
                      (json.dumps(params, sort_keys=True), sample_id))
        store.event(actor, "qc.sample.extended", "sample", sample_id, {
            "dimension": dimension, "asked": extra, "added": len(chosen),
            "allocation": dict(sorted(alloc.items())), "overlap": len(overlap_idx),
            "reason": reason,
        })
        return get_sample(store, sample_id)


# -- replacements join the open sample ----------------------------------------------------

def join_open_sample(store: Store, *, dimension: str, seed_id: int, artifact_id: int,
                     stratum: str, fallback_sample_id: int, actor: str, why: str,
                     display: str | None = None, scope: str = "",
                     same_sample: bool = False) -> tuple[int, int]:
    """Append a replacement (a regenerated or fixed version) to the open sample of
    ``dimension``; with none open, sample ``fallback_sample_id`` (the replaced item's) is
    re-opened (a ``qc.sample.reopened`` event says ``why``). ``same_sample``: appended to
    ``fallback_sample_id`` as it is (a late correction stays in the round it corrects).
    Inside the caller's transaction. Returns (sample id, new item id)."""
    target = None if same_sample else open_sample(store, dimension, scope)
    if same_sample:
        target_id = fallback_sample_id
    elif target is None:
        store.execute("UPDATE samples SET status = 'open' WHERE id = ?", (fallback_sample_id,))
        store.event(actor, "qc.sample.reopened", "sample", fallback_sample_id,
                    {"dimension": dimension, "why": why}, display=display)
        target_id = fallback_sample_id
    else:
        target_id = target.id
    pos = int(store.scalar("SELECT COALESCE(MAX(position), -1) + 1 FROM sample_items "
                           "WHERE sample_id = ?", (target_id,)))
    new_item = store.insert("sample_items", {
        "sample_id": target_id, "seed_id": seed_id, "artifact_id": artifact_id,
        "stratum": stratum, "position": pos, "overlap": 0,
    })
    return target_id, new_item


# The latest rejected version (highest version, then the latest item) of every (seed,
# dimension) with a rejected sample item, kept when a newer version is current (not
# superseded): what requeue_replacements acts on. Only (seed, dimension) pairs with a newer
# version that is neither superseded nor accepted can qualify (an accepted one has been
# reviewed, and whatever put it in a sample superseded the rejected version); migration 13's
# partial index ``artifacts_replacements`` lists exactly those, so the rejected items read are
# theirs only, not every rejected item. Rejected items are told by the kept item state
# (migration 10's qc_item_state, rej = rejected_sql).
_REPLACED_SQL = """
    WITH pending AS (
        SELECT DISTINCT seed_id, dimension FROM artifacts INDEXED BY artifacts_replacements
        WHERE version > 1 AND status NOT IN ('superseded', 'accepted'))
    SELECT * FROM (
        SELECT si.id AS item_id, si.sample_id, si.seed_id, si.artifact_id, s.dimension,
               s.scope, a.version, sd.source, sd.status AS seed_status,
               ROW_NUMBER() OVER (PARTITION BY si.seed_id, s.dimension
                                  ORDER BY a.version DESC, si.id DESC) AS nth
        FROM pending p CROSS JOIN sample_items si ON si.seed_id = p.seed_id
        CROSS JOIN samples s ON s.id = si.sample_id AND s.dimension = p.dimension
        CROSS JOIN qc_item_state st ON st.item_id = si.id
        JOIN artifacts a ON a.id = si.artifact_id JOIN seeds sd ON sd.id = si.seed_id
        WHERE st.rej) x
    WHERE x.nth = 1 AND EXISTS (
        SELECT 1 FROM artifacts b WHERE b.seed_id = x.seed_id AND b.dimension = x.dimension
          AND b.status != 'superseded' AND b.version > x.version)
    ORDER BY x.seed_id, x.dimension
"""

# The same, found by reading every rejected item (what _REPLACED_SQL must equal in effect;
# tests/core/review/test_kept_counts.py compares them after random operation sequences).
_REPLACED_FROM_SCRATCH_SQL = """
    SELECT * FROM (
        SELECT si.id AS item_id, si.sample_id, si.seed_id, si.artifact_id, s.dimension,
               s.scope, a.version, sd.source, sd.status AS seed_status,
               ROW_NUMBER() OVER (PARTITION BY si.seed_id, s.dimension
                                  ORDER BY a.version DESC, si.id DESC) AS nth
        FROM qc_item_state st CROSS JOIN sample_items si ON si.id = st.item_id
        JOIN samples s ON s.id = si.sample_id
        JOIN artifacts a ON a.id = si.artifact_id JOIN seeds sd ON sd.id = si.seed_id
        WHERE st.rej) x
    WHERE x.nth = 1 AND EXISTS (
        SELECT 1 FROM artifacts b WHERE b.seed_id = x.seed_id AND b.dimension = x.dimension
          AND b.status != 'superseded' AND b.version > x.version)
    ORDER BY x.seed_id, x.dimension
"""


def pending_requeues(store: Store, *, from_scratch: bool = False
                     ) -> list[tuple[dict[str, Any], dict[str, Any], bool]]:
    """What :func:`requeue_replacements` would do now: (latest rejected item, current
    artifact, whether the current one joins review) for every (seed, dimension) whose
    rejected version is to be superseded or whose replacement is to be requeued, by seed and
    dimension. ``from_scratch`` reads every rejected item instead (tests compare the two)."""
    out = []
    for r in store.query(_REPLACED_FROM_SCRATCH_SQL if from_scratch else _REPLACED_SQL):
        cur = current_artifact(store, int(r["seed_id"]), r["dimension"])
        if cur is None or int(cur["id"]) == int(r["artifact_id"]):
            continue
        if int(cur["version"]) <= int(r["version"]):
            continue
        joins = (cur["status"] == "verified" and r["seed_status"] in LIVE_SEED_STATUSES
                 and not store.scalar("SELECT 1 FROM sample_items WHERE artifact_id = ?",
                                      (int(cur["id"]),)))
        if joins or store.scalar("SELECT status FROM artifacts WHERE id = ?",
                                 (int(r["artifact_id"]),)) == "rejected":
            out.append((r, cur, joins))
    return out


def requeue_replacements(store: Store, actor: str) -> int:
    """Put regenerated, re-verified replacements of rejected items back into review.

    For every seed whose sampled artifact was rejected, if its current artifact is a newer
    version in status ``verified`` and not in any sample yet, it joins the open sample of its
    dimension (the sample of the rejected item is re-opened if none is open). The rejected
    version is marked ``superseded`` if the generation loop has not done so. Replacements of
    seeds no longer active (excluded) are not requeued. Returns how many items were added.
    """
    added = 0
    with store.transaction():
        for r, cur, joins in pending_requeues(store):
            seed_id, dimension = int(r["seed_id"]), r["dimension"]
            store.execute("UPDATE artifacts SET status = 'superseded', updated_at = ? "
                          "WHERE id = ? AND status = 'rejected'", (now(), int(r["artifact_id"])))
            if not joins:
                continue  # not verified yet, the seed was excluded, or already in review
            target_id, new_item = join_open_sample(
                store, dimension=dimension, seed_id=seed_id, artifact_id=int(cur["id"]),
                stratum=r["source"], fallback_sample_id=int(r["sample_id"]), actor=actor,
                why="requeue of a regenerated item", scope=r["scope"] or "")
            store.event(actor, "qc.requeued", "sample_item", new_item, {
                "sample_id": target_id, "dimension": dimension, "seed_id": seed_id,
                "artifact_id": int(cur["id"]), "version": int(cur["version"]),
                "replaces_id": cur["replaces_id"], "rejected_item_id": int(r["item_id"]),
                "rejected_artifact_id": int(r["artifact_id"]),
            })
            added += 1
    return added
