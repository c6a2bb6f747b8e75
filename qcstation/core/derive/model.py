"""The derived item as built in memory, before it is stored (see :mod:`.store`).

A :class:`DerivedItem` is everything a derived item needs to become a seed of its own: the
question, worked solution and exact answer, the transformation that made it (``transform``,
``family``, ``level``, ``idx``, ``params``), the dimension artifacts rebuilt for it
(``contents``, made by the same construction rules as a seed's) and the Z3 checks still to
run on them (``checks``). :class:`Refused` records one item that could not be made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from qcstation.common.vocab import DIMENSIONS

__all__ = ["FAMILIES", "KINDS", "TRANSFORMS", "TRANSFORM_LIST", "Check", "DerivedItem", "Refused",
           "Transform", "fmt", "transforms_where"]

@dataclass(frozen=True)
class Transform:
    """One derive transformation, the one record every other table of it is read from.

    Adding a transformation is this record (in :data:`TRANSFORM_LIST`) and its builder."""

    name: str
    family: str                  #: ``derived_items.family``
    about: str                   #: what it makes
    kinds: tuple[str, ...]       #: the ``qcstation derive KIND`` s that build it
    #: ``module:function`` of its builder, ``(parent, opts, key[, pool]) -> [DerivedItem |
    #: Refused]``, resolved when first used (the builders stand above this module)
    builder: str
    level: str | None = None     #: what ``derived_items.level`` means (None: no level)
    needs_pool: bool = False     #: the builder takes the run's noise pool
    #: its story is rewritten and formalized again by the rules (:mod:`.stale` re-reads it)
    reread: bool = False
    #: its formalization is the parent's with other given values (:mod:`.stale`)
    same_skeleton: bool = False
    #: robustness: a perturbation compared with its parent in the base run (SMART Table 3)
    perturbation: bool = False
    #: robustness: the ladder it draws, as (the metric code of the dimension whose
    #: difficulty it raises, the ladder's title); None: no ladder
    ladder: tuple[str, str] | None = None


TRANSFORM_LIST: tuple[Transform, ...] = (
    Transform("variant", "variants",
              "every given resampled under the original's constraints, re-solved",
              ("variants",), "qcstation.core.derive.transforms:variants",
              reread=True, same_skeleton=True),
    Transform("noise", "noise",
              "k distractor sentences from other seeds; irrelevant information extended",
              ("ladder", "perturb"), "qcstation.core.derive.story:noise_items",
              level="k: the noise sentences added", needs_pool=True, reread=True,
              perturbation=True, ladder=("un", "Understanding ladder: k noise sentences")),
    Transform("digits", "arithmetic-ladder",
              "the notation question's givens rewritten to d significant digits, re-solved",
              ("ladder",), "qcstation.core.derive.transforms:digits",
              level="d: the givens' significant digits", same_skeleton=True,
              ladder=("ar", "Arithmetic ladder: d significant digits")),
    Transform("errors", "refinement-ladder",
              "n distinct error types injected into the chain of thought",
              ("ladder",), "qcstation.core.derive.transforms:errors",
              level="n: the distinct error types injected",
              ladder=("rt", "R&R ladder: n injected error types")),
    Transform("add-operation", "perturbation",
              "one more given and step appended to the story and the formalization, re-solved",
              ("perturb",), "qcstation.core.derive.story:add_operation",
              reread=True, perturbation=True),
    Transform("changed-numbers", "perturbation",
              "one given changed to another number of as many digits, re-solved",
              ("perturb",), "qcstation.core.derive.transforms:changed_numbers",
              reread=True, same_skeleton=True, perturbation=True),
    Transform("counterfactual", "counterfactual", "one given shifted by a percentage, re-solved",
              ("counterfactual",), "qcstation.core.derive.transforms:counterfactuals",
              level="the shift of the given in percent", reread=True, same_skeleton=True),
    Transform("inverse", "inverse",
              "the answer given and one given hidden (X); X solved by Z3, unique",
              ("inverse",), "qcstation.core.derive.transforms:inverses"),
)

#: name -> its record
TRANSFORMS: dict[str, Transform] = {t.name: t for t in TRANSFORM_LIST}
FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(t.family for t in TRANSFORM_LIST))

#: what ``qcstation derive KIND`` builds: kind -> transforms (in the records' order)
KINDS: dict[str, tuple[str, ...]] = {
    kind: tuple(t.name for t in TRANSFORM_LIST if kind in t.kinds)
    for kind in dict.fromkeys(k for t in TRANSFORM_LIST for k in t.kinds)}


def transforms_where(flag: str) -> tuple[str, ...]:
    """The names of the transformations whose record sets ``flag`` (``reread``,
    ``same_skeleton``, ``perturbation``, ...), in the records' order."""
    return tuple(t.name for t in TRANSFORM_LIST if getattr(t, flag))


def fmt(value: Fraction) -> str:
    """Exact value as stored (``answer_value``): ``p`` or ``p/q``."""
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


@dataclass
class Check:
    """A Z3 check still to run: ``dimension``'s SMT-LIB must give ``expected`` uniquely."""

    dimension: str
    smtlib: str
    expected: Fraction


@dataclass
class DerivedItem:
    """One derived item, built and checked except for its Z3 checks."""

    transform: str
    idx: int
    level: int | None
    tag: str                              # unique per parent within a set: "v3", "noise2", ...
    params: dict[str, Any]
    question: str
    solution: str | None
    answer: Fraction
    answer_text: str
    contents: dict[str, dict[str, Any]]   # dimension -> artifact content
    generators: dict[str, str]            # dimension -> generator ("rule:..." as for a seed)
    results: dict[str, dict[str, Any]] = field(default_factory=dict)  # verify results (non-Z3)
    checks: list[Check] = field(default_factory=list)
    ops: int | None = None                # arithmetic operations of its formalization
    flags: dict[str, dict[str, Any]] = field(default_factory=dict)  # dimension -> stored flags
    #: dimension -> its content as stored (JSON text), moved out of ``contents`` by the worker
    #: that built the item (:func:`.store.encode_contents`)
    stored: dict[str, str] = field(default_factory=dict)

    @property
    def family(self) -> str:
        return TRANSFORMS[self.transform].family

    @property
    def dimensions(self) -> list[str]:
        """The SMART dimensions this item carries (in the usual order)."""
        return [d for d in DIMENSIONS if d in self.contents or d in self.stored]


@dataclass
class Refused:
    """An item a transformation could not make faithfully, with the reason."""

    transform: str
    code: str
    reason: str
    idx: int | None = None
