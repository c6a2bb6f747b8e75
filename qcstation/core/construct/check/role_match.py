"""Places of a value the question states twice, tied to the formalization's givens by what every
step does with each given (issue 26.1, lane cov26): asked by
:func:`~qcstation.core.construct.check.bindings._decided_by_roles` where the roles of one step's
givens leave more than one way. "Sam memorized six more digits of pi than Carlos ... Mina
memorized six times as many digits of pi as Carlos": "Carlos memorized 24/6" may be either place
by its role (a digit may divide), but the other given is added ("Sam memorized 4+6"), and a number
that compares as a multiplier ("six times as many") never adds: the one way is "24/6" for "six
times" and "4+6" for "six more digits". Read from the texts and the formalization's own terms
only; each given used once, and named for its place and no other (``g2_times``, ``g3_digits``), so
two givens crossed, or one given in two places' roles ("12/4" and "4/4" for "4 times the number" and
"4 potatoes"), are never vouched for."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from qcstation.core.reading.words import Occurrence, stem

__all__ = ["decided_across_steps", "named_for"]


def _name_stems(name: str) -> frozenset[str]:
    """The stems of the words a given's name writes after its number ("g3_digits": digit)."""
    return frozenset(stem(w) for w in name.split("_")[1:] if w.isalpha())


def _place_stems(o: Occurrence) -> frozenset[str]:
    return frozenset(o.words) | frozenset(stem(w) for w in re.findall(r"[A-Za-z]+", o.text))


def decided_across_steps(v: Fraction, cands: list[Occurrence], defs: dict[str, Any], values: dict[str, Fraction],
                         question: str, fits: Callable[[Occurrence, Fraction, list[str], str], bool],
                         roles_of: Callable[[Any, str], list[str]], is_given: Callable[[Any], bool]) -> bool:
    """Is there exactly one way to give each place of ``v`` (``cands``) one given of value ``v``
    such that every use of each given, over all steps, fits its place (``fits``), and is it the
    formalization's: each digit given named for its place and for no other, no word given?"""
    givens = sorted(d for d, e in defs.items() if is_given(e) and values.get(d) == v)
    if len(givens) != len(cands) or len(givens) < 2 or any(d.startswith("w_") for d in givens):
        return False
    roles = {d: [r for e in defs.values() if not is_given(e) for r in roles_of(e, d)] for d in givens}
    if any(len(roles[d]) != 1 for d in givens):
        return False  # a given used twice may be each place once ("12/4" and "4/4" of "4 times", "4 potatoes")
    options = [[i for i, o in enumerate(cands) if fits(o, v, roles[d], question)] for d in givens]
    picks = [p for p in itertools.product(*options) if len(set(p)) == len(p)]
    if len(picks) != 1:
        return False
    return all(named_for(d, cands, i) for d, i in zip(givens, picks[0]))


def named_for(name: str, cands: list[Occurrence], i: int) -> bool:
    """Does the given's name name the place ``cands[i]`` and no other place of its value?"""
    stems = [_place_stems(o) for o in cands]
    mine = _name_stems(name)
    return bool(mine & stems[i]) and not any(mine & stems[j] for j in range(len(cands)) if j != i)
