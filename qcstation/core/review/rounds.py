"""Sampling rounds over every dimension of every set: the curator's bulk operations.

The dashboard's ``s`` (draw a sample wherever none is open and the gate does not pass),
``e`` (extend each fully reviewed sample by what its gate asks), ``F`` (a fresh random
round where the gate is out of reach once every defect is corrected) and ``g`` (regenerate
rejected items, then bring the replacements back into their samples) are these verbs. Each
walks the working set and every derived set with items, does its step per dimension, and
returns a :class:`Rounds`: per dimension and set a :class:`DimensionRound` saying what was
done or, with a :class:`Why`, why not; the screen only puts it into words.
``qcstation qc sample|extend|fresh`` take the same steps one dimension at a time
(``draw_round``, ``extend_round``, ``fresh_one``), with the shell's overrides, and raise
the refusal the round carries.

    draw_samples(store, qc, *, actor) -> Rounds
    extend_samples(store, qc, *, actor) -> Rounds
    fresh_rounds(store, qc, dims, *, actor) -> Rounds   (dims: [(dimension, scope)])
    regenerate_rejects(db_path, config, *, actor, progress=None) -> Regenerated

    draw_round(store, qc, dimension, scope='', *, actor, where_needed=False, redraw=False,
               rate=None, rng_seed=None, min_size=None, overlap_rate=None) -> DimensionRound
    extend_round(store, qc, sample, *, actor, extra=None, because=BY_HAND) -> DimensionRound
                                             (extra None: what the sample's gate asks for)
    fresh_one(store, qc, dimension, scope='', *, actor, rng_seed=None) -> DimensionRound
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from db.store import Store
from qcstation.common.config import Config, QCConfig
from qcstation.common.errors import ReviewError
from qcstation.core.review.curation import fresh_round
from qcstation.core.review.gate import gate
from qcstation.core.review.queries import derived_scopes, scope_dimensions
from qcstation.core.review.sampling import (
    SampleInfo,
    draw_sample,
    extend_sample,
    open_sample,
    requeue_replacements,
)

__all__ = ["Why", "DimensionRound", "Rounds", "Regenerated", "draw_samples", "extend_samples",
           "fresh_rounds", "regenerate_rejects", "draw_round", "extend_round", "fresh_one",
           "BY_HAND"]

#: why an extension by a number of items the curator gave was made
BY_HAND = "asked for by hand"


class Why(enum.Enum):
    """Why nothing was done for a dimension of a set."""

    ALREADY_OPEN = "a sample is already open"
    PASSES = "the gate already passes"
    NO_SAMPLE = "no open sample"
    UNFINISHED = "the open sample is not finished"   # detail: the gate's next step
    NOTHING_TO_ADD = "the gate asks for no more items"  # detail: the gate's next step
    REFUSED = "refused"                               # detail: the ReviewError's words


@dataclass(frozen=True)
class DimensionRound:
    """What one bulk step did for one dimension of one set (``scope`` '' the working set)."""

    dimension: str
    scope: str
    sample: SampleInfo | None = None   # drawn or extended
    added: int = 0                     # items added (extend), or the fresh round's size

    why_not: Why | None = None         # nothing done, and why
    detail: str = ""                   # why_not's words (next step, refusal); a fresh round's number
    plan: str = ""                     # the gate's plan sentence (draw)
    because: str = ""                  # why the gate asked for the extension
    fresh: dict[str, Any] | None = None  # a fresh round: what fresh_round recorded
    refusal: ReviewError | None = None   # why_not REFUSED: the refusal itself


@dataclass(frozen=True)
class Rounds:
    rounds: list[DimensionRound] = field(default_factory=list)
    requeued: int = 0                  # regenerated items that joined their open sample

    @property
    def done(self) -> list[DimensionRound]:
        return [r for r in self.rounds if r.why_not is None]


@dataclass(frozen=True)
class Regenerated:
    summary: Any                       # what the generation pipeline returned
    requeued: int                      # replacements that joined their open sample


def _every(store: Store, qc: QCConfig) -> Iterator[tuple[str, str]]:
    """(scope, dimension): the working set, then every derived set with items, each with
    the dimensions its release is gated on (:func:`scope_dimensions`: an inverse set's
    Reasoning, not the configured dimensions its items do not carry)."""
    for scope in ["", *derived_scopes(store)]:
        for dimension in scope_dimensions(store, scope, qc.dimensions):
            yield scope, dimension


def draw_round(store: Store, qc: QCConfig, dimension: str, scope: str = "", *, actor: str,
               where_needed: bool = False, redraw: bool = False, rate: float | None = None,
               rng_seed: int | None = None, min_size: int | None = None,
               overlap_rate: float | None = None) -> DimensionRound:
    """Draw a sample of ``dimension`` in ``scope`` (the settings of ``qc`` unless given),
    with the gate's plan beside it. ``where_needed``: not where a sample is open
    (``ALREADY_OPEN``) or the gate passes (``PASSES``). A refused draw is ``REFUSED``."""
    if where_needed and open_sample(store, dimension, scope) is not None:
        return DimensionRound(dimension, scope, why_not=Why.ALREADY_OPEN)
    g = gate(store, dimension, threshold=qc.defect_threshold, confidence=qc.confidence,
             scope=scope)
    if where_needed and g.passed:
        return DimensionRound(dimension, scope, why_not=Why.PASSES)
    plan = g.plan["sentence"] if g.plan else ""
    try:
        info = draw_sample(store, dimension, actor=actor, curators=list(qc.curators),
                           rate=qc.sample_rate if rate is None else rate,
                           rng_seed=qc.rng_seed if rng_seed is None else rng_seed,
                           min_size=qc.min_sample if min_size is None else min_size,
                           overlap_rate=qc.overlap_rate if overlap_rate is None else overlap_rate,
                           redraw=redraw, scope=scope)
    except ReviewError as exc:
        return DimensionRound(dimension, scope, why_not=Why.REFUSED, detail=str(exc), plan=plan,
                              refusal=exc)
    return DimensionRound(dimension, scope, sample=info, plan=plan)


def draw_samples(store: Store, qc: QCConfig, *, actor: str, dimension: str | None = None,
                 scope: str | None = None) -> Rounds:
    """Bring regenerated items back, then draw a sample for each dimension of each set that
    has none open and whose gate does not pass; only of ``dimension`` and only in the set
    ``scope`` ('' the working set) where given."""
    requeued = requeue_replacements(store, actor)
    return Rounds([draw_round(store, qc, dim, where, actor=actor, where_needed=True)
                   for where, dim in _every(store, qc)
                   if (dimension is None or dim == dimension)
                   and (scope is None or where == scope)], requeued)


def extend_round(store: Store, qc: QCConfig, sample: SampleInfo, *, actor: str,
                 extra: int | None = None, because: str = BY_HAND) -> DimensionRound:
    """Extend the open ``sample`` by ``extra`` items, or (None) by what its gate asks for
    (``NOTHING_TO_ADD`` where it asks for none). A refused extension is ``REFUSED``."""
    dimension, scope = sample.dimension, sample.scope
    if extra is None:
        g = gate(store, dimension, threshold=qc.defect_threshold, confidence=qc.confidence,
                 scope=scope)
        if g.extend_by <= 0:
            return DimensionRound(dimension, scope, why_not=Why.NOTHING_TO_ADD,
                                  detail=g.next_step)
        extra, because = g.extend_by, g.extend_reason
    try:
        info = extend_sample(store, sample.id, extra=extra, actor=actor,
                             curators=list(qc.curators), reason=because)
    except ReviewError as exc:
        return DimensionRound(dimension, scope, why_not=Why.REFUSED, detail=str(exc),
                              refusal=exc)
    return DimensionRound(dimension, scope, sample=info, added=info.size - sample.size,
                          because=because or "")


def extend_samples(store: Store, qc: QCConfig, *, actor: str) -> Rounds:
    """Extend each fully reviewed open sample whose gate does not pass by the items the gate
    asks for (coverage, then the bound)."""
    out: list[DimensionRound] = []
    for scope, dimension in list(_every(store, qc)):
        sample = open_sample(store, dimension, scope)
        g = gate(store, dimension, threshold=qc.defect_threshold, confidence=qc.confidence,
                 scope=scope)
        if g.passed:
            out.append(DimensionRound(dimension, scope, why_not=Why.PASSES))
        elif sample is None:
            out.append(DimensionRound(dimension, scope, why_not=Why.NO_SAMPLE))
        elif g.pending or g.open_rejects:
            out.append(DimensionRound(dimension, scope, why_not=Why.UNFINISHED,
                                      detail=g.next_step))
        elif g.extend_by <= 0:
            out.append(DimensionRound(dimension, scope, why_not=Why.NOTHING_TO_ADD,
                                      detail=g.next_step))
        else:
            out.append(extend_round(store, qc, sample, actor=actor, extra=g.extend_by,
                                    because=g.extend_reason))
    return Rounds(out)


def fresh_one(store: Store, qc: QCConfig, dimension: str, scope: str = "", *, actor: str,
              rng_seed: int | None = None) -> DimensionRound:
    """A fresh random round of ``dimension`` in ``scope``
    (:func:`qcstation.core.review.curation.fresh_round`); refused: ``REFUSED``."""
    try:
        r = fresh_round(store, dimension, actor=actor, scope=scope,
                        curators=list(qc.curators), rate=qc.sample_rate,
                        rng_seed=qc.rng_seed if rng_seed is None else rng_seed,
                        threshold=qc.defect_threshold, confidence=qc.confidence,
                        min_size=qc.min_sample, overlap_rate=qc.overlap_rate)
    except ReviewError as exc:
        return DimensionRound(dimension, scope, why_not=Why.REFUSED, detail=str(exc),
                              refusal=exc)
    return DimensionRound(dimension, scope, added=int(r["size"]), detail=str(r["round"]),
                          fresh=r)


def fresh_rounds(store: Store, qc: QCConfig, dims: list[tuple[str, str]], *,
                 actor: str) -> Rounds:
    """A fresh random round for each (dimension, scope) of ``dims`` (:func:`fresh_one`)."""
    return Rounds([fresh_one(store, qc, dimension, scope, actor=actor)
                   for dimension, scope in dims])


def regenerate_rejects(db_path: str | Path, config: Config, *, actor: str,
                       progress: Callable[[int, int, str], None] | None = None,
                       display: str | None = None,
                       cancel: Callable[[], bool] | None = None) -> Regenerated:
    """Regenerate every rejected item (with the reviewers' reasons), then bring the
    replacements back into their open samples (logged under ``display``, the name shown);
    ``cancel``: asked as the run goes, true stops it (``summary.stopped``; the app's quit)."""
    from qcstation.core.construct.pipeline import regenerate_rejected

    summary = regenerate_rejected(db_path, config, actor=actor, progress=progress, cancel=cancel)
    with Store(db_path) as store:
        if display is not None:
            store.display_name = display
        requeued = requeue_replacements(store, actor)
    return Regenerated(summary, requeued)
