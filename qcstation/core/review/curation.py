"""What curators act on: excluded seeds, resolutions (override, settle) and the queue.

A rejected artifact that cannot be fixed (offline, a rule makes the same text again) would
block the gate forever: a curator may :func:`exclude_seed` it. The seed leaves the dataset
(status ``excluded``), its reject is no longer open, the defect still counts.
:func:`resolve_item` records a curator's ``override`` or ``settle``, which the gate counts
instead of the reviewers' decisions. :func:`queue` lists every sampled item with the state
a curator acts on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

from db.artifacts import current_artifact
from db.search import match_sql, run_search
from db.store import Store, from_json, now
from qcstation.common.errors import ReviewError
from qcstation.common.identity import norm, require_curator
from qcstation.common.vocab import DIMENSIONS, FINAL_VERDICTS
from qcstation.core.review.decisions import (
    MAX_REASON_CHARS,
    clean_text,
    norm_verdict,
    sync_artifact_status,
)
from qcstation.core.review.gate import gate, open_reject_kind, size_statement
from qcstation.core.review.items import ITEM_SQL, ReviewItem, build_items, get_item
from qcstation.core.review.queries import LIVE_SEED_STATUSES, check_dimension, rejected_sql

__all__ = [
    "EXCLUDED_STATUS", "EXCLUDED_REASON", "RESOLUTION_KINDS", "QUEUE_STATES", "QueueRow",
    "exclude_seed", "excluded_seeds", "resolve_item", "override", "settle", "queue",
    "queue_and_items",
    "fresh_round",
]

EXCLUDED_STATUS = "excluded"
EXCLUDED_REASON = "excluded_in_qc"
RESOLUTION_KINDS = ("override", "settle")
QUEUE_STATES = ("rejected", "awaiting replacement", "disagreed", "excluded", "skipped",
                "settled", "overridden", "accepted", "pending")


# -- excluding a seed ---------------------------------------------------------------------


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
        if seed["status"] not in LIVE_SEED_STATUSES:
            raise ReviewError(f"seed #{seed_id} is {seed['status']} "
                              f"({seed['filter_reason'] or 'no reason recorded'}), not active; "
                              f"it is not in any release already", title="Not active")
        unblocked: dict[str, str] = {}
        for dim in DIMENSIONS:
            has_reject = store.scalar(
                "SELECT 1 FROM sample_items si JOIN samples s ON s.id = si.sample_id "
                "WHERE si.seed_id = ? AND s.dimension = ? AND " + rejected_sql("si.id")
                + " LIMIT 1", (int(seed_id), dim))
            if not has_reject:
                continue
            cur = current_artifact(store, int(seed_id), dim)
            kind = open_reject_kind(None if cur is None else cur["status"], bool(
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


def excluded_seeds(store: Store, scope: str = "") -> list[dict[str, Any]]:
    """Seeds a curator excluded in QC, with the reason, who and when (from the event log):
    imported seeds, or the items of the derived set ``scope``."""
    if scope:
        rows = store.query("SELECT id, source, orig_id, filter_detail FROM seeds WHERE status = ? "
                           "AND id IN (SELECT di.seed_id FROM derived_items di JOIN derive_sets ds "
                           "ON ds.id = di.set_id WHERE ds.name = ?) ORDER BY id",
                           (EXCLUDED_STATUS, scope))
    else:
        rows = store.query("SELECT id, source, orig_id, filter_detail FROM seeds WHERE status = ? "
                           "AND id NOT IN (SELECT seed_id FROM derived_items) ORDER BY id",
                           (EXCLUDED_STATUS,))
    if not rows:
        return []
    events: dict[int, dict[str, Any]] = {}
    for ev in store.query("SELECT entity_id, at, actor, detail FROM events "
                          "WHERE action = 'qc.seed.excluded' AND entity = 'seed' ORDER BY id"):
        events[int(ev["entity_id"])] = ev
    out = []
    for r in rows:
        e = events.get(int(r["id"]))
        d = (from_json(e["detail"]) or {}) if e else {}
        out.append({"seed_id": int(r["id"]), "source": r["source"], "orig_id": str(r["orig_id"]),
                    "reason": d.get("reason") or r["filter_detail"],
                    "excluded_by": e["actor"] if e else None,
                    "excluded_at": e["at"] if e else None,
                    "open_rejects_closed": d.get("open_rejects_closed") or {}})
    return out


# -- curator resolutions: override and settle -------------------------------------------


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
    v = norm_verdict(verdict)
    if v not in FINAL_VERDICTS:
        raise ReviewError(f"a curator {kind}s with accept or reject, not {v}")
    why = clean_text(reason, MAX_REASON_CHARS)
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
        status = sync_artifact_status(store, item.artifact_id)
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


# -- a fresh random round -------------------------------------------------------------


def fresh_round(store: Store, dimension: str, *, actor: str,
                curators: list[str] | tuple[str, ...], rate: float, rng_seed: int,
                threshold: float, confidence: float, min_size: int = 5,
                overlap_rate: float = 0.0, scope: str = "") -> dict[str, Any]:
    """A curator's way forward when the defects found put the gate out of reach: once every
    sampled item is decided and every defect found is corrected (no open reject), a new
    random sample of the data *as corrected* is drawn from every current verified or
    accepted item, sampled before or not, and the gate counts this round only (earlier
    rounds measured data that has since changed; they stay in the log and the release's QC
    record). Its size is fixed before any review: the reviews the bound needs with no
    defect (at least the sampling rate), so reviewing until a lucky streak is not possible.
    Refused, with the reason, when the round would not be honest or could not pass."""
    from qcstation.common.stats import reviews_needed
    from qcstation.core.review.sampling import draw_sample

    require_curator(actor, curators, "start a fresh round")
    check_dimension(dimension)
    g = gate(store, dimension, threshold=threshold, confidence=confidence, scope=scope)
    if g.passed:
        raise ReviewError(f"the {dimension} gate passes already; nothing to measure again",
                          title="Gate passes")
    if not g.defects:
        raise ReviewError(f"no defect has been found in this {dimension} round: a fresh round "
                          f"is for measuring the data again after its defects were corrected; "
                          f"extend the sample instead (qcstation qc extend {dimension} --to-gate)",
                          title="No defect to correct")
    if g.pending:
        raise ReviewError(f"{g.pending} sampled {dimension} item(s) are still undecided; review "
                          f"them first (the round is measured as drawn)", title="Round not finished")
    if g.open_rejects:
        raise ReviewError(f"{g.open_rejects} rejected {dimension} item(s) have no accepted "
                          f"replacement yet; correct every defect found (fix in place, "
                          f"regenerate or exclude) before measuring again", title="Defects open")
    plain = size_statement(g.population, threshold=threshold, confidence=confidence)
    if plain is not None:
        raise ReviewError(plain[:1].upper() + plain[1:] + ".", title="Cannot pass at this size")
    clean = reviews_needed(0, threshold, confidence) or 0
    info = draw_sample(store, dimension, rate=rate, rng_seed=rng_seed, actor=actor,
                       min_size=max(min_size, clean), overlap_rate=overlap_rate,
                       curators=curators, scope=scope, fresh=True)
    result = {"sample_id": info.id, "round": info.round, "size": info.size,
              "dimension": dimension, "defects_before": g.defects, "reviewed_before": g.reviewed,
              "needs": clean, "population": g.population}
    store.event(norm(actor), "qc.fresh_round", "sample", info.id, result)
    return result


# -- the curator queue --------------------------------------------------------------------


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
    #: a rejected item replaced since (state ``rejected``, not awaiting): its seed's current
    #: version now, ``v2 accepted`` (a fix in place), ``v2 verified`` (regenerated, in review)
    now: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _queue_state(item: ReviewItem, open_reject: Callable[[ReviewItem], bool]) -> str:
    if item.seed_status == EXCLUDED_STATUS:
        return "excluded"
    if item.resolution is not None:
        return "settled" if item.resolution["kind"] == "settle" else "overridden"
    if item.disagreed:
        return "disagreed"
    if item.outcome == "reject":
        return "awaiting replacement" if open_reject(item) else "rejected"
    if item.outcome == "accept":
        return "accepted"
    if any(d["verdict"] == "skip" for d in item.decisions):
        return "skipped"
    return "pending"


def queue(store: Store, *, state: str | None = None, dimension: str | None = None,
          annotator: str | None = None, reason: str | None = None, source: str | None = None,
          text: str | None = None, scope: str | None = None, limit: int = 1000,
          after: tuple[str, int] | None = None) -> list[QueueRow]:
    """Every sampled item, newest versions last, with the state a curator acts on, filtered
    by state (see :data:`QUEUE_STATES`; ``rejected`` matches both rejected states), dimension,
    annotator (account, case-insensitive), reason (a substring, case-insensitive), source,
    ``scope`` (the set sampled: '' the working set, else a derived set's name)
    and ``text``: a full-text search (:mod:`db.search`) over the seed's question and the
    active decisions' reasons and comments (a curator's reason too).

    The rows are in queue order, (dimension, item id); ``after`` = the last row's
    (dimension, item_id) continues from there: the next ``limit`` rows, the same as the
    rows that follow it in one longer read, without reading the rows before it again.
    """
    return queue_and_items(store, state=state, dimension=dimension, annotator=annotator,
                           reason=reason, source=source, text=text, scope=scope, limit=limit,
                           after=after)[0]


def queue_and_items(store: Store, *, state: str | None = None, dimension: str | None = None,
                    annotator: str | None = None, reason: str | None = None,
                    source: str | None = None, text: str | None = None,
                    scope: str | None = None, limit: int = 1000,
                    after: tuple[str, int] | None = None
                    ) -> tuple[list[QueueRow], dict[int, ReviewItem]]:
    """:func:`queue`'s rows, and each row's item (as :func:`get_item` reads it) by item id:
    the queue builds them to find their states, and the workstation shows them without
    reading them again."""
    if state is not None and state not in QUEUE_STATES:
        raise ReviewError(f"unknown state {state!r}; choose from {', '.join(QUEUE_STATES)}")
    if dimension is not None:
        check_dimension(dimension)
    open_by_seed: dict[tuple[int, str], bool] = {}
    current: dict[tuple[int, str], dict[str, Any] | None] = {}
    latest_item: dict[tuple[int, str], int] = {}
    rows: list[QueueRow] = []
    items: dict[int, ReviewItem] = {}
    needle = (reason or "").casefold().strip()
    sql, params = _queue_candidates_sql(state, dimension, annotator, source, scope)

    def is_open(it: ReviewItem) -> bool:
        """A rejected item waits for a replacement unless its seed's current version is
        accepted or a later candidate item of the seed holds it (then it is history)."""
        key = (it.seed_id, it.dimension)
        if key not in open_by_seed:
            cur = current[key] = current_artifact(store, it.seed_id, it.dimension)
            open_by_seed[key] = cur is None or cur["status"] != "accepted"
        if key not in latest_item:
            latest_item[key] = int(store.scalar(
                f"SELECT MAX(si.id) {sql[sql.index('FROM'):]} AND s.dimension = ? "
                f"AND si.seed_id = ?", [*params, it.dimension, it.seed_id]))
        return open_by_seed[key] and latest_item[key] == it.item_id

    for it in _queue_items(store, sql, params, dimension, text, latest_item,
                           every=state in _FEW_STATES, first=limit, after=after):
        st = _queue_state(it, is_open)
        if state is not None and not (st == state or (state == "rejected" and st in (
                "rejected", "awaiting replacement"))):
            continue
        reasons = [d["reason"] for d in it.decisions if d.get("reason")]
        if it.resolution is not None:
            reasons.append(str(it.resolution["reason"]))
        if needle and not any(needle in r.casefold() for r in reasons):
            continue
        row = _queue_row(it, st, reasons)
        cur = current.get((it.seed_id, it.dimension)) if st == "rejected" else None
        if cur is not None and int(cur["version"]) != it.artifact_version:
            # replaced: what the item is now, not only what it was
            row.now = f"v{cur['version']} {cur['status']}"
        rows.append(row)
        items[it.item_id] = it
        if len(rows) >= limit:
            break
    return rows, items


#: the states few items are in, found from the rows that make them rather than by paging
#: through every sampled item (at a million seeds that read 0.2 to 2 million items to find none)
_FEW_STATES = frozenset({"excluded", "disagreed", "settled", "overridden", "skipped"})

#: queue items are built (contents parsed, decisions read) this many at a time, and only
#: until the queue has its ``limit`` of rows: at a million seeds a sample holds 100,000s
_BUILD_CHUNK = 500


def _built(store: Store, item_ids: list[int], first: int = _BUILD_CHUNK) -> Iterator[ReviewItem]:
    """The items ``item_ids`` in that order, read and built a chunk at a time (the first
    chunk ``first`` items: the queue's first page, when fewer)."""
    start = 0
    while start < len(item_ids):
        size = max(1, min(first, _BUILD_CHUNK)) if start == 0 else _BUILD_CHUNK
        chunk = item_ids[start:start + size]
        start += size
        marks = ",".join("?" * len(chunk))
        by_id = {int(r["item_id"]): r for r in store.query(
            f"{ITEM_SQL} WHERE si.id IN ({marks})", chunk)}
        yield from build_items(store, [by_id[i] for i in chunk if i in by_id])


# The sample items a full-text query finds: by the seed's question, an active decision's
# reason or comment, or an active curator's reason (one FTS query parameter each).
_TEXT_SQL = (f" AND (si.seed_id IN ({match_sql('seeds')})"
             f" OR si.id IN (SELECT r.sample_item_id FROM reviews r WHERE r.undone_at IS NULL"
             f" AND r.id IN ({match_sql('reviews')}))"
             f" OR si.id IN (SELECT q.sample_item_id FROM qc_resolutions q"
             f" WHERE q.undone_at IS NULL AND q.id IN ({match_sql('qc_resolutions')})))")


def _queue_items(store: Store, sql: str, params: list[Any], dimension: str | None,
                 text: str | None, latest_item: dict[tuple[int, str], int], *,
                 every: bool = False, first: int = _BUILD_CHUNK,
                 after: tuple[str, int] | None = None) -> Iterator[ReviewItem]:
    """The queue's candidate items (``sql``), built, in queue order (dimension, item id).
    They are read a page at a time in item order, so the queue's first rows cost the same
    at any size, unless they are few and found from an index (``every``: a state of
    :data:`_FEW_STATES`, whose SQL starts from the decisions, resolutions or seeds that
    make it; paging in item order would read every item to find that there are none) or a
    text search finds them: then they are all read at once, and ``latest_item`` gets the
    latest candidate item of each (seed, dimension). The first page and the first chunk
    built hold ``first`` items (the rows asked for), the later ones :data:`_BUILD_CHUNK`.
    ``after`` (dimension, item id): only the items past it in that order."""
    def past(c: Any) -> bool:
        return after is None or (str(c["dimension"]), int(c["item_id"])) > after

    if every and text is None:
        candidates = store.query(sql + " ORDER BY s.dimension, si.id", params)
        for c in candidates:
            latest_item[(int(c["seed_id"]), c["dimension"])] = int(c["item_id"])
        yield from _built(store, [int(c["item_id"]) for c in candidates if past(c)], first)
        return
    if text is not None:
        candidates = run_search(store, text, lambda q: store.query(
            sql + _TEXT_SQL + " ORDER BY s.dimension, si.id", [*params, q, q, q]))
        for c in candidates:
            latest_item[(int(c["seed_id"]), c["dimension"])] = int(c["item_id"])
        yield from _built(store, [int(c["item_id"]) for c in candidates if past(c)])
        return
    dims = [dimension] if dimension is not None else [r["dimension"] for r in store.query(
        "SELECT DISTINCT dimension FROM samples ORDER BY dimension")]
    # the items in id order from the last page on (CROSS JOIN: the items are the outer loop)
    paged = sql.replace("JOIN samples s", "CROSS JOIN samples s", 1)
    size = max(1, min(first, _BUILD_CHUNK))
    for dim in dims:
        if after is not None and dim < after[0]:
            continue
        last = after[1] if after is not None and dim == after[0] else 0
        while page := store.query(f"{paged} AND s.dimension = ? AND si.id > ? ORDER BY si.id "
                                  f"LIMIT {size}", [*params, dim, last]):
            last = int(page[-1]["item_id"])
            yield from _built(store, [int(c["item_id"]) for c in page])
            size = _BUILD_CHUNK


def _queue_candidates_sql(state: str | None, dimension: str | None, annotator: str | None,
                          source: str | None, scope: str | None = None
                          ) -> tuple[str, list[Any]]:
    """SQL of the queue's candidate items (item_id, seed_id, dimension), filtered in SQL
    where the filter allows, and its parameters."""
    sql = ("SELECT si.id AS item_id, si.seed_id, s.dimension "
           + ITEM_SQL[ITEM_SQL.index("FROM sample_items"):] + " WHERE 1=1")
    params: list[Any] = []
    if dimension is not None:
        sql += " AND s.dimension = ?"
        params.append(dimension)
    if source is not None:
        sql += " AND sd.source = ?"
        params.append(source)
    if scope is not None:
        sql += " AND s.scope = ?"
        params.append(scope)
    if annotator is not None:
        sql += (" AND EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id "
                "AND r.undone_at IS NULL AND r.annotator = ?)")
        params.append(norm(annotator))
    # what a state needs, as far as SQL can say it (each item's state is still decided by
    # _queue_state): at a million seeds, building every decided item to keep the rejected
    # tenth of them cost half a second of CPU for the queue's first page
    def decision(verdict: str) -> str:
        return (" AND EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id "
                f"AND r.undone_at IS NULL AND r.verdict = '{verdict}')")

    resolved = (" EXISTS (SELECT 1 FROM qc_resolutions q WHERE q.sample_item_id = si.id "
                "AND q.undone_at IS NULL)")
    # the few-item states start from what makes them (_FEW_STATES), through indexes:
    # seeds_status, reviews_active_verdict (migration 19), qc_resolutions_item
    def with_verdict(verdict: str) -> str:
        return (" AND si.id IN (SELECT r.sample_item_id FROM reviews r WHERE "
                f"r.verdict = '{verdict}' AND r.undone_at IS NULL")

    if state in ("excluded",):
        sql += (" AND sd.status = 'excluded' AND si.seed_id IN "
                "(SELECT id FROM seeds WHERE status = 'excluded')")
    elif state in ("rejected", "awaiting replacement"):
        sql += f" AND sd.status != 'excluded' AND NOT{resolved}{decision('reject')}"
    elif state == "disagreed":   # an active reject and an active accept (kept: migration 23)
        sql += (f" AND sd.status != 'excluded' AND NOT{resolved}"
                " AND si.id IN (SELECT sample_item_id FROM review_disagreed)")
    elif state in ("settled", "overridden"):
        sql += (" AND sd.status != 'excluded' AND si.id IN (SELECT q.sample_item_id FROM "
                "qc_resolutions q WHERE q.undone_at IS NULL)")
    elif state == "skipped":
        sql += f" AND sd.status != 'excluded' AND NOT{resolved}{with_verdict('skip')})"
    elif state == "accepted":
        sql += f" AND sd.status != 'excluded' AND NOT{resolved}{decision('accept')}"
    return sql, params


#: the items with an active reject and an active accept, found from every active reject (the
#: queue's query before migration 23)
DISAGREED_FROM_SCRATCH_SQL = (
    "SELECT DISTINCT r.sample_item_id FROM reviews r WHERE r.verdict = 'reject' "
    "AND r.undone_at IS NULL AND EXISTS (SELECT 1 FROM reviews o WHERE o.verdict = 'accept' "
    "AND o.sample_item_id = r.sample_item_id AND o.undone_at IS NULL)")


def disagreed_items(store: Store, *, from_scratch: bool = False) -> list[int]:
    """The sample items with an active reject and an active accept, in id order: kept by
    migration 23's triggers; ``from_scratch`` reads every active reject again (the kept
    rows' oracle in tests)."""
    sql = (DISAGREED_FROM_SCRATCH_SQL if from_scratch else
           "SELECT sample_item_id FROM review_disagreed")
    return sorted(int(r[0]) for r in store.execute(sql))


def _queue_row(it: ReviewItem, state: str, reasons: list[str]) -> QueueRow:
    note = ""
    if it.resolution is not None:
        note = (f"{it.resolution['kind']} {it.resolution['verdict']} by "
                f"{it.resolution['curator']}: {it.resolution['reason']}")
    elif state == "excluded":
        note = "seed excluded"
    return QueueRow(
        item_id=it.item_id, key=it.key, seed_id=it.seed_id, source=it.source,
        orig_id=it.orig_id, dimension=it.dimension, state=state,
        annotators=[d["annotator"] for d in it.decisions],
        reasons=reasons, version=it.artifact_version, artifact_status=it.artifact_status,
        note=note)
