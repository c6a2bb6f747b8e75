"""The review step: show an item, decide it, move on, finish.

One verb per key of the review journey, shared by the review screen and ``qcstation qc``.
Each takes a store and the annotator, does the whole step (a decision *and* the claim of
the next item, an undo *and* the item to decide again...) and returns a :class:`Step`,
a typed outcome that says what happened and what to show now; nothing here recognises an
outcome by the words of an error. A decision refused because the item moved on elsewhere
(decided meanwhile, replaced, its sample closed, claimed by someone else: the refusal is
:class:`~qcstation.common.errors.ItemMovedOn`) is an outcome (``Step.moved_on``), not an
error; every other refusal is raised as before.

    next_step(store, annotator, dimension=None, *, scope=None) -> Step
    decide_item(store, item_id, annotator, verdict, reason=None, *, comment=None,
                unsure=False) -> Decided          (saved, or moved on: ``Decided.moved_on``)
    decide_step(store, annotator, dimension, item_id, verdict, reason=None, *,
                comment=None, unsure=False) -> Step     (decide, then the next item)
    decide_named(store, annotator, ref, verdict, reason=None, *, dimension=None,
                 comment=None, unsure=False) -> Step    (the shell's: the item by name or
                                   'next', decided, then shown again; finished: none left)
    change_step(store, annotator, item_id, review_id, verdict, reason=None, *,
                comment=None, unsure=False) -> Step     (the changed item, read-only)
    move_on(store, annotator, dimension, item_id) -> Step  (the next item past ``item_id``)
    undo_step(store, annotator, dimension) -> Step          (the undone item, or the next)
    look_at(store, annotator, item_id) -> Step              (any item; editable if yours)
    exclude_step(store, annotator, dimension, seed_id, reason, *, curators,
                 item_id=None, at_head=True) -> Step        (curators)

``Step.item`` None means the annotator is done for now (``finished``): ``progress`` is then
the open sample's of ``dimension``, if any.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from db.store import Store
from qcstation.common.errors import ItemMovedOn
from qcstation.core.review.curation import exclude_seed
from qcstation.core.review.decisions import change_decision, decide, next_item, undo_last
from qcstation.core.review.gate import Progress, progress
from qcstation.core.review.items import ReviewItem, find_item, get_item
from qcstation.core.review.sampling import open_sample

__all__ = ["Decided", "Step", "Undone", "decidable_by", "decide_item", "next_step",
           "decide_step", "decide_named", "change_step", "move_on", "undo_step", "look_at", "exclude_step"]


@dataclass(frozen=True)
class Decided:
    """What became of a decision: saved (``review_id``), or not, because the item moved on
    elsewhere meanwhile (``moved_on``, the refusal saying what happened)."""

    item_id: int
    verdict: str
    reason: str | None
    review_id: int | None = None
    changed: bool = False               # an earlier decision of this annotator was changed
    moved_on: ItemMovedOn | None = None

    @property
    def saved(self) -> bool:
        return self.moved_on is None


@dataclass(frozen=True)
class Undone:
    """An undo ran: ``item_id`` is the item whose decision was taken back (None: nothing)."""

    item_id: int | None


@dataclass(frozen=True)
class Step:
    """The outcome of one step of review: what happened, and what to show now."""

    item: ReviewItem | None             # the item to show; None: nothing left for you now
    dimension: str | None               # the shown item's dimension (else the one asked)
    progress: Progress | None           # of the shown item's sample (else the open one)
    editable: bool = True               # may the annotator decide the shown item now
    current: bool = True                # is it the item the annotator now holds
    decided: Decided | None = None      # a decision was asked for (saved or moved on)
    undone: Undone | None = None        # an undo was asked for
    excluded: dict[str, Any] | None = None  # a seed was excluded (what exclude_seed returned)

    @property
    def finished(self) -> bool:
        return self.item is None


def decidable_by(item: ReviewItem, annotator: str) -> bool:
    """Can ``annotator`` decide this item now? Not if they already decided (or skipped) it,
    someone else holds it, or it already has the decisions it needs."""
    if any(d.get("annotator") == annotator for d in item.decisions):
        return False
    if item.seed_status not in ("", "active"):
        return False  # the seed was excluded (or filtered): nothing to decide
    if item.claimed_by not in (None, annotator):
        return False
    finals = {d.get("annotator") for d in item.decisions
              if d.get("verdict") in ("accept", "reject")}
    return len(finals) < (2 if item.overlap else 1) and item.artifact_status != "superseded"


def _show(store: Store, item: ReviewItem | None, dimension: str | None, *,
          editable: bool = True, current: bool = True, scope: str | None = None,
          **what: Any) -> Step:
    """The step that shows ``item`` (or, with none, the open sample of ``dimension`` in the
    set ``scope``: the working set when None)."""
    if item is not None:
        return Step(item, item.dimension, progress(store, item.sample_id), editable=editable,
                    current=current, **what)
    sample = open_sample(store, dimension, scope or "") if dimension is not None else None
    return Step(None, dimension, progress(store, sample.id) if sample is not None else None,
                editable=editable, current=current, **what)


def _look(store: Store, annotator: str, item_id: int, **what: Any) -> Step:
    item = get_item(store, item_id)
    editable = decidable_by(item, annotator)
    return _show(store, item, item.dimension, editable=editable,
                 current=editable and item.claimed_by == annotator, **what)


def next_step(store: Store, annotator: str, dimension: str | None = None, *,
              scope: str | None = None) -> Step:
    """Claim and show the next item of ``dimension`` (any, when None) for ``annotator``."""
    return _show(store, next_item(store, annotator, dimension, scope=scope), dimension,
                 scope=scope)


def decide_item(store: Store, item_id: int, annotator: str, verdict: str,
                reason: str | None = None, *, comment: str | None = None,
                unsure: bool = False) -> Decided:
    """Decide one item. Refused because it moved on elsewhere: ``Decided.moved_on``; any
    other refusal (no reason for a reject, an unknown verdict...) raises ReviewError."""
    try:
        review_id = decide(store, item_id, annotator, verdict, reason, comment=comment,
                           unsure=unsure)
    except ItemMovedOn as exc:
        return Decided(item_id, verdict, reason, moved_on=exc)
    return Decided(item_id, verdict, reason, review_id=review_id)


def decide_step(store: Store, annotator: str, dimension: str | None, item_id: int,
                verdict: str, reason: str | None = None, *, comment: str | None = None,
                unsure: bool = False, scope: str | None = None) -> Step:
    """Decide the item, then claim and show the next one (also when it had moved on; of
    the set ``scope`` when given: '' the working set, else a derived set's name)."""
    decided = decide_item(store, item_id, annotator, verdict, reason, comment=comment,
                          unsure=unsure)
    return _show(store, next_item(store, annotator, dimension, scope=scope), dimension,
                 decided=decided, scope=scope)


def decide_named(store: Store, annotator: str, ref: str, verdict: str,
                 reason: str | None = None, *, dimension: str | None = None,
                 comment: str | None = None, unsure: bool = False) -> Step:
    """Decide the item ``ref`` names: ``next`` claims the next one of ``dimension`` first
    (none left: ``Step.finished``, nothing decided, no sample opened to show: the shell's
    verb shows nothing then), else a name or number
    (:func:`~qcstation.core.review.items.find_item`). The item is then shown as it now
    stands, with ``Step.decided`` (saved, or moved on)."""
    if ref == "next":
        claimed = next_item(store, annotator, dimension)
        if claimed is None:
            return Step(None, dimension, None)
        item_id = claimed.item_id
    else:
        item_id = find_item(store, ref, dimension)
    decided = decide_item(store, item_id, annotator, verdict, reason, comment=comment,
                          unsure=unsure)
    return _look(store, annotator, item_id, decided=decided)


def change_step(store: Store, annotator: str, item_id: int, review_id: int, verdict: str,
                reason: str | None = None, *, comment: str | None = None,
                unsure: bool = False) -> Step:
    """Change an earlier decision of ``annotator``; the item is shown again, read-only."""
    new_id = change_decision(store, review_id, annotator, verdict, reason, comment=comment,
                             unsure=unsure)
    item = get_item(store, item_id)
    return _show(store, item, item.dimension, editable=False, current=False,
                 decided=Decided(item_id, verdict, reason, review_id=new_id, changed=True))


def move_on(store: Store, annotator: str, dimension: str | None, item_id: int, *,
            scope: str | None = None) -> Step:
    """Leave the held item undecided (its claim given back) for the next one."""
    return _show(store, next_item(store, annotator, dimension, after_item_id=item_id,
                                  scope=scope), dimension, scope=scope)


def undo_step(store: Store, annotator: str, dimension: str | None, *,
              scope: str | None = None) -> Step:
    """Take back the annotator's last decision and show that item to decide again (the next
    item when there was nothing to undo)."""
    undone = undo_last(store, annotator)
    item = (next_item(store, annotator, dimension, scope=scope) if undone is None
            else get_item(store, undone))
    return _show(store, item, dimension, undone=Undone(undone), scope=scope)


def look_at(store: Store, annotator: str, item_id: int) -> Step:
    """Show any item (looking back): editable only where the annotator may decide it now."""
    return _look(store, annotator, item_id)


def exclude_step(store: Store, annotator: str, dimension: str | None, seed_id: int,
                 reason: str, *, curators: list[str] | tuple[str, ...],
                 item_id: int | None = None, at_head: bool = True,
                 scope: str | None = None) -> Step:
    """A curator excludes the shown item's seed; at the held item the next one is shown
    (the seed's items are skipped now), looking back the same item again."""
    result = exclude_seed(store, seed_id, actor=annotator, reason=reason,
                          curators=list(curators))
    if at_head or item_id is None:
        return _show(store, next_item(store, annotator, dimension, scope=scope), dimension,
                     excluded=result, scope=scope)
    return _look(store, annotator, item_id, excluded=result)
