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

__all__ = ["FAMILIES", "KINDS", "TRANSFORMS", "Check", "DerivedItem", "Refused", "fmt"]

#: transform -> (family, what it is)
TRANSFORMS: dict[str, tuple[str, str]] = {
    "variant": ("variants", "every given resampled under the original's constraints, re-solved"),
    "noise": ("noise", "k distractor sentences from other seeds; irrelevant information extended"),
    "digits": ("arithmetic-ladder", ("the notation question's givens rewritten to d significant "
                                    "digits, re-solved")),
    "errors": ("refinement-ladder", "n distinct error types injected into the chain of thought"),
    "add-operation": ("perturbation", ("one more given and step appended to the story and the "
                                      "formalization, re-solved")),
    "changed-numbers": ("perturbation", ("one given changed to another number of as many digits, "
                                        "re-solved")),
    "counterfactual": ("counterfactual", "one given shifted by a percentage, re-solved"),
    "inverse": ("inverse", "the answer given and one given hidden (X); X solved by Z3, unique"),
}
FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(f for f, _ in TRANSFORMS.values()))

#: what ``qcstation derive KIND`` builds: kind -> transforms
KINDS: dict[str, tuple[str, ...]] = {
    "variants": ("variant",),
    "ladder": ("noise", "digits", "errors"),
    "perturb": ("noise", "add-operation", "changed-numbers"),
    "counterfactual": ("counterfactual",),
    "inverse": ("inverse",),
}


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
        return TRANSFORMS[self.transform][0]

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
