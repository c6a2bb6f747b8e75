"""Human quality control: seeded stratified samples, claims, decisions, the QC gate.

Workflow (paper §3.3.3: "a randomly selected 10% subset is manually reviewed ... the
low-quality portions are regenerated, then re-sampled and re-verified until they pass"):

1. :func:`draw_sample` draws a seeded random sample of the *verified* current artifacts
   of one dimension (normally ``arithmetic`` notation questions and ``understanding`` key
   information), stratified by seed source; the RNG seed, rate, strata sizes and the
   chosen artifacts are recorded in ``samples`` / ``sample_items``.
2. Annotators, each in their own process (SSH session), call :func:`next_item`, which
   atomically *claims* an item (claims expire after :data:`CLAIM_TTL_MINUTES`), and
   :func:`decide` it: accept, reject (a reason is required) or skip. Every claim and
   decision runs inside ``store.transaction()`` (``BEGIN IMMEDIATE``) and re-checks the
   item's state there, so two processes can never both decide a non-overlap item.
3. A reject sets the artifact to ``rejected``; the generation loop regenerates it with
   :func:`reject_feedback` as feedback (a new row, ``version + 1``, ``replaces_id``).
   :func:`requeue_replacements` (also run by :func:`next_item`) puts the re-verified
   replacement back into the open sample, linked to the version it replaces.
4. :func:`gate` states the rule and whether it holds: the sample is fully reviewed, no
   rejected item is still waiting for an accepted replacement, the sample covers at
   least its rate of the verified items, and the one-sided Clopper-Pearson upper bound
   on the defect rate is below the threshold. If the bound is too high, the sample is
   extended (:func:`extend_sample`) or re-drawn (``draw_sample(..., redraw=True)``).
5. A rejected artifact that cannot be fixed (offline, a rule makes the same text again) would
   block the gate forever: a curator may :func:`exclude_seed` it. The seed leaves the dataset
   (status ``excluded``), its reject is no longer open, the defect still counts.

The gate and the dashboard counts are SQL aggregates over the covering indexes of
migration 3 (well under a second at 100k seeds; see ``bench/qc_bench.py``).

Statistics: the defect rate is estimated from the *random draws* only (draws and
extensions of every round); a regenerated replacement that returns to review is not a
random draw, so it must be accepted (it closes the open reject) but does not enter the
estimate. An item counts as reviewed once it has one accept/reject decision; an
*overlap* item additionally asks a second, different annotator for a decision, used for
Cohen's kappa (:func:`agreement`). When two decisions disagree, the item counts as a
defect (conservative).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import random
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

from db.store import Store, now
from qcstation.common.identity import norm, require_curator
from qcstation.common.stats import (
    clopper_pearson_upper,
    cohen_kappa,
    observed_agreement,
    reviews_needed,
)
from qcstation.common.errors import ReviewError

__all__ = [
    "REJECT_REASONS",
    "QC_DIMENSIONS",
    "ALL_DIMENSIONS",
    "CLAIM_TTL_MINUTES",
    "DEFAULT_RATE",
    "DEFAULT_THRESHOLD",
    "DEFAULT_CONFIDENCE",
    "SampleInfo",
    "ReviewItem",
    "Progress",
    "GateStatus",
    "Agreement",
    "stratified_allocation",
    "draw_sample",
    "extend_sample",
    "close_sample",
    "open_sample",
    "get_sample",
    "list_samples",
    "requeue_replacements",
    "next_item",
    "release_claim",
    "get_item",
    "list_items",
    "decide",
    "undo_last",
    "progress",
    "gate",
    "agreement",
    "dashboard_counts",
    "exclude_seed",
    "excluded_seeds",
    "reject_feedback",
    "current_artifacts",
    "current_artifact",
]

#: Common reasons to reject, per dimension (1-9 in the review screen); anything else is typed.
REJECT_REASONS_BY_DIMENSION: dict[str, tuple[str, ...]] = {
    "arithmetic": (
        "changes the answer",
        "story words left in",
        "a quantity is missing",
        "wrong operation or order",
        "not a notation-only question",
        "unreadable / garbled",
    ),
    "understanding": (
        "a known quantity is missing",
        "a number not in the problem",
        "wrong goal",
        "relationship missing or wrong",
        "irrelevant info misfiled",
        "reveals a step result",
        "unreadable / garbled",
    ),
}
REJECT_REASONS: tuple[str, ...] = tuple(dict.fromkeys(
    r for reasons in REJECT_REASONS_BY_DIMENSION.values() for r in reasons))


def reject_reasons(dimension: str | None) -> tuple[str, ...]:
    """The common reject reasons of one dimension (all of them for an unknown one)."""
    return REJECT_REASONS_BY_DIMENSION.get(dimension or "", REJECT_REASONS)
QC_DIMENSIONS: tuple[str, ...] = ("arithmetic", "understanding")
ALL_DIMENSIONS: tuple[str, ...] = ("understanding", "reasoning", "arithmetic", "refinement")
CLAIM_TTL_MINUTES = 15
DEFAULT_RATE = 0.10
DEFAULT_THRESHOLD = 0.05
DEFAULT_CONFIDENCE = 0.95

FINAL_VERDICTS = ("accept", "reject")
_VERDICT_ALIASES = {
    "a": "accept", "accept": "accept", "accepted": "accept", "ok": "accept",
    "r": "reject", "reject": "reject", "rejected": "reject",
    "s": "skip", "skip": "skip", "skipped": "skip",
}
# artifact statuses QC may set/restore; others (generated, failed, superseded) are never touched
_QC_STATUSES = ("verified", "accepted", "rejected")


# -- data classes -------------------------------------------------------------------------

@dataclass
class SampleInfo:
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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ReviewItem:
    item_id: int
    sample_id: int
    seed_id: int
    artifact_id: int
    dimension: str
    source: str
    position: int
    overlap: bool
    question: str
    gold_answer: str
    content: dict[str, Any]
    verify_result: dict[str, Any] | None
    artifact_version: int
    replaces_id: int | None
    smtlib: str | None  # the verified SMT-LIB behind a notation question, if any
    # additions (not in the original contract) -------------------------------------------
    orig_id: str = ""
    level: str = ""
    artifact_status: str = ""
    claimed_by: str | None = None
    claimed_at: str | None = None
    requeued: bool = False  # a regenerated replacement of a rejected item
    decisions: list[dict[str, Any]] = field(default_factory=list)  # active reviews, oldest first
    seed_status: str = ""   # active, or excluded (see exclude_seed) / filtered / duplicate
    replaces_reason: str | None = None  # why the version this one replaces was rejected
    resolution: dict[str, Any] | None = None  # a curator's active override or settlement
    solution: str = ""      # the seed's gold solution (key information is judged against it)
    author: str | None = None  # the account that fixed this version in place (human-made)

    @property
    def key(self) -> str:
        """The id people use: the source and its original id (``gsm8k-17``), as in releases."""
        return item_key(self.source, self.orig_id)

    @property
    def decided(self) -> bool:
        return self.resolution is not None or any(
            d["verdict"] in FINAL_VERDICTS for d in self.decisions)

    @property
    def disagreed(self) -> bool:
        """Two reviewers gave different verdicts and no curator settled it yet."""
        verdicts = {d["verdict"] for d in self.decisions if d["verdict"] in FINAL_VERDICTS}
        return self.resolution is None and verdicts == {"accept", "reject"}

    @property
    def outcome(self) -> str | None:
        """A curator's resolution if any; else ``reject`` if any active decision rejects,
        ``accept`` if any accepts, else None."""
        if self.resolution is not None:
            return str(self.resolution["verdict"])
        verdicts = {d["verdict"] for d in self.decisions}
        if "reject" in verdicts:
            return "reject"
        if "accept" in verdicts:
            return "accept"
        return None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["decided"] = self.decided
        d["outcome"] = self.outcome
        return d


@dataclass
class Progress:
    total: int
    reviewed: int
    accepted: int
    rejected: int
    skipped: int
    remaining: int
    excluded: int = 0   # undecided items of seeds no longer active (excluded in QC, filtered)

    def sentence(self) -> str:
        s = f"{self.reviewed} of {self.total} reviewed, {self.rejected} rejected"
        if self.skipped:
            s += f", {self.skipped} skipped"
        if self.excluded:
            s += f", {self.excluded} excluded"
        return s

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["sentence"] = self.sentence()
        return d


@dataclass
class GateStatus:
    dimension: str
    passed: bool
    rule: str
    reviewed: int
    defects: int
    upper_bound: float | None
    threshold: float
    open_rejects: int
    blockers: list[str]
    next_step: str
    # additions ------------------------------------------------------------------------
    confidence: float = DEFAULT_CONFIDENCE
    pending: int = 0              # sampled items still waiting for a decision
    population: int = 0           # current verified/accepted items of the dimension
    covered: int = 0              # of which sampled (reviewed or waiting in the open sample)
    required: int = 0             # sample size the recorded rate asks for
    needed_reviews: int | None = None   # reviews (all accepted) for the bound to pass
    extend_by: int = 0            # items to add to the sample (coverage first, then the bound)
    open_reject_detail: dict[str, int] = field(default_factory=dict)
    cli_hint: str = ""            # the commands for next_step ("; "-separated), for the CLI
    extend_reason: str = ""       # why the sample should grow by extend_by (coverage / bound)
    plan: dict[str, Any] = field(default_factory=dict)  # see gate_plan()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Agreement:
    pairs: int
    observed: float | None
    kappa: float | None
    annotators: list[str] = field(default_factory=list)
    table: dict[str, int] = field(default_factory=dict)  # "accept/reject" -> count

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- small helpers ------------------------------------------------------------------------

def _loads(text: Any) -> Any:
    if text is None or text == "":
        return None
    if isinstance(text, (dict, list)):
        return text
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


def _claim_cutoff() -> str:
    t = _dt.datetime.now(_dt.timezone.utc) - _dt.timedelta(minutes=CLAIM_TTL_MINUTES)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _check_dimension(dimension: str) -> str:
    if dimension not in ALL_DIMENSIONS:
        raise ReviewError(f"unknown dimension {dimension!r}; expected one of "
                          f"{', '.join(ALL_DIMENSIONS)}", title="Unknown dimension")
    return dimension


def _norm_verdict(verdict: str) -> str:
    v = _VERDICT_ALIASES.get(str(verdict).strip().lower())
    if v is None:
        raise ReviewError(f"unknown verdict {verdict!r}; use accept, reject or skip",
                          title="Unknown verdict")
    return v


def _rng(dimension: str, rng_seed: int, round_no: int, stage: str) -> random.Random:
    # str seeds are hashed with SHA-512 by random.Random: stable across runs and platforms
    return random.Random(f"qcstation-sample:{dimension}:{rng_seed}:{round_no}:{stage}")


def item_key(source: str, orig_id: Any) -> str:
    """One id scheme for people, the same as a release record's ``id`` and an evaluation
    item's key: the source and the seed's original id (``gsm8k-test-17``)."""
    return f"{source}-{orig_id}"


def bound_text(bound: float, threshold: float) -> str:
    """The defect bound as a percentage, rounded, with as many decimals (up to 4) as it
    takes to stay on the same side of the threshold as the number: a pass never reads as a
    fail (4.95% is "4.95%", not "5%")."""
    for places in range(1, 5):
        scale = 10 ** (places + 2)
        shown = math.floor(bound * scale + 0.5) / scale
        if (shown < threshold) == (bound < threshold):
            break
    s = f"{shown * 100:.{places}f}"
    if s.endswith(".0"):
        s = s[:-2]
    return f"{s}%"


def _pct(x: float) -> str:
    s = f"{x * 100:.2f}".rstrip("0").rstrip(".")
    return f"{s}%"


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else (plural or word + 's')}"


# -- current artifacts --------------------------------------------------------------------

# The current artifact of every seed of one dimension (``:dim``), as (seed_id, id, status,
# version). SQLite's documented min/max rule: with exactly one MAX() aggregate, the bare
# columns come from the row holding the maximum; (seed_id, dimension, version) is unique, so
# that row is the highest non-superseded version. Served from the covering index
# artifacts_dim_seed_version (migration 3) without touching the table.
_CUR_SQL = """
    SELECT seed_id, id, status, MAX(version) AS version FROM artifacts
    WHERE dimension = :dim AND status != 'superseded' GROUP BY seed_id
