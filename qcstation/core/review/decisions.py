"""Claims and decisions: who reviews which item, and what they decided.

Annotators, each in their own process (SSH session), call :func:`next_item`, which
atomically *claims* an item (claims expire after :data:`CLAIM_TTL_MINUTES`), and
:func:`decide` it: accept, reject (a reason is required) or skip. Every claim and decision
runs inside ``store.transaction()`` (``BEGIN IMMEDIATE``) and re-checks the item's state
there, so two processes can never both decide a non-overlap item. A reject sets the artifact
to ``rejected``; the generation loop regenerates it with
:func:`db.artifacts.reject_feedback` as feedback. :func:`change_decision` and
:func:`undo_last` mark a decision undone (never deleted); :func:`sync_artifact_status` keeps
the artifact's status in step with the decisions that count.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from db.store import Store, now
from qcstation.common.errors import ItemMovedOn, ReviewError
from qcstation.common.identity import norm
from qcstation.common.safe import spaced
from qcstation.core.review.items import ReviewItem, get_item
from qcstation.common.vocab import FINAL_VERDICTS
from qcstation.core.review.queries import (
    INACTIVE_SEED_IDS,
    active_reviews,
    check_dimension,
    final_decisions,
)
from qcstation.core.review.sampling import requeue_replacements

__all__ = [
    "REJECT_REASONS_BY_DIMENSION", "REJECT_REASONS", "CLAIM_TTL_MINUTES", "MAX_REASON_CHARS",
    "MAX_COMMENT_CHARS", "reject_reasons", "norm_verdict", "clean_text", "next_item",
    "release_claim", "sync_artifact_status", "decide", "change_decision", "my_decisions",
    "undo_last",
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


#: a claim not acted on for this long is free for others again
CLAIM_TTL_MINUTES = 15
MAX_REASON_CHARS = 500
MAX_COMMENT_CHARS = 2000
_VERDICT_ALIASES = {
    "a": "accept", "accept": "accept", "accepted": "accept", "ok": "accept",
    "r": "reject", "reject": "reject", "rejected": "reject",
    "s": "skip", "skip": "skip", "skipped": "skip",
}
# artifact statuses QC may set/restore; others (generated, failed, superseded) are never touched
_QC_STATUSES = ("verified", "accepted", "rejected")


def _claim_cutoff() -> str:
    t = _dt.datetime.now(_dt.timezone.utc) - _dt.timedelta(minutes=CLAIM_TTL_MINUTES)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def norm_verdict(verdict: str) -> str:
    """``accept``, ``reject`` or ``skip`` for a verdict as people type it (``a``, ``ok``,
    ``rejected``...), or :class:`ReviewError`."""
    v = _VERDICT_ALIASES.get(str(verdict).strip().lower())
    if v is None:
        raise ReviewError(f"unknown verdict {verdict!r}; use accept, reject or skip",
                          title="Unknown verdict")
    return v


# -- claims -------------------------------------------------------------------------------

# the annotator's (the parameter's) active skips of this item (``si``)
_MY_SKIP = ("FROM reviews r WHERE r.sample_item_id = si.id "
            "AND r.undone_at IS NULL AND r.verdict = 'skip' AND r.annotator = ?")


class _Candidates:
    """The items ``annotator`` may claim now, in review order (sample, position, id): in an
    open sample, of a seed in play, its artifact not superseded, not decided by this
    annotator, fewer deciders than it needs (two for an overlap item), not held by someone
    else. Asked for one at a time in SQL: at a million seeds an open sample holds 100,000s
    of items, which must not all be read for each claim."""

    def __init__(self, store: Store, annotator: str, dimension: str | None,
                 scope: str | None) -> None:
        self.store = store
        self.cutoff = _claim_cutoff()
        where = ["si.id IN (SELECT item_id FROM qc_item_state WHERE NOT fin "
                 "UNION ALL SELECT id FROM sample_items WHERE overlap)",
                 "s.status = 'open'", "(NOT st.fin OR si.overlap)",
                 f"si.seed_id NOT IN ({INACTIVE_SEED_IDS})", "a.status != 'superseded'",
                 # not decided by this annotator, and fewer deciders than the item needs
                 "NOT EXISTS (SELECT 1 FROM reviews r WHERE r.sample_item_id = si.id "
                 "AND r.undone_at IS NULL AND r.verdict IN ('accept', 'reject') "
                 "AND r.annotator = ?)",
                 "(SELECT COUNT(DISTINCT r.annotator) FROM reviews r WHERE r.sample_item_id = "
                 "si.id AND r.undone_at IS NULL AND r.verdict IN ('accept', 'reject')) "
                 "< (CASE WHEN si.overlap THEN 2 ELSE 1 END)",
                 # not held by someone else (a claim expires at the cutoff)
                 "NOT (COALESCE(si.claimed_by, '') NOT IN ('', ?) "
                 "AND COALESCE(si.claimed_at, '') >= ?)"]
        self.params: list[Any] = [annotator, annotator, self.cutoff]
        if dimension is not None:
            where.append("s.dimension = ?")
            self.params.append(dimension)
        if scope is not None:
            where.append("s.scope = ?")
            self.params.append(scope)
        # only undecided and overlap items can be handed out: read from the partial indexes
        # of migration 12 (the kept item state, migration 10), not by a scan of every item
        self.sql = ("SELECT si.id, si.sample_id, si.position FROM sample_items si "
                    "JOIN samples s ON s.id = si.sample_id JOIN artifacts a ON a.id = si.artifact_id "
                    "JOIN qc_item_state st ON st.item_id = si.id WHERE " + " AND ".join(where))

    def first(self, order: str = "", params: list[Any] | None = None) -> dict[str, Any] | None:
        """The first candidate in ``order`` (SQL sort keys ending in ", "), then review order."""
        return self.store.one(f"{self.sql} ORDER BY {order}s.id, si.position, si.id LIMIT 1",
                              [*self.params, *(params or [])])


def next_item(store: Store, annotator: str, dimension: str | None = None, *,
              after_item_id: int | None = None, scope: str | None = None) -> ReviewItem | None:
    """Atomically claim the next item this annotator should review, or None when nothing is left.

    Order: the item this annotator already holds (resuming after a crash), then undecided
    items by sample and position, items this annotator skipped last. With ``after_item_id``
    (moving on without deciding) the claim on that item is released and the search starts
    after it, wrapping around. A non-overlap item is never handed to a second annotator
    while claimed (claims expire after :data:`CLAIM_TTL_MINUTES` minutes) or once decided;
    an overlap item is handed to a second, different annotator after the first decision.
    Regenerated replacements are requeued first (:func:`requeue_replacements`). Items of
    seeds no longer active (excluded in QC, filtered) are not handed out. ``scope`` keeps to
    the samples of the working set ('') or of one derived set (default: any).
    """
    annotator = norm(annotator)
    if not annotator:
        raise ReviewError("no account is known for this session")
    if dimension is not None:
        check_dimension(dimension)
    with store.transaction():
        requeue_replacements(store, annotator)
        cands = _Candidates(store, annotator, dimension, scope)
        chosen: dict[str, Any] | None = None
        after = None
        if after_item_id is not None:
            store.execute("UPDATE sample_items SET claimed_by = NULL, claimed_at = NULL "
                          "WHERE id = ? AND claimed_by = ?", (after_item_id, annotator))
            after = store.one("SELECT sample_id, position FROM sample_items WHERE id = ?",
                              (after_item_id,))
        if after_item_id is not None and after is not None:
            # the next one after it (wrapping around), itself only when nothing else is left
            chosen = cands.first("(si.sample_id, si.position, si.id) > (?, ?, ?) DESC, "
                                 "si.id != ? DESC, ",
                                 [int(after["sample_id"]), int(after["position"]),
                                  int(after_item_id), int(after_item_id)])
        else:
            # the item this annotator holds, else the first not skipped by this annotator,
            # else the one this annotator skipped longest ago
            mine = ("(si.claimed_by = ? AND COALESCE(si.claimed_at, '') >= ?) DESC, "
                    if after_item_id is None else "")
            chosen = cands.first(f"{mine}(SELECT MAX(r.created_at) {_MY_SKIP}), ",
                                 ([annotator, cands.cutoff] if mine else []) + [annotator])
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

def sync_artifact_status(store: Store, artifact_id: int) -> str | None:
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


def clean_text(text: str | None, limit: int, *, lines: bool = False) -> str | None:
    """A reason or comment as stored: printable characters only (newlines kept in a comment),
    whitespace collapsed, at most ``limit`` characters; None when empty."""
    if text is None:
        return None
    given = len(text)
    if given > limit * 4:  # far too long whatever cleaning takes out: cleaned no further
        raise ReviewError(f"the text is too long ({given:,} characters; at most {limit})", title="Too long")
    cleaned = spaced(text, keep_newlines=lines)
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
           display: str | None = None, changes_id: int | None = None,
           closed_ok: bool = False) -> int:
    """Record ``annotator``'s verdict (accept | reject | skip) on an item; returns the review id.

    A reject needs a reason (it is the feedback for regeneration). Inside one write
    transaction the item's state is re-checked: refused if this annotator already decided it,
    if another annotator decided a non-overlap item (or two decided an overlap item), if
    someone else holds an unexpired claim, if the sample is closed or the artifact replaced.
    Accept/reject set the artifact to ``accepted`` / ``rejected``; the claim is released.
    ``closed_ok``: a curator's late correction is accepted in its (closed) round.
    """
    annotator = norm(annotator)
    if not annotator:
        raise ReviewError("no account is known for this session")
    v = norm_verdict(verdict)
    reason = clean_text(reason, MAX_REASON_CHARS)
    comment = clean_text(comment, MAX_COMMENT_CHARS, lines=True)
    if v == "reject" and not reason:
        raise ReviewError("a reject needs a reason: say what is wrong, e.g. one of: "
                          + "; ".join(REJECT_REASONS), title="Reason required")
    with store.transaction():
        item = _decidable(store, item_id, annotator, closed_ok=closed_ok)
        shown = display if display is not None else store.display_name
        review_id = store.insert("reviews", {
            "sample_item_id": item_id, "artifact_id": int(item["artifact_id"]),
            "annotator": annotator, "verdict": v, "reason": reason, "created_at": now(),
            "display_name": shown or annotator, "comment": comment, "unsure": 1 if unsure else 0,
            "changes_id": changes_id,
        })
        store.execute("UPDATE sample_items SET claimed_by = NULL, claimed_at = NULL WHERE id = ?",
                      (item_id,))
        status = sync_artifact_status(store, int(item["artifact_id"])) if v != "skip" else None
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


def _decidable(store: Store, item_id: int, annotator: str, *,
               closed_ok: bool = False) -> dict[str, Any]:
    """The sample item ``annotator`` may decide now (inside the write transaction), or
    :class:`ReviewError` saying why not (:class:`ItemMovedOn` where the item moved on
    elsewhere: decided, replaced, closed or claimed meanwhile)."""
    item = store.one(
        "SELECT si.*, s.dimension, s.status AS sample_status, a.status AS artifact_status, "
        "sd.source || '-' || sd.orig_id AS item_key "
        "FROM sample_items si JOIN samples s ON s.id = si.sample_id "
        "JOIN artifacts a ON a.id = si.artifact_id JOIN seeds sd ON sd.id = si.seed_id "
        "WHERE si.id = ?", (item_id,))
    if item is None:
        raise ReviewError(f"no review item #{item_id}", title="No such item")
    key = f"{item['item_key']} ({item['dimension']})"
    if item["sample_status"] != "open" and not closed_ok:
        raise ItemMovedOn(f"{key} belongs to sample #{item['sample_id']}, which is "
                          f"{item['sample_status']}", title="Sample closed")
    if item["artifact_status"] == "superseded":
        raise ItemMovedOn(f"{key} was regenerated since; review the new version",
                          title="Item replaced")
    finals = final_decisions(active_reviews(store, [item_id]).get(item_id, []))
    mine = [r for r in finals if r["annotator"] == annotator]
    if mine:
        raise ItemMovedOn(f"you ({annotator}) already decided {key} "
                          f"({mine[-1]['verdict']}); undo it first to change it",
                          title="Already decided")
    deciders = sorted({r["annotator"] for r in finals})
    if not item["overlap"] and deciders:
        raise ItemMovedOn(f"{key} was already decided by {deciders[0]}",
                          title="Already decided")
    if item["overlap"] and len(deciders) >= 2:
        raise ItemMovedOn(f"{key} already has two decisions "
                          f"({', '.join(deciders)})", title="Already decided")
    holder = item["claimed_by"]
    if holder and holder != annotator and (item["claimed_at"] or "") >= _claim_cutoff():
        raise ItemMovedOn(f"{key} is being reviewed by {holder} (claimed at "
                          f"{item['claimed_at']}); take the next item instead",
                          title="Claimed by someone else")
    return item


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


#: an annotator's latest active decisions; the reviews are read newest first from the
#: partial index reviews_active_by_id (migration 12) and the walk stops at the limit
MY_DECISIONS_SQL = (
    "SELECT r.id AS review_id, r.sample_item_id AS item_id, r.verdict, r.reason, r.comment, "
    "r.unsure, r.created_at, s.dimension, sd.source, sd.orig_id "
    "FROM reviews r "
    "JOIN sample_items si ON si.id = r.sample_item_id JOIN samples s ON s.id = si.sample_id "
    "JOIN seeds sd ON sd.id = si.seed_id WHERE r.annotator = ? AND r.undone_at IS NULL "
    "ORDER BY r.id DESC LIMIT ?")


def my_decisions(store: Store, annotator: str, *, limit: int = 200) -> list[dict[str, Any]]:
    """This annotator's active decisions, newest first (to pick one to change)."""
    return store.query(MY_DECISIONS_SQL, (norm(annotator), int(limit)))


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
        status = sync_artifact_status(store, artifact_id) if r["verdict"] in FINAL_VERDICTS else None
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