"""

# Current artifacts of one dimension counted by seed source, seed status and artifact status
# (CROSS JOIN keeps the index-ordered scan of artifacts as the outer loop).
_CUR_COUNTS_SQL = f"""
    SELECT sd.source AS source, sd.status AS seed_status, c.status AS status, COUNT(*) AS n
    FROM ({_CUR_SQL}) c CROSS JOIN seeds sd ON sd.id = c.seed_id
    GROUP BY sd.source, sd.status, c.status
"""


# Seeds no longer active (excluded in QC, filtered, duplicate): usually few, read from the
# seeds_status index as two ranges (``!=`` would scan it).
_INACTIVE_SEED_IDS = "SELECT id FROM seeds WHERE status < 'active' OR status > 'active'"


def _rejected_sql(item: str) -> str:
    """SQL: is sample item ``item`` (an id expression) rejected? A curator's latest active
    resolution (override or settlement) decides; else any active reject of a reviewer."""
    return (f"COALESCE((SELECT q.verdict = 'reject' FROM qc_resolutions q "
            f"WHERE q.sample_item_id = {item} AND q.undone_at IS NULL ORDER BY q.id DESC LIMIT 1), "
            f"EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = {item} "
            f"AND r.undone_at IS NULL AND r.verdict = 'reject'))")


def current_artifacts(store: Store, dimension: str) -> list[dict[str, Any]]:
    """Current artifact (highest non-superseded version) of every seed for ``dimension``,
    with the seed's ``source``, ``orig_id`` and ``seed_status``."""
    return store.query(
        f"SELECT a.*, s.source AS source, s.orig_id AS orig_id, s.status AS seed_status "
        f"FROM ({_CUR_SQL}) c CROSS JOIN artifacts a ON a.id = c.id "
        f"JOIN seeds s ON s.id = a.seed_id ORDER BY a.seed_id", {"dim": dimension})


def current_artifact(store: Store, seed_id: int, dimension: str) -> dict[str, Any] | None:
    return store.one(
        "SELECT * FROM artifacts WHERE seed_id = ? AND dimension = ? AND status != 'superseded' "
        "ORDER BY version DESC LIMIT 1", (seed_id, dimension))


def _current_counts(store: Store, dimension: str) -> list[dict[str, Any]]:
    """Current artifacts of ``dimension`` by (source, seed_status, status) -> n."""
    return store.query(_CUR_COUNTS_SQL, {"dim": dimension})


# -- sampling -----------------------------------------------------------------------------

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
    size = int(store.scalar("SELECT COUNT(*) FROM sample_items WHERE sample_id = ?", (row["id"],)))
    return SampleInfo(
        id=int(row["id"]), dimension=row["dimension"], round=int(row["round"]),
        rng_seed=int(row["rng_seed"]), rate=float(row["rate"]), status=row["status"],
        size=size, created_at=row["created_at"], created_by=row.get("created_by"),
        params=_loads(row.get("params")) or {},
    )


def get_sample(store: Store, sample_id: int) -> SampleInfo:
    row = store.one("SELECT * FROM samples WHERE id = ?", (sample_id,))
    if row is None:
        raise ReviewError(f"no sample #{sample_id}", title="No such sample")
    return _sample_row_to_info(store, row)


def open_sample(store: Store, dimension: str) -> SampleInfo | None:
    row = store.one("SELECT * FROM samples WHERE dimension = ? AND status = 'open' "
                    "ORDER BY id DESC LIMIT 1", (dimension,))
    return None if row is None else _sample_row_to_info(store, row)


def list_samples(store: Store, dimension: str | None = None) -> list[SampleInfo]:
    if dimension is None:
        rows = store.query("SELECT * FROM samples ORDER BY id")
    else:
        rows = store.query("SELECT * FROM samples WHERE dimension = ? ORDER BY id", (dimension,))
    return [_sample_row_to_info(store, r) for r in rows]


def _active_reviews(store: Store, item_ids: list[int] | None = None,
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


def _active_resolutions(store: Store, item_ids: list[int]) -> dict[int, dict[str, Any]]:
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


def _finals(reviews: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in reviews if r["verdict"] in FINAL_VERDICTS]


def _sampled_seed_ids(store: Store, dimension: str) -> set[int]:
    """Seeds already taken for this dimension: in the open sample, or with an active decision
    in any sample. (Undecided items of a closed sample are released.)"""
    rows = store.query(
        """
        SELECT DISTINCT si.seed_id FROM sample_items si JOIN samples s ON s.id = si.sample_id
        WHERE s.dimension = ? AND (
            s.status = 'open'
            OR EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id
                       AND r.undone_at IS NULL AND r.verdict IN ('accept', 'reject')))
        """, (dimension,))
    return {int(r["seed_id"]) for r in rows}


def _pool(store: Store, dimension: str) -> dict[str, list[dict[str, Any]]]:
    """Unsampled current verified artifacts of active seeds, by source, in a stable order."""
    taken = _sampled_seed_ids(store, dimension)
    pool: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for a in current_artifacts(store, dimension):
        if a["status"] != "verified" or a["seed_status"] != "active" or int(a["seed_id"]) in taken:
            continue
        pool[a["source"]].append(a)
    for rows in pool.values():
        rows.sort(key=lambda a: (str(a["orig_id"]), int(a["seed_id"])))
    return dict(pool)


def _ceil_rate(rate: float, n: int) -> int:
    return min(n, math.ceil(Fraction(rate).limit_denominator(10**9) * n))


# Sample items of one dimension (``:dim``) with their decision state, the first item of every
# seed with an active reject (later items of that seed are regenerated replacements, not
# random draws), and the seeds already taken (decided, or in the open sample).
_ITEMS_CTE = f"""
    items AS (
        SELECT si.id, si.seed_id, si.artifact_id, s.status AS sample_status,
               a.status AS artifact_status, si.seed_id NOT IN ({_INACTIVE_SEED_IDS}) AS active,
               EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id
                       AND r.undone_at IS NULL AND r.verdict IN ('accept', 'reject')) AS decided,
               {_rejected_sql("si.id")} AS rejected
        FROM sample_items si JOIN samples s ON s.id = si.sample_id
        JOIN artifacts a ON a.id = si.artifact_id
        WHERE s.dimension = :dim),
    first_reject AS (SELECT seed_id, MIN(id) AS item_id FROM items WHERE rejected GROUP BY seed_id),
    taken AS (SELECT DISTINCT seed_id FROM items WHERE decided OR sample_status = 'open'),
    taken_cur AS (
        SELECT seed_id, status, MAX(version) AS version FROM artifacts
        WHERE dimension = :dim AND status != 'superseded' AND seed_id IN (SELECT seed_id FROM taken)
        GROUP BY seed_id)
"""

# Taken seeds of active status by source and current-artifact status.
_TAKEN_COUNTS_SELECT = """
    SELECT 'taken' AS kind, sd.source AS k1, tc.status AS k2, COUNT(*) AS n,
           NULL AS a, NULL AS b, NULL AS c
    FROM taken_cur tc CROSS JOIN seeds sd ON sd.id = tc.seed_id WHERE sd.status = 'active'
    GROUP BY sd.source, tc.status
"""

# The gate in one statement (the items CTE is computed once): a 'summary' row (random draws
# reviewed, their defects, items pending), 'taken' rows (see above) and 'reject' rows: seeds
# of active status with an active reject, by the status of their current artifact and
# whether that artifact is in a sample of the dimension.
_GATE_SQL = f"""
    WITH {_ITEMS_CTE},
    reject_cur AS (
        SELECT seed_id, id, status, MAX(version) AS version FROM artifacts
        WHERE dimension = :dim AND status != 'superseded'
          AND seed_id IN (SELECT seed_id FROM first_reject)
        GROUP BY seed_id),
    open_reject AS (
        SELECT c.status AS status,
               CASE WHEN c.id IS NULL THEN 0 ELSE EXISTS (
                   SELECT 1 FROM sample_items x JOIN samples xs ON xs.id = x.sample_id
                   WHERE x.artifact_id = c.id AND xs.dimension = :dim) END AS in_sample
        FROM first_reject fr CROSS JOIN seeds sd ON sd.id = fr.seed_id
        LEFT JOIN reject_cur c ON c.seed_id = fr.seed_id
        WHERE sd.status = 'active')
    SELECT 'summary' AS kind, NULL AS k1, NULL AS k2, COUNT(*) AS n,
           COALESCE(SUM(i.decided AND (fr.item_id IS NULL OR i.id <= fr.item_id)), 0) AS a,
           COALESCE(SUM(i.decided AND i.rejected
                        AND (fr.item_id IS NULL OR i.id <= fr.item_id)), 0) AS b,
           COALESCE(SUM(NOT i.decided AND i.sample_status = 'open'
                        AND i.artifact_status != 'superseded' AND i.active), 0) AS c
    FROM items i LEFT JOIN first_reject fr ON fr.seed_id = i.seed_id
    UNION ALL
    {_TAKEN_COUNTS_SELECT}
    UNION ALL
    SELECT 'reject', status, in_sample, COUNT(*), NULL, NULL, NULL
    FROM open_reject GROUP BY status, in_sample
"""

_REVIEWABLE = ("verified", "accepted", "rejected")
_POPULATION = ("verified", "accepted")


def _coverage_from(current: list[dict[str, Any]], taken: list[dict[str, Any]],
                   rate: float) -> dict[str, dict[str, int]]:
    """Per-source coverage from :func:`_current_counts` rows and 'taken' rows (see
    :func:`_coverage`), plus ``unsampled``: active verified/accepted items not yet taken."""
    out: dict[str, dict[str, int]] = {}

    def slot(source: str) -> dict[str, int]:
        return out.setdefault(source, {"population": 0, "covered": 0, "required": 0,
                                       "unsampled": 0})

    for r in current:
        if r["seed_status"] != "active":
            continue
        n = int(r["n"])
        if r["status"] in _REVIEWABLE:
            slot(r["source"])["population"] += n
        if r["status"] in _POPULATION:
            slot(r["source"])["unsampled"] += n
    for r in taken:
        n = int(r["n"])
        c = slot(r["k1"])
        c["covered"] += n
        if r["k2"] not in _REVIEWABLE:      # being regenerated: a sampled seed stays covered
            c["population"] += n
        if r["k2"] in _POPULATION:
            c["unsampled"] -= n
    for c in out.values():
        c["required"] = _ceil_rate(rate, c["population"])
    return dict(sorted(out.items()))


def _coverage(store: Store, dimension: str, rate: float) -> dict[str, dict[str, int]]:
    """Per source: items of active seeds that are reviewable (current artifact verified,
    accepted or rejected) or already sampled (``population``), how many of them are sampled
    (``covered``) and how many the rate asks for (``required``). A sampled seed whose artifact
    is being regenerated stays covered."""
    taken = store.query(f"WITH {_ITEMS_CTE} {_TAKEN_COUNTS_SELECT}", {"dim": dimension})
    cov = _coverage_from(_current_counts(store, dimension), taken, rate)
    return {src: {k: v for k, v in c.items() if k != "unsampled"} for src, c in cov.items()}


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
                  overlap_idx: set[int], start: int) -> list[int]:
    ids = []
    for i, a in enumerate(chosen):
        ids.append(store.insert("sample_items", {
            "sample_id": sample_id, "seed_id": int(a["seed_id"]), "artifact_id": int(a["id"]),
            "stratum": a["source"], "position": start + i, "overlap": 1 if i in overlap_idx else 0,
        }))
    return ids


def close_sample(store: Store, sample_id: int, *, actor: str, status: str = "failed") -> SampleInfo:
    """Close an open sample (``failed`` or ``superseded``); its decisions keep counting in the
    gate, its undecided items are released so a new draw may take those seeds again."""
    if status not in ("failed", "superseded", "passed"):
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


def draw_sample(store: Store, dimension: str, *, rate: float, rng_seed: int, actor: str,
                min_size: int = 5, overlap_rate: float = 0.0, redraw: bool = False,
                curators: list[str] | tuple[str, ...] | None = None) -> SampleInfo:
    """Draw a seeded random sample, stratified by source, of the current ``verified``
    artifacts of ``dimension`` not sampled before; records RNG seed, rate and strata.

    Size: ``ceil(rate * N_s)`` from every source ``s`` (so at least one per non-empty
    source), topped up proportionally (largest remainder) to ``min_size`` when smaller. Raises :class:`ReviewError` while an open
    sample exists for the dimension, unless ``redraw`` (the open one is closed as ``failed``
    first and a new round is drawn; only a curator, one of ``curators``, may re-draw).
    """
    _check_dimension(dimension)
    actor = norm(actor) or actor
    if redraw:
        require_curator(actor, curators, "re-draw a sample")
    if not 0.0 < rate <= 1.0:
        raise ReviewError(f"sample rate must be in (0, 1], got {rate}")
    if min_size < 0:
        raise ReviewError(f"minimum sample size must be >= 0, got {min_size}")
    if not 0.0 <= overlap_rate <= 1.0:
        raise ReviewError(f"overlap rate must be in [0, 1], got {overlap_rate}")
    with store.transaction():
        existing = open_sample(store, dimension)
        if existing is not None:
            if not redraw:
                raise ReviewError(
                    f"sample #{existing.id} (round {existing.round}) for {dimension} is still open; "
                    f"extend it, or re-draw with --redraw", title="Sample already open")
            close_sample(store, existing.id, actor=actor, status="failed")
        pool = _pool(store, dimension)
        sizes = {s: len(rows) for s, rows in pool.items()}
        population = sum(sizes.values())
        if population == 0:
            raise ReviewError(f"no verified {dimension} items left to sample; generate and verify "
                              f"artifacts first", title="Nothing to sample")
        # every source sampled at the rate (rounded up, so each non-empty source gets >= 1),
        # topped up proportionally to reach min_size
        alloc = {src: _ceil_rate(rate, n) for src, n in sizes.items()}
        floor_size = min(population, min_size)
        if sum(alloc.values()) < floor_size:
            room = {src: sizes[src] - alloc[src] for src in sizes}
            top = stratified_allocation(room, floor_size - sum(alloc.values()), at_least_one=False)
            alloc = {src: alloc[src] + top.get(src, 0) for src in sizes}
        round_no = int(store.scalar("SELECT COUNT(*) FROM samples WHERE dimension = ?",
                                    (dimension,))) + 1
        rng = _rng(dimension, rng_seed, round_no, "draw")
        chosen = _choose(rng, pool, alloc)
        overlap_idx = _overlap_flags(rng, len(chosen), overlap_rate)
        params = {
            "kind": "redraw" if existing is not None else "draw",
            "min_size": min_size, "overlap_rate": overlap_rate,
            "population": dict(sorted(sizes.items())), "allocation": dict(sorted(alloc.items())),
            "artifact_ids": [int(a["id"]) for a in chosen],
            "rng": f"random.Random('qcstation-sample:{dimension}:{rng_seed}:{round_no}:draw')",
            "extensions": [],
        }
        created = now()
        sample_id = store.insert("samples", {
            "dimension": dimension, "round": round_no, "rng_seed": int(rng_seed), "rate": float(rate),
            "status": "open", "params": params, "created_by": actor, "created_at": created,
        })
        _insert_items(store, sample_id, chosen, overlap_idx, 0)
        store.event(actor, "qc.sample.drawn", "sample", sample_id, {
            "dimension": dimension, "round": round_no, "rng_seed": int(rng_seed), "rate": rate,
            "size": len(chosen), "population": population, "allocation": params["allocation"],
            "overlap": len(overlap_idx),
            "replaces_sample": existing.id if existing is not None else None,
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
        params = _loads(row["params"]) or {}
        extensions = list(params.get("extensions") or [])
        pool = _pool(store, dimension)
        sizes = {s: len(rows) for s, rows in pool.items()}
        left = sum(sizes.values())
        if left == 0:
            raise ReviewError(f"every verified {dimension} item is already sampled; nothing to "
                              f"extend with", title="Nothing left to sample")
        take = min(extra, left)
        # first the sources sampled below the rate (new items arrived), then proportionally
        cov = _coverage(store, dimension, float(row["rate"]))
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
        rng = _rng(dimension, int(row["rng_seed"]), int(row["round"]), stage)
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


# -- items --------------------------------------------------------------------------------

_ITEM_SQL = """
    SELECT si.id AS item_id, si.sample_id, si.seed_id, si.artifact_id, si.position, si.overlap,
           si.claimed_by, si.claimed_at, si.stratum,
           s.dimension, s.status AS sample_status,
           sd.source, sd.orig_id, sd.level, sd.question, sd.answer_text, sd.status AS seed_status,
           sd.solution, a.author,
           a.content, a.verify_result, a.version, a.replaces_id, a.status AS artifact_status
    FROM sample_items si
    JOIN samples s ON s.id = si.sample_id
    JOIN seeds sd ON sd.id = si.seed_id
    JOIN artifacts a ON a.id = si.artifact_id
"""


def _requeued_ids(store: Store, dimension: str) -> set[int]:
    """Items that are regenerated replacements: their seed has an earlier item of this
    dimension with an active reject."""
    rows = store.query(
        """
        SELECT si.id FROM sample_items si JOIN samples s ON s.id = si.sample_id
        WHERE s.dimension = ? AND EXISTS (
            SELECT 1 FROM sample_items e JOIN samples es ON es.id = e.sample_id
            WHERE es.dimension = s.dimension AND e.seed_id = si.seed_id AND e.id < si.id
              AND """ + _rejected_sql("e.id") + """)
        """, (dimension,))
    return {int(r["id"]) for r in rows}


def _smtlib_for(store: Store, dimension: str, content: dict[str, Any]) -> str | None:
    if dimension not in ("arithmetic", "reasoning"):
        return None
    code = content.get("smtlib")
    if isinstance(code, str) and code.strip():
        return code
    src = content.get("source_artifact_id")
    if isinstance(src, int):
        row = store.one("SELECT content FROM artifacts WHERE id = ?", (src,))
        if row:
            c = _loads(row["content"]) or {}
            if isinstance(c.get("smtlib"), str):
                return c["smtlib"]
    return None


def _build_items(store: Store, rows: list[dict[str, Any]]) -> list[ReviewItem]:
    if not rows:
        return []
    reviews = _active_reviews(store, [int(r["item_id"]) for r in rows])
    resolutions = _active_resolutions(store, [int(r["item_id"]) for r in rows])
    requeued: set[int] = set()
    for dim in {r["dimension"] for r in rows}:
        requeued |= _requeued_ids(store, dim)
    out = []
    for r in rows:
        content = _loads(r["content"]) or {}
        iid = int(r["item_id"])
        out.append(ReviewItem(
            item_id=iid, sample_id=int(r["sample_id"]), seed_id=int(r["seed_id"]),
            artifact_id=int(r["artifact_id"]), dimension=r["dimension"], source=r["source"],
            position=int(r["position"]), overlap=bool(r["overlap"]), question=r["question"],
            gold_answer=r["answer_text"], content=content,
            verify_result=_loads(r["verify_result"]), artifact_version=int(r["version"]),
            replaces_id=r["replaces_id"], smtlib=_smtlib_for(store, r["dimension"], content),
            orig_id=str(r["orig_id"]), level=r["level"], artifact_status=r["artifact_status"],
            claimed_by=r["claimed_by"], claimed_at=r["claimed_at"], requeued=iid in requeued,
            seed_status=r["seed_status"],
            replaces_reason=reject_feedback(store, int(r["replaces_id"])) if r["replaces_id"] else None,
            decisions=[{"review_id": int(v["id"]), "annotator": v["annotator"],
                        "display_name": v.get("display_name") or v["annotator"],
                        "verdict": v["verdict"], "reason": v["reason"],
                        "comment": v.get("comment"), "unsure": bool(v.get("unsure")),
                        "created_at": v["created_at"]} for v in reviews.get(iid, [])],
            resolution=resolutions.get(iid), solution=r.get("solution") or "",
            author=r.get("author"),
        ))
    return out


def get_item(store: Store, item_id: int) -> ReviewItem:
    rows = store.query(_ITEM_SQL + " WHERE si.id = ?", (item_id,))
    if not rows:
        raise ReviewError(f"no review item #{item_id}", title="No such item")
    return _build_items(store, rows)[0]


def list_items(store: Store, sample_id: int) -> list[ReviewItem]:
    """Every item of a sample in review order (position)."""
    rows = store.query(_ITEM_SQL + " WHERE si.sample_id = ? ORDER BY si.position, si.id",
                       (sample_id,))
    return _build_items(store, rows)


# -- claims -------------------------------------------------------------------------------

def _available(item: dict[str, Any], finals: list[dict[str, Any]], annotator: str,
               cutoff: str) -> bool:
    """Can ``annotator`` claim this item now? (Item row from the candidate query.)"""
    if item["artifact_status"] == "superseded":
        return False
    deciders = {r["annotator"] for r in finals}
    if annotator in deciders:
        return False
    needed = 2 if item["overlap"] else 1
    if len(deciders) >= needed:
        return False
    holder = item["claimed_by"]
    if holder and holder != annotator and (item["claimed_at"] or "") >= cutoff:
        return False
    return True


def next_item(store: Store, annotator: str, dimension: str | None = None, *,
              after_item_id: int | None = None) -> ReviewItem | None:
    """Atomically claim the next item this annotator should review, or None when nothing is left.

    Order: the item this annotator already holds (resuming after a crash), then undecided
    items by sample and position, items this annotator skipped last. With ``after_item_id``
    (moving on without deciding) the claim on that item is released and the search starts
    after it, wrapping around. A non-overlap item is never handed to a second annotator
    while claimed (claims expire after :data:`CLAIM_TTL_MINUTES` minutes) or once decided;
    an overlap item is handed to a second, different annotator after the first decision.
    Regenerated replacements are requeued first (:func:`requeue_replacements`). Items of
    seeds no longer active (excluded in QC, filtered) are not handed out.
    """
    annotator = norm(annotator)
    if not annotator:
        raise ReviewError("no account is known for this session")
    if dimension is not None:
        _check_dimension(dimension)
    with store.transaction():
        requeue_replacements(store, annotator)
        sql = ("SELECT si.id, si.sample_id, si.position, si.overlap, si.claimed_by, si.claimed_at, "
               "a.status AS artifact_status FROM sample_items si "
               "JOIN samples s ON s.id = si.sample_id JOIN artifacts a ON a.id = si.artifact_id "
               "WHERE s.status = 'open' AND si.seed_id NOT IN (" + _INACTIVE_SEED_IDS + ")")
        params: list[Any] = []
        if dimension is not None:
            sql += " AND s.dimension = ?"
            params.append(dimension)
        rows = store.query(sql + " ORDER BY s.id, si.position, si.id", params)
        reviews = _active_reviews(store, [int(r["id"]) for r in rows], dimension)
        cutoff = _claim_cutoff()
        cands = [r for r in rows if _available(r, _finals(reviews.get(int(r["id"]), [])),
                                               annotator, cutoff)]
        chosen: dict[str, Any] | None = None
        if after_item_id is not None:
            store.execute("UPDATE sample_items SET claimed_by = NULL, claimed_at = NULL "
                          "WHERE id = ? AND claimed_by = ?", (after_item_id, annotator))
            after = store.one("SELECT sample_id, position FROM sample_items WHERE id = ?",
                              (after_item_id,))
            if after is not None and cands:
                key = (int(after["sample_id"]), int(after["position"]), int(after_item_id))
                later = [r for r in cands
                         if (int(r["sample_id"]), int(r["position"]), int(r["id"])) > key]
                others = [r for r in cands if int(r["id"]) != after_item_id]
                chosen = (later or others or cands)[0]
        if chosen is None and cands:
            mine = [r for r in cands if r["claimed_by"] == annotator
                    and (r["claimed_at"] or "") >= cutoff]
            if mine and after_item_id is None:
                chosen = mine[0]
            else:
                def skipped_at(r: dict[str, Any]) -> str:
                    own = [v["created_at"] for v in reviews.get(int(r["id"]), [])
                           if v["annotator"] == annotator and v["verdict"] == "skip"]
                    return max(own) if own else ""
                fresh = [r for r in cands if not skipped_at(r)]
                chosen = fresh[0] if fresh else min(cands, key=skipped_at)
        if chosen is None:
            return None
        stamp = now()
        # one claim per annotator: release any other item this annotator holds
        store.execute("UPDATE sample_items SET claimed_by = NULL, claimed_at = NULL "
                      "WHERE claimed_by = ? AND id != ?", (annotator, int(chosen["id"])))
        store.execute("UPDATE sample_items SET claimed_by = ?, claimed_at = ? WHERE id = ?",
                      (annotator, stamp, int(chosen["id"])))
        return get_item(store, int(chosen["id"]))


def release_claim(store: Store, item_id: int, annotator: str) -> bool:
    """Give back an item this annotator holds without deciding it; True if a claim was released."""
    annotator = norm(annotator)
    with store.transaction():
        cur = store.execute("UPDATE sample_items SET claimed_by = NULL, claimed_at = NULL "
                            "WHERE id = ? AND claimed_by = ?", (item_id, annotator))
        return cur.rowcount > 0


# -- decisions ----------------------------------------------------------------------------

def _sync_artifact_status(store: Store, artifact_id: int) -> str | None:
    """Set the artifact's QC status from its active decisions (reject wins); returns it."""
    art = store.one("SELECT status FROM artifacts WHERE id = ?", (artifact_id,))
    if art is None or art["status"] not in _QC_STATUSES:
        return None if art is None else art["status"]
    verdicts = {r["verdict"] for r in store.query(
        "SELECT verdict FROM reviews WHERE artifact_id = ? AND undone_at IS NULL "
        "AND verdict IN ('accept', 'reject')", (artifact_id,))}
    resolved = store.scalar(
        "SELECT q.verdict FROM qc_resolutions q JOIN sample_items si ON si.id = q.sample_item_id "
        "WHERE si.artifact_id = ? AND q.undone_at IS NULL ORDER BY q.id DESC LIMIT 1",
        (artifact_id,))
    if resolved:
        verdicts = {str(resolved)}
    new = "rejected" if "reject" in verdicts else "accepted" if "accept" in verdicts else "verified"
    if new != art["status"]:
        store.execute("UPDATE artifacts SET status = ?, updated_at = ? WHERE id = ?",
                      (new, now(), artifact_id))
    return new


MAX_REASON_CHARS = 500
MAX_COMMENT_CHARS = 2000


def _clean_text(text: str | None, limit: int, *, lines: bool = False) -> str | None:
    """A reason or comment as stored: printable characters only (newlines kept in a comment),
    whitespace collapsed, at most ``limit`` characters; None when empty."""
    if text is None:
        return None
    if len(text) > limit * 4:
        text = text[:limit * 4]
    keep = "\n" if lines else ""
    cleaned = "".join(ch if (ch.isprintable() or ch in keep) else " " for ch in str(text))
    if lines:
        cleaned = "\n".join(" ".join(part.split()) for part in cleaned.split("\n")).strip()
    else:
        cleaned = " ".join(cleaned.split())
    if len(cleaned) > limit:
        raise ReviewError(f"the text is too long ({len(cleaned)} characters; at most {limit})",
                          title="Too long")
    return cleaned or None


def decide(store: Store, item_id: int, annotator: str, verdict: str,
           reason: str | None = None, *, comment: str | None = None, unsure: bool = False,
           display: str | None = None, changes_id: int | None = None) -> int:
    """Record ``annotator``'s verdict (accept | reject | skip) on an item; returns the review id.

    A reject needs a reason (it is the feedback for regeneration). Inside one write
    transaction the item's state is re-checked: refused if this annotator already decided it,
    if another annotator decided a non-overlap item (or two decided an overlap item), if
    someone else holds an unexpired claim, if the sample is closed or the artifact replaced.
    Accept/reject set the artifact to ``accepted`` / ``rejected``; the claim is released.
    """
    annotator = norm(annotator)
    if not annotator:
        raise ReviewError("no account is known for this session")
    v = _norm_verdict(verdict)
    reason = _clean_text(reason, MAX_REASON_CHARS)
    comment = _clean_text(comment, MAX_COMMENT_CHARS, lines=True)
    if v == "reject" and not reason:
        raise ReviewError("a reject needs a reason: say what is wrong, e.g. one of: "
                          + "; ".join(REJECT_REASONS), title="Reason required")
    with store.transaction():
        item = store.one(
            "SELECT si.*, s.dimension, s.status AS sample_status, a.status AS artifact_status "
            "FROM sample_items si JOIN samples s ON s.id = si.sample_id "
            "JOIN artifacts a ON a.id = si.artifact_id WHERE si.id = ?", (item_id,))
        if item is None:
            raise ReviewError(f"no review item #{item_id}", title="No such item")
        if item["sample_status"] != "open":
            raise ReviewError(f"item #{item_id} belongs to sample #{item['sample_id']}, which is "
                              f"{item['sample_status']}", title="Sample closed")
        if item["artifact_status"] == "superseded":
            raise ReviewError(f"item #{item_id} was regenerated since; review the new version",
                              title="Item replaced")
        finals = _finals(_active_reviews(store, [item_id]).get(item_id, []))
        mine = [r for r in finals if r["annotator"] == annotator]
        if mine:
            raise ReviewError(f"you ({annotator}) already decided item #{item_id} "
                              f"({mine[-1]['verdict']}); undo it first to change it",
                              title="Already decided")
        deciders = sorted({r["annotator"] for r in finals})
        if not item["overlap"] and deciders:
            raise ReviewError(f"item #{item_id} was already decided by {deciders[0]}",
                              title="Already decided")
        if item["overlap"] and len(deciders) >= 2:
            raise ReviewError(f"item #{item_id} already has two decisions "
                              f"({', '.join(deciders)})", title="Already decided")
        holder = item["claimed_by"]
        if holder and holder != annotator and (item["claimed_at"] or "") >= _claim_cutoff():
            raise ReviewError(f"item #{item_id} is being reviewed by {holder} (claimed at "
                              f"{item['claimed_at']}); take the next item instead",
                              title="Claimed by someone else")
        shown = display if display is not None else store.display_name
        review_id = store.insert("reviews", {
            "sample_item_id": item_id, "artifact_id": int(item["artifact_id"]),
            "annotator": annotator, "verdict": v, "reason": reason, "created_at": now(),
            "display_name": shown or annotator, "comment": comment, "unsure": 1 if unsure else 0,
            "changes_id": changes_id,
        })
        store.execute("UPDATE sample_items SET claimed_by = NULL, claimed_at = NULL WHERE id = ?",
                      (item_id,))
        status = _sync_artifact_status(store, int(item["artifact_id"])) if v != "skip" else None
        detail = {
            "review_id": review_id, "sample_id": int(item["sample_id"]),
            "artifact_id": int(item["artifact_id"]), "seed_id": int(item["seed_id"]),
            "dimension": item["dimension"], "verdict": v, "reason": reason,
            "artifact_status": status,
        }
        if comment:
            detail["comment"] = comment
        if unsure:
            detail["unsure"] = True
        if changes_id is not None:
            detail["changes_review_id"] = changes_id
        store.event(annotator, f"qc.review.{v}", "sample_item", item_id, detail, display=shown)
        return review_id


def change_decision(store: Store, review_id: int, annotator: str, verdict: str,
                    reason: str | None = None, *, comment: str | None = None,
                    unsure: bool = False, display: str | None = None) -> int:
    """Change one of your own earlier decisions (not only the last): the old review is marked
    undone, a new one records the new verdict and points at it (``changes_id``); both stay
    in the log. Refused for someone else's decision, a closed sample, or an artifact that
    was regenerated or fixed since. Returns the new review id."""
    annotator = norm(annotator)
    with store.transaction():
        old = store.one("SELECT * FROM reviews WHERE id = ?", (int(review_id),))
        if old is None:
            raise ReviewError(f"no decision #{review_id}", title="No such decision")
        if norm(old["annotator"]) != annotator:
            raise ReviewError(f"decision #{review_id} is {old['annotator']}'s, not yours; only "
                              f"its author can change it (a curator can override the item)",
                              title="Not yours")
        if old["undone_at"] is not None:
            raise ReviewError(f"decision #{review_id} was already undone or changed",
                              title="Already changed")
        item_id = int(old["sample_item_id"])
        _check_not_replaced(store, int(old["artifact_id"]), item_id, str(old["verdict"]))
        store.execute("UPDATE reviews SET undone_at = ? WHERE id = ?", (now(), int(review_id)))
        # the item is free for its author again (the claim checks in decide)
        store.execute("UPDATE sample_items SET claimed_by = NULL, claimed_at = NULL "
                      "WHERE id = ? AND claimed_by = ?", (item_id, annotator))
        return decide(store, item_id, annotator, verdict, reason, comment=comment,
                      unsure=unsure, display=display, changes_id=int(review_id))


def _check_not_replaced(store: Store, artifact_id: int, item_id: int, verdict: str) -> None:
    if verdict not in FINAL_VERDICTS:
        return
    art = store.one("SELECT status FROM artifacts WHERE id = ?", (artifact_id,))
    newer = store.one("SELECT id FROM artifacts WHERE replaces_id = ? ORDER BY id LIMIT 1",
                      (artifact_id,))
    if (art and art["status"] == "superseded") or newer:
        raise ReviewError(
            f"cannot change the {verdict} of item #{item_id}: the artifact was already "
            f"regenerated or fixed" + (f" (artifact #{newer['id']})" if newer else "")
            + "; review the replacement instead", title="Cannot change")


def my_decisions(store: Store, annotator: str, *, limit: int = 200) -> list[dict[str, Any]]:
    """This annotator's active decisions, newest first (to pick one to change)."""
    return store.query(
        "SELECT r.id AS review_id, r.sample_item_id AS item_id, r.verdict, r.reason, r.comment, "
        "r.unsure, r.created_at, s.dimension, sd.source, sd.orig_id FROM reviews r "
        "JOIN sample_items si ON si.id = r.sample_item_id JOIN samples s ON s.id = si.sample_id "
        "JOIN seeds sd ON sd.id = si.seed_id WHERE r.annotator = ? AND r.undone_at IS NULL "
        "ORDER BY r.id DESC LIMIT ?", (norm(annotator), int(limit)))


def undo_last(store: Store, annotator: str) -> int | None:
    """Undo this annotator's most recent active decision (accept, reject or skip).

    Marks the review ``undone_at`` (never deletes it), restores the artifact's status from
    the remaining decisions and gives the item back to the annotator (claimed). Returns the
    item id, or None when there is nothing to undo. Refused for a reject whose artifact was
    already regenerated (the replacement exists).
    """
    annotator = norm(annotator)
    with store.transaction():
        r = store.one("SELECT * FROM reviews WHERE annotator = ? AND undone_at IS NULL "
                      "ORDER BY id DESC LIMIT 1", (annotator,))
        if r is None:
            return None
        item_id = int(r["sample_item_id"])
        artifact_id = int(r["artifact_id"])
        if r["verdict"] in FINAL_VERDICTS:
            art = store.one("SELECT status FROM artifacts WHERE id = ?", (artifact_id,))
            newer = store.one("SELECT id FROM artifacts WHERE replaces_id = ? ORDER BY id LIMIT 1",
                              (artifact_id,))
            if (art and art["status"] == "superseded") or newer:
                raise ReviewError(
                    f"cannot undo your {r['verdict']} of item #{item_id}: the artifact was "
                    f"already regenerated" + (f" (artifact #{newer['id']})" if newer else "")
                    + "; review the replacement instead", title="Cannot undo")
        store.execute("UPDATE reviews SET undone_at = ? WHERE id = ?", (now(), int(r["id"])))
        status = _sync_artifact_status(store, artifact_id) if r["verdict"] in FINAL_VERDICTS else None
        cutoff = _claim_cutoff()
        item = store.one("SELECT claimed_by, claimed_at FROM sample_items WHERE id = ?", (item_id,))
        if item and (not item["claimed_by"] or item["claimed_by"] == annotator
                     or (item["claimed_at"] or "") < cutoff):
            store.execute("UPDATE sample_items SET claimed_by = NULL, claimed_at = NULL "
                          "WHERE claimed_by = ?", (annotator,))
            store.execute("UPDATE sample_items SET claimed_by = ?, claimed_at = ? WHERE id = ?",
                          (annotator, now(), item_id))
        store.event(annotator, "qc.review.undone", "sample_item", item_id, {
            "review_id": int(r["id"]), "verdict": r["verdict"], "artifact_id": artifact_id,
            "artifact_status": status,
        })
        return item_id


def reject_feedback(store: Store, artifact_id: int) -> str | None:
    """The reviewers' reason(s) for rejecting this artifact (newest first, distinct, joined by
    "; "), for the generation loop to pass as feedback; None if it has no active reject."""
    rows = store.query(
        "SELECT q.reason FROM qc_resolutions q JOIN sample_items si ON si.id = q.sample_item_id "
        "WHERE si.artifact_id = ? AND q.undone_at IS NULL AND q.verdict = 'reject' "
        "ORDER BY q.id DESC", (artifact_id,))
    rows += store.query("SELECT reason FROM reviews WHERE artifact_id = ? AND verdict = 'reject' "
                        "AND undone_at IS NULL ORDER BY id DESC", (artifact_id,))
    reasons: list[str] = []
    for r in rows:
        text = (r["reason"] or "").strip()
        if text and text not in reasons:
            reasons.append(text)
    return "; ".join(reasons) if reasons else None


# -- requeue ------------------------------------------------------------------------------

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
        rejected = store.query(
            """
            SELECT si.id AS item_id, si.sample_id, si.seed_id, si.artifact_id, s.dimension,
                   a.version, sd.source, sd.status AS seed_status
            FROM sample_items si JOIN samples s ON s.id = si.sample_id
            JOIN artifacts a ON a.id = si.artifact_id JOIN seeds sd ON sd.id = si.seed_id
            WHERE """ + _rejected_sql("si.id") + """
            ORDER BY si.id
            """)
        latest: dict[tuple[int, str], dict[str, Any]] = {}
        for r in rejected:
            key = (int(r["seed_id"]), r["dimension"])
            if key not in latest or int(r["version"]) >= int(latest[key]["version"]):
                latest[key] = r
        for (seed_id, dimension), r in sorted(latest.items()):
            cur = current_artifact(store, seed_id, dimension)
            if cur is None or int(cur["id"]) == int(r["artifact_id"]):
                continue
            if int(cur["version"]) <= int(r["version"]):
                continue
            store.execute("UPDATE artifacts SET status = 'superseded', updated_at = ? "
                          "WHERE id = ? AND status = 'rejected'", (now(), int(r["artifact_id"])))
            if cur["status"] != "verified" or r["seed_status"] != "active":
                continue  # not verified yet, or the seed was excluded: nothing to review
            if store.scalar("SELECT 1 FROM sample_items WHERE artifact_id = ?", (int(cur["id"]),)):
                continue
            target = open_sample(store, dimension)
            if target is None:
                store.execute("UPDATE samples SET status = 'open' WHERE id = ?", (int(r["sample_id"]),))
                store.event(actor, "qc.sample.reopened", "sample", int(r["sample_id"]),
                            {"dimension": dimension, "why": "requeue of a regenerated item"})
                target_id = int(r["sample_id"])
            else:
                target_id = target.id
            pos = int(store.scalar("SELECT COALESCE(MAX(position), -1) + 1 FROM sample_items "
                                   "WHERE sample_id = ?", (target_id,)))
            new_item = store.insert("sample_items", {
                "sample_id": target_id, "seed_id": seed_id, "artifact_id": int(cur["id"]),
                "stratum": r["source"], "position": pos, "overlap": 0,
            })
            store.event(actor, "qc.requeued", "sample_item", new_item, {
                "sample_id": target_id, "dimension": dimension, "seed_id": seed_id,
                "artifact_id": int(cur["id"]), "version": int(cur["version"]),
                "replaces_id": cur["replaces_id"], "rejected_item_id": int(r["item_id"]),
                "rejected_artifact_id": int(r["artifact_id"]),
            })
            added += 1
    return added


# -- gate planning ------------------------------------------------------------------------

def gate_plan(population: int, *, threshold: float, confidence: float = DEFAULT_CONFIDENCE,
              reviewed: int = 0, defects: int = 0, available: int | None = None) -> dict[str, Any]:
    """How many reviews the gate needs, said plainly before and while sampling.

    ``population`` verified items; ``reviewed``/``defects`` random draws so far; ``available``
    how many more items could still be drawn (default: the population less those reviewed).
    Returns ``clean`` (reviews needed with no defect at all), ``after_one`` (with one reject),
    ``needed`` (with the defects so far), ``reachable`` and, when out of reach, the
    ``ways_out`` and a ``sentence`` for people."""
    clean = reviews_needed(0, threshold, confidence)
    after_one = reviews_needed(1, threshold, confidence)
    needed = reviews_needed(defects, threshold, confidence)
    can_review = reviewed + (max(population - reviewed, 0) if available is None else available)
    reachable = needed is not None and needed <= can_review
    pct = _pct(threshold)
    parts = [f"the gate ({pct} threshold) needs {clean} reviews with no defect"
             if clean is not None else f"no number of reviews reaches the {pct} threshold"]
    if after_one is not None:
        parts.append(f"{after_one} after one reject")
    text = ", ".join(parts) + f"; {population} verified items"
    if defects and needed is not None:
        text += f"; with the {defects} defect{'s' if defects != 1 else ''} so far it needs {needed}"
    ways: list[str] = []
    if not reachable:
        ways = ["import more seeds", "configure a model so rejects are regenerated",
                "fix rejected items in place (e in review)", "have a curator exclude seeds "
                "that cannot be fixed", f"raise [qc] defect_threshold (now {pct}) in the config"]
        text += (f": out of reach, since at most {can_review} items can be reviewed. Ways out: "
                 + "; ".join(ways))
    return {"population": population, "clean": clean, "after_one": after_one, "needed": needed,
            "reachable": reachable, "can_review": can_review, "ways_out": ways,
            "sentence": text[:1].upper() + text[1:] + "."}


def _new_items_since_draw(store: Store, dimension: str) -> int:
    """Current first versions of active, unsampled seeds made after the latest draw."""
    latest = store.scalar("SELECT MAX(created_at) FROM samples WHERE dimension = ?", (dimension,))
    if not latest:
        return 0
    return int(store.scalar(
        f"SELECT COUNT(*) FROM ({_CUR_SQL}) c JOIN artifacts a ON a.id = c.id "
        f"JOIN seeds sd ON sd.id = c.seed_id WHERE sd.status = 'active' "
        f"AND c.status IN ('verified', 'accepted') AND a.replaces_id IS NULL "
        f"AND a.created_at > :at AND c.seed_id NOT IN (SELECT seed_id FROM sample_items si "
        f"JOIN samples s ON s.id = si.sample_id WHERE s.dimension = :dim)",
        {"dim": dimension, "at": latest}) or 0)


# -- progress, gate, agreement ------------------------------------------------------------

_PROGRESS_SQL = f"""
    SELECT COUNT(*) AS total,
           COALESCE(SUM(fin), 0) AS reviewed,
           COALESCE(SUM(fin AND rej), 0) AS rejected,
           COALESCE(SUM(fin AND NOT rej), 0) AS accepted,
           COALESCE(SUM(NOT fin AND skip AND active), 0) AS skipped,
           COALESCE(SUM(NOT fin AND NOT active), 0) AS excluded
    FROM (
        SELECT EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id
                       AND r.undone_at IS NULL AND r.verdict IN ('accept', 'reject')) AS fin,
               {_rejected_sql("si.id")} AS rej,
               EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id
                       AND r.undone_at IS NULL AND r.verdict = 'skip') AS skip,
               si.seed_id NOT IN ({_INACTIVE_SEED_IDS}) AS active
        FROM sample_items si
        WHERE si.sample_id = ?)
"""


def progress(store: Store, sample_id: int) -> Progress:
    """Decisions on a sample's items. Undecided items of seeds no longer active (excluded in
    QC, filtered) count as ``excluded``, not as remaining."""
    r = store.one(_PROGRESS_SQL, (sample_id,)) or {}
    total, reviewed = int(r.get("total") or 0), int(r.get("reviewed") or 0)
    excluded = int(r.get("excluded") or 0)
    return Progress(total=total, reviewed=reviewed, accepted=int(r.get("accepted") or 0),
                    rejected=int(r.get("rejected") or 0), skipped=int(r.get("skipped") or 0),
                    remaining=total - reviewed - excluded, excluded=excluded)


def _gate_rule(threshold: float, confidence: float, rate: float | None) -> str:
    cov = f"at least {_pct(rate)} of the verified items are sampled, " if rate else ""
    return (f"Passes when every sampled item has been reviewed, no rejected item is still "
            f"waiting for an accepted replacement, {cov}and the {_pct(confidence)} upper "
            f"confidence bound on the defect rate (Clopper-Pearson, rejects / reviewed random "
            f"draws over all rounds) is below {_pct(threshold)}.")


def _open_reject_kind(status: str | None, in_sample: bool) -> str | None:
    """Why a rejected seed's current artifact (``status``) does not close the reject yet."""
    if status == "accepted":
        return None
    if status is None or status == "rejected":
        return "awaiting regeneration"
    if status == "generated":
        return "awaiting verification"
    if status == "failed":
        return "regeneration failed"
    if status == "verified":
        return "awaiting review" if in_sample else "awaiting requeue"
    return f"status {status}"  # pragma: no cover - unknown status


def gate(store: Store, dimension: str, *, threshold: float,
         confidence: float = DEFAULT_CONFIDENCE) -> GateStatus:
    """Evaluate the QC gate of one dimension (read-only). See the module docstring.

    Seeds no longer active (excluded in QC with :func:`exclude_seed`, filtered) do not block:
    their rejects are not open and their undecided items are not pending; their decided
    random draws still count in the defect estimate."""
    _check_dimension(dimension)
    if not 0.0 < threshold <= 1.0:
        raise ReviewError(f"defect threshold must be in (0, 1], got {threshold}")
    if not 0.0 < confidence < 1.0:
        raise ReviewError(f"confidence must be in (0, 1), got {confidence}")
    return _gate(store, dimension, threshold, confidence, None)


def _gate(store: Store, dimension: str, threshold: float, confidence: float,
          current: list[dict[str, Any]] | None) -> GateStatus:
    """:func:`gate` without argument checks; ``current`` may pass :func:`_current_counts`
    rows already read (the dashboard reads them once for counts and gate)."""
    samples = store.query("SELECT id, rate FROM samples WHERE dimension = ? ORDER BY id",
                          (dimension,))
    if current is None:
        current = _current_counts(store, dimension)
    if not samples:
        population = sum(int(r["n"]) for r in current
                         if r["seed_status"] == "active" and r["status"] in _POPULATION)
        rule = _gate_rule(threshold, confidence, None)
        if population:
            what, command = "draw a sample", f"qcstation qc sample {dimension}"
        else:
            what = f"generate and verify {dimension} artifacts, then draw a sample"
            command = (f"qcstation generate --dimension {dimension}; "
                       f"qcstation qc sample {dimension}")
        return GateStatus(dimension=dimension, passed=False, rule=rule, reviewed=0, defects=0,
                          upper_bound=None, threshold=threshold, open_rejects=0,
                          blockers=[f"no {dimension} sample has been drawn yet"], next_step=what,
                          confidence=confidence, population=population, cli_hint=command,
                          plan=gate_plan(population, threshold=threshold,
                                         confidence=confidence))
    rate = float(samples[-1]["rate"])
    rule = _gate_rule(threshold, confidence, rate)

    reviewed = defects = pending = 0
    taken: list[dict[str, Any]] = []
    detail: Counter[str] = Counter()
    for r in store.query(_GATE_SQL, {"dim": dimension}):
        if r["kind"] == "summary":
            reviewed, defects, pending = int(r["a"]), int(r["b"]), int(r["c"])
        elif r["kind"] == "taken":
            taken.append(r)
        else:
            kind = _open_reject_kind(r["k1"], bool(r["k2"]))
            if kind is not None:
                detail[kind] += int(r["n"])
    open_rejects = sum(detail.values())

    cov = _coverage_from(current, taken, rate)
    unsampled = sum(c["unsampled"] for c in cov.values())
    population = sum(c["population"] for c in cov.values())
    covered = sum(c["covered"] for c in cov.values())
    required = sum(c["required"] for c in cov.values())
    short_by = {src: c["required"] - c["covered"] for src, c in cov.items()
                if c["required"] > c["covered"]}
    short = sum(short_by.values())

    upper = clopper_pearson_upper(defects, reviewed, confidence) if reviewed else None
    needed = reviews_needed(defects, threshold, confidence)
    bound_ok = upper is not None and upper < threshold

    blockers: list[str] = []
    steps: list[str] = []
    hints: list[str] = []

    def hint(command: str) -> None:
        if command not in hints:
            hints.append(command)

    extend_by = short
    if pending:
        blockers.append(f"{_plural(pending, 'sampled item')} still to review")
        steps.append(f"review {pending} more {'item' if pending == 1 else 'items'}")
        hint(f"qcstation qc next --dimension {dimension}")
    if open_rejects:
        parts = ", ".join(f"{n} {k}" for k, n in sorted(detail.items()))
        blockers.append(f"{_plural(open_rejects, 'rejected item')} without an accepted "
                        f"replacement ({parts})")
        if detail["awaiting regeneration"]:
            n = detail["awaiting regeneration"]
            steps.append(f"regenerate {n} rejected {'item' if n == 1 else 'items'}")
            hint("qcstation generate --rejected")
        if detail["awaiting verification"]:
            steps.append(f"verify {detail['awaiting verification']} regenerated items")
            hint("qcstation verify")
        if detail["awaiting requeue"]:
            steps.append(f"requeue {detail['awaiting requeue']} regenerated items for review")
            hint("qcstation qc requeue")
        if detail["regeneration failed"]:
            steps.append(f"{detail['regeneration failed']} rejected items failed regeneration: "
                         f"fix them by hand or have a curator exclude those seeds")
            hint("qcstation qc exclude SEED_ID --reason TEXT")
    extend_reason = ""
    if short:
        blockers.append(f"the sample covers {covered} of {population} verified items; the "
                        f"{_pct(rate)} rate per source asks for {short} more ("
                        + ", ".join(f"{src} {n}" for src, n in short_by.items()) + ")")
        arrived = _new_items_since_draw(store, dimension)
        why = (f"{_plural(arrived, 'new verified item')} arrived since the draw" if arrived
               else f"the sample is below the {_pct(rate)} rate per source")
        extend_reason = f"coverage: {why}"
        steps.append(f"extend the sample by {short} {'item' if short == 1 else 'items'} ({why})")
        hint(f"qcstation qc extend {dimension} --to-gate")
    if not bound_ok:
        if upper is None:
            blockers.append("no sampled item has been reviewed yet")
        else:
            blockers.append(f"the {_pct(confidence)} upper bound on the defect rate is "
                            f"{bound_text(upper, threshold)} ({defects} of {reviewed} rejected), "
                            f"not below {_pct(threshold)}")
        if needed is None:
            steps.append("the threshold cannot be reached by sampling; raise defect_threshold")
        elif not pending:
            more = max(needed - reviewed, 0)
            if more > unsampled - short:
                steps.append(f"the bound needs {needed} reviewed items with no new defects but "
                             f"only {max(unsampled, 0)} unsampled items are left: out of reach. "
                             f"Ways out: import more seeds; configure a model; fix rejected "
                             f"items in place; exclude seeds that cannot be fixed; or raise "
                             f"[qc] defect_threshold")
                hint("qcstation qc queue --state rejected")
            elif more:
                if more > extend_by:
                    bound_why = (f"the defect bound: {needed} reviewed items with no new "
                                 f"defect bring it below {_pct(threshold)} ({reviewed} so far)")
                    extend_reason = f"{extend_reason}; {bound_why}" if extend_reason \
                        else bound_why
                extend_by = max(extend_by, more)
                steps.append(f"extend the sample by {more} accepted items to bring the bound "
                             f"below {_pct(threshold)}")
                hint(f"qcstation qc extend {dimension} --to-gate")
    passed = not blockers
    return GateStatus(
        dimension=dimension, passed=passed, rule=rule, reviewed=reviewed, defects=defects,
        upper_bound=upper, threshold=threshold, open_rejects=open_rejects, blockers=blockers,
        next_step="nothing: the gate passes" if passed else "; then ".join(steps) or blockers[0],
        confidence=confidence, pending=pending, population=population, covered=covered,
        required=required, needed_reviews=needed, open_reject_detail=dict(sorted(detail.items())),
        extend_by=0 if passed else extend_by, cli_hint="" if passed else "; ".join(hints),
        extend_reason="" if passed or not extend_by else extend_reason,
        plan=gate_plan(population, threshold=threshold, confidence=confidence,
                       reviewed=reviewed, defects=defects,
                       available=pending + max(unsampled - short, 0) + short),
    )


def agreement(store: Store, dimension: str) -> Agreement:
    """Cohen's kappa over overlap items decided by two different annotators (their first
    decisions; accept vs reject)."""
    rows = store.query(
        "SELECT si.id FROM sample_items si JOIN samples s ON s.id = si.sample_id "
        "WHERE s.dimension = ? AND si.overlap = 1 ORDER BY si.id", (dimension,))
    reviews = _active_reviews(store, [int(r["id"]) for r in rows])
    a: list[str] = []
    b: list[str] = []
    people: set[str] = set()
    table: Counter[str] = Counter()
    for r in rows:
        firsts: dict[str, str] = {}
        for v in _finals(reviews.get(int(r["id"]), [])):
            firsts.setdefault(v["annotator"], v["verdict"])
        if len(firsts) < 2:
            continue
        (p1, v1), (p2, v2) = list(firsts.items())[:2]
        a.append(v1)
        b.append(v2)
        people |= {p1, p2}
        table[f"{v1}/{v2}"] += 1
    return Agreement(pairs=len(a), observed=observed_agreement(a, b), kappa=cohen_kappa(a, b),
                     annotators=sorted(people), table=dict(sorted(table.items())))


def dashboard_counts(store: Store, *, threshold: float = DEFAULT_THRESHOLD,
                     confidence: float = DEFAULT_CONFIDENCE,
                     dimensions: tuple[str, ...] | list[str] = QC_DIMENSIONS) -> dict[str, Any]:
    """Counts for the dashboard: seeds by source and status, current artifacts by dimension
    and status, every sample with its progress, and the gate of each QC dimension."""
    for dim in dimensions:
        _check_dimension(dim)
    if not 0.0 < threshold <= 1.0:
        raise ReviewError(f"defect threshold must be in (0, 1], got {threshold}")
    if not 0.0 < confidence < 1.0:
        raise ReviewError(f"confidence must be in (0, 1), got {confidence}")
    seeds: dict[str, dict[str, int]] = defaultdict(dict)
    for r in store.query("SELECT source, status, COUNT(*) AS n FROM seeds GROUP BY source, status "
                         "ORDER BY source, status"):
        seeds[r["source"]][r["status"]] = int(r["n"])
    current: dict[str, list[dict[str, Any]]] = {}
    artifacts: dict[str, dict[str, int]] = {}
    for dim in ALL_DIMENSIONS:
        if dim in dimensions:  # by source too: its gate needs them
            current[dim] = rows = _current_counts(store, dim)
        else:                  # status counts only (every artifact's seed exists: foreign key)
            rows = store.query(f"SELECT status, COUNT(*) AS n FROM ({_CUR_SQL}) "
                               f"GROUP BY status", {"dim": dim})
        c: Counter[str] = Counter()
        for r in rows:
            c[r["status"]] += int(r["n"])
        if c:
            artifacts[dim] = dict(sorted(c.items()))
    samples = []
    for s in list_samples(store):
        d = s.to_dict()
        d.pop("params", None)
        d["progress"] = progress(store, s.id).to_dict()
        samples.append(d)
    gates = {dim: _gate(store, dim, threshold, confidence, current[dim]).to_dict()
             for dim in dimensions}
    return {"seeds": dict(seeds), "artifacts": artifacts, "samples": samples, "gates": gates}


# -- excluding a seed ---------------------------------------------------------------------

EXCLUDED_STATUS = "excluded"
EXCLUDED_REASON = "excluded_in_qc"


def exclude_seed(store: Store, seed_id: int, *, actor: str, reason: str,
                 curators: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """A curator takes a seed out of the dataset because an artifact of it cannot be fixed
    (e.g. a rejected rule-made artifact offline: the rule makes the same text again).

    Sets the seed's status to ``excluded`` (``filter_reason`` ``excluded_in_qc``,
    ``filter_detail`` the reason and who) and writes a ``qc.seed.excluded`` event. Its
    rejected artifacts then no longer count as open rejects, and its undecided sample items
    are no longer handed out or pending; its decided random draws (a reject is a defect that
    happened) still count in the defect estimate. Releases take active seeds only and list it
    under ``excluded``. Returns what was done (seed, reason, the rejects it no longer blocks).
    """
    who = require_curator(actor, curators, "exclude a seed")
    why = " ".join((reason or "").split())
    if not why:
        raise ReviewError("say why the seed is excluded (e.g. --reason \"the rule makes the "
                          "same text; no model configured\")", title="Reason required")
    with store.transaction():
        seed = store.one("SELECT id, source, orig_id, status, filter_reason, filter_detail "
                         "FROM seeds WHERE id = ?", (int(seed_id),))
        if seed is None:
            raise ReviewError(f"no seed #{seed_id}", title="No such seed")
        if seed["status"] == EXCLUDED_STATUS:
            raise ReviewError(f"seed #{seed_id} is already excluded ({seed['filter_detail']})",
                              title="Already excluded")
        if seed["status"] != "active":
            raise ReviewError(f"seed #{seed_id} is {seed['status']} "
                              f"({seed['filter_reason'] or 'no reason recorded'}), not active; "
                              f"it is not in any release already", title="Not active")
        unblocked: dict[str, str] = {}
        for dim in ALL_DIMENSIONS:
            has_reject = store.scalar(
                "SELECT 1 FROM sample_items si JOIN samples s ON s.id = si.sample_id "
                "WHERE si.seed_id = ? AND s.dimension = ? AND " + _rejected_sql("si.id")
                + " LIMIT 1", (int(seed_id), dim))
            if not has_reject:
                continue
            cur = current_artifact(store, int(seed_id), dim)
            kind = _open_reject_kind(None if cur is None else cur["status"], bool(
                cur is not None and store.scalar(
                    "SELECT 1 FROM sample_items WHERE artifact_id = ?", (int(cur["id"]),))))
            if kind is not None:
                unblocked[dim] = kind
        detail = f"{why} (excluded by {who})"
        store.execute("UPDATE seeds SET status = ?, filter_reason = ?, filter_detail = ? "
                      "WHERE id = ?", (EXCLUDED_STATUS, EXCLUDED_REASON, detail, int(seed_id)))
        released = store.execute(
            "UPDATE sample_items SET claimed_by = NULL, claimed_at = NULL "
            "WHERE seed_id = ? AND claimed_by IS NOT NULL", (int(seed_id),)).rowcount
        result = {"seed_id": int(seed["id"]), "source": seed["source"],
                  "orig_id": str(seed["orig_id"]), "status": EXCLUDED_STATUS,
                  "previous_status": seed["status"], "filter_reason": EXCLUDED_REASON,
                  "filter_detail": detail, "reason": why, "excluded_by": who,
                  "open_rejects_closed": unblocked, "claims_released": int(released or 0)}
        store.event(who, "qc.seed.excluded", "seed", int(seed_id), result)
    return result


def excluded_seeds(store: Store) -> list[dict[str, Any]]:
    """Seeds a curator excluded in QC, with the reason, who and when (from the event log)."""
    rows = store.query("SELECT id, source, orig_id, filter_detail FROM seeds "
                       "WHERE status = ? ORDER BY id", (EXCLUDED_STATUS,))
    if not rows:
        return []
    events: dict[int, dict[str, Any]] = {}
    for ev in store.query("SELECT entity_id, at, actor, detail FROM events "
                          "WHERE action = 'qc.seed.excluded' AND entity = 'seed' ORDER BY id"):
        events[int(ev["entity_id"])] = ev
    out = []
    for r in rows:
        e = events.get(int(r["id"]))
        d = (_loads(e["detail"]) or {}) if e else {}
        out.append({"seed_id": int(r["id"]), "source": r["source"], "orig_id": str(r["orig_id"]),
                    "reason": d.get("reason") or r["filter_detail"],
                    "excluded_by": e["actor"] if e else None,
                    "excluded_at": e["at"] if e else None,
                    "open_rejects_closed": d.get("open_rejects_closed") or {}})
    return out


# -- curator resolutions: override and settle -------------------------------------------

RESOLUTION_KINDS = ("override", "settle")


def resolve_item(store: Store, item_id: int, *, kind: str, verdict: str, reason: str,
                 actor: str, curators: list[str] | tuple[str, ...],
                 display: str | None = None) -> dict[str, Any]:
    """A curator decides what an item's outcome is: ``settle`` a disagreement on an overlap
    item (both reviewers' decisions stay in the log and in kappa), or ``override`` any decided
    item with a recorded reason. The latest active resolution is what the gate counts (a
    settled accept is no defect; an override to accept closes an open reject). Returns what
    was recorded."""
    if kind not in RESOLUTION_KINDS:
        raise ReviewError(f"unknown resolution {kind!r}; use override or settle")
    who = require_curator(actor, curators, "override or settle a decision" if kind == "override"
                          else "settle a disagreement")
    v = _norm_verdict(verdict)
    if v not in FINAL_VERDICTS:
        raise ReviewError(f"a curator {kind}s with accept or reject, not {v}")
    why = _clean_text(reason, MAX_REASON_CHARS)
    if not why:
        raise ReviewError(f"say why (the reason is recorded with the {kind})",
                          title="Reason required")
    with store.transaction():
        item = get_item(store, int(item_id))
        finals = [d for d in item.decisions if d["verdict"] in FINAL_VERDICTS]
        if not finals:
            raise ReviewError(f"item {item.key} (#{item_id}) has no decision yet; review it "
                              f"instead", title="Nothing to " + kind)
        if kind == "settle" and not item.disagreed:
            raise ReviewError(f"item {item.key} (#{item_id}) has no open disagreement "
                              f"({', '.join(d['annotator'] + ' ' + d['verdict'] for d in finals)})"
                              f"; use override to change a decided outcome",
                              title="Nothing to settle")
        if item.artifact_status == "superseded" or store.scalar(
                "SELECT 1 FROM artifacts WHERE replaces_id = ?", (item.artifact_id,)):
            raise ReviewError(f"item {item.key} (#{item_id}) was regenerated or fixed since; "
                              f"review the new version", title="Item replaced")
        shown = display if display is not None else store.display_name
        stamp = now()
        store.execute("UPDATE qc_resolutions SET undone_at = ? WHERE sample_item_id = ? "
                      "AND undone_at IS NULL", (stamp, int(item_id)))
        rid = store.insert("qc_resolutions", {
            "sample_item_id": int(item_id), "kind": kind, "verdict": v, "reason": why,
            "curator": who, "display_name": shown or who, "created_at": stamp,
        })
        status = _sync_artifact_status(store, item.artifact_id)
        result = {"resolution_id": rid, "item_id": int(item_id), "item": item.key,
                  "seed_id": item.seed_id, "dimension": item.dimension, "kind": kind,
                  "verdict": v, "reason": why, "curator": who,
                  "decisions": [{"annotator": d["annotator"], "verdict": d["verdict"]}
                                for d in finals],
                  "previous": item.resolution["verdict"] if item.resolution else None,
                  "artifact_status": status}
        store.event(who, f"qc.{kind}", "sample_item", int(item_id), result, display=shown)
    return result


def override(store: Store, item_id: int, **kw: Any) -> dict[str, Any]:
    return resolve_item(store, item_id, kind="override", **kw)


def settle(store: Store, item_id: int, **kw: Any) -> dict[str, Any]:
    return resolve_item(store, item_id, kind="settle", **kw)


# -- the curator queue --------------------------------------------------------------------

QUEUE_STATES = ("rejected", "awaiting replacement", "disagreed", "excluded", "skipped",
                "settled", "overridden", "accepted", "pending")


@dataclass
class QueueRow:
    item_id: int
    key: str                 # "gsm8k-17": the source and its original id (as in releases)
    seed_id: int
    source: str
    orig_id: str
    dimension: str
    state: str               # one of QUEUE_STATES
    annotators: list[str]
    reasons: list[str]
    version: int
    artifact_status: str
    note: str = ""           # the curator's resolution, the exclusion reason...

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _queue_state(item: ReviewItem, open_reject: bool) -> str:
    if item.seed_status == EXCLUDED_STATUS:
        return "excluded"
    if item.resolution is not None:
        return "settled" if item.resolution["kind"] == "settle" else "overridden"
    if item.disagreed:
        return "disagreed"
    if item.outcome == "reject":
        return "awaiting replacement" if open_reject else "rejected"
    if item.outcome == "accept":
        return "accepted"
    if any(d["verdict"] == "skip" for d in item.decisions):
        return "skipped"
    return "pending"


def queue(store: Store, *, state: str | None = None, dimension: str | None = None,
          annotator: str | None = None, reason: str | None = None, source: str | None = None,
          limit: int = 1000) -> list[QueueRow]:
    """Every sampled item, newest versions last, with the state a curator acts on, filtered
    by state (see :data:`QUEUE_STATES`; ``rejected`` matches both rejected states), dimension,
    annotator (account, case-insensitive), reason (a substring, case-insensitive) and source.
    """
    if state is not None and state not in QUEUE_STATES:
        raise ReviewError(f"unknown state {state!r}; choose from {', '.join(QUEUE_STATES)}")
    if dimension is not None:
        _check_dimension(dimension)
    sql = _ITEM_SQL + " WHERE 1=1"
    params: list[Any] = []
    if dimension is not None:
        sql += " AND s.dimension = ?"
        params.append(dimension)
    if source is not None:
        sql += " AND sd.source = ?"
        params.append(source)
    if annotator is not None:
        sql += (" AND EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id "
                "AND r.undone_at IS NULL AND r.annotator = ?)")
        params.append(norm(annotator))
    if state in ("excluded",):
        sql += " AND sd.status = 'excluded'"
    elif state in ("rejected", "awaiting replacement", "disagreed", "settled", "overridden",
                   "accepted", "skipped"):
        sql += " AND EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id " \
               "AND r.undone_at IS NULL)"
    items = _build_items(store, store.query(sql + " ORDER BY s.dimension, si.id", params))
    open_by_seed: dict[tuple[int, str], bool] = {}
    latest_item: dict[tuple[int, str], int] = {}
    for it in items:
        latest_item[(it.seed_id, it.dimension)] = it.item_id
    rows: list[QueueRow] = []
    needle = (reason or "").casefold().strip()
    for it in items:
        key = (it.seed_id, it.dimension)
        if key not in open_by_seed:
            cur = current_artifact(store, it.seed_id, it.dimension)
            open_by_seed[key] = cur is None or cur["status"] != "accepted"
        # a rejected version with a later (accepted) replacement is history: "rejected"
        is_open = open_by_seed[key] and latest_item[key] == it.item_id
        st = _queue_state(it, is_open)
        if state is not None and not (st == state or (state == "rejected" and st in (
                "rejected", "awaiting replacement"))):
            continue
        reasons = [d["reason"] for d in it.decisions if d.get("reason")]
        if it.resolution is not None:
            reasons.append(str(it.resolution["reason"]))
        if needle and not any(needle in r.casefold() for r in reasons):
            continue
        note = ""
        if it.resolution is not None:
            note = (f"{it.resolution['kind']} {it.resolution['verdict']} by "
                    f"{it.resolution['curator']}: {it.resolution['reason']}")
        elif st == "excluded":
            note = "seed excluded"
        rows.append(QueueRow(
            item_id=it.item_id, key=it.key, seed_id=it.seed_id, source=it.source,
            orig_id=it.orig_id, dimension=it.dimension, state=st,
            annotators=[d["annotator"] for d in it.decisions],
            reasons=reasons, version=it.artifact_version, artifact_status=it.artifact_status,
            note=note))
        if len(rows) >= limit:
            break
    return rows


# -- the team panel -----------------------------------------------------------------------

#: below this many overlap pairs, kappa is shown with a warning that it means little
MIN_KAPPA_PAIRS = 20


def _hours_between(first: str, last: str) -> float:
    def parse(t: str) -> _dt.datetime:
        return _dt.datetime.strptime(t, "%Y-%m-%dT%H:%M:%S.%fZ")
    try:
        return max((parse(last) - parse(first)).total_seconds() / 3600.0, 0.0)
    except ValueError:
        return 0.0


def team_stats(store: Store, dimensions: tuple[str, ...] | list[str] = QC_DIMENSIONS
               ) -> dict[str, Any]:
    """Per annotator (account): items decided, throughput (decisions per hour between their
    first and last decision; None below five decisions or ten minutes), reject rate, skips, unsure flags and
    the display names used; per dimension: Cohen's kappa with its number of pairs and a note
    when there are too few to mean anything."""
    people: list[dict[str, Any]] = []
    for r in store.query(
            "SELECT annotator, COUNT(*) AS n, SUM(verdict = 'reject') AS rejects, "
            "SUM(verdict = 'skip') AS skips, SUM(unsure) AS unsure, MIN(created_at) AS first, "
            "MAX(created_at) AS last, GROUP_CONCAT(DISTINCT display_name) AS names "
            "FROM reviews WHERE undone_at IS NULL GROUP BY annotator ORDER BY annotator"):
        decided = int(r["n"]) - int(r["skips"] or 0)
        hours = _hours_between(r["first"], r["last"])
        # a rate over less than ten minutes or a handful of decisions means nothing
        rate = None if decided < 5 or hours < 1 / 6 else round(decided / hours, 1)
        people.append({"annotator": r["annotator"], "decided": decided,
                       "rejects": int(r["rejects"] or 0), "skips": int(r["skips"] or 0),
                       "unsure": int(r["unsure"] or 0),
                       "reject_rate": (int(r["rejects"] or 0) / decided) if decided else None,
                       "per_hour": rate, "last": r["last"],
                       "names": sorted(set(filter(None, (r["names"] or "").split(","))))})
    kappas: dict[str, Any] = {}
    for dim in dimensions:
        ag = agreement(store, dim)
        note = ""
        if ag.pairs == 0:
            note = "no overlap item has two decisions yet ([qc] overlap_rate sets how many)"
        elif ag.pairs < MIN_KAPPA_PAIRS:
            note = f"only {ag.pairs} pair{'s' if ag.pairs != 1 else ''}: too few to mean anything"
        elif ag.kappa is None:
            note = "undefined: every decision was the same"
        disagreed = int(store.scalar(
            "SELECT COUNT(*) FROM sample_items si JOIN samples s ON s.id = si.sample_id "
            "WHERE s.dimension = ? AND si.overlap = 1 "
            "AND NOT EXISTS (SELECT 1 FROM qc_resolutions q WHERE q.sample_item_id = si.id "
            "AND q.undone_at IS NULL) "
            "AND EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id "
            "AND r.undone_at IS NULL AND r.verdict = 'accept') "
            "AND EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id "
            "AND r.undone_at IS NULL AND r.verdict = 'reject')", (dim,)) or 0)
        kappas[dim] = {"pairs": ag.pairs, "kappa": ag.kappa, "observed": ag.observed,
                       "note": note, "disagreed": disagreed}
    return {"annotators": people, "agreement": kappas}
