"""Ranks and floors the question writes as ordinals, where a solution writes their number (issue
26.1, lane cover20). ``first_place``: a rank the question writes as the ordinal "first": "She started off in first, but then fell back 5 spots" / "Finley
started off at 1st place but then lost 5 spots, which translates to 1+5": the 1 is the first place,
the named constant ``k_one_first_place`` (value 1, never moved by derive), not a 1 the question
states ("jumped ahead 1 spot"). Only where the question says "in/at/from first (place)" once and
the step's line writes "1st" or "first place"."""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from qcstation.core.construct.make.rules.complements import line_at
from qcstation.core.reading.expr import BinOp, Expr, Neg, Num

if TYPE_CHECKING:
    from qcstation.core.construct.make.rules.givens import Givens

__all__ = ["FLOOR_FACTORS", "first_place", "floors"]

_FIRST = re.compile(r"\b(?:in|at|from|finished|finish|started)\s+(?:the\s+)?first(?:\s+place)?\b(?!\s+(?:day|time|week|"
                    r"month|year|hour|minute|round|half|one|of)\b)", re.I)
_LINE = re.compile(r"\b1st\b|\bfirst place\b", re.I)


#: "started delivering newspapers on the first floor" / "Earl was on the 1 + 5 = 6th floor": the floor's number
_FIRST_FLOOR = re.compile(r"\b(?:on|from|at)\s+the\s+first\s+floor\b", re.I)
_FLOOR_LINE = re.compile(r"\bfloors?\b", re.I)


def first_place(starts: Sequence[int], exprs: list[Expr], givens: Givens | None, solution: str) -> list[Expr]:
    """``exprs`` with the 1 of a line that writes the question's first place marked ``k_one_first_place``;
    the 1 a sum starts from on a line of floors, where the question says once that it starts "on the first
    floor" (and never "first" else), marked ``k_one_first_floor``."""
    if givens is None:
        return exprs
    q = givens.question[:20_000]
    if len(_FIRST_FLOOR.findall(q)) == 1 and len(re.findall(r"\bfirst\b", q, re.I)) == 1:
        mark, line_re = "k_one_first_floor", _FLOOR_LINE
    elif len(_FIRST.findall(q)) == 1:
        mark, line_re = "k_one_first_place", _LINE
    else:
        return exprs
    out = []
    for e, at in zip(exprs, starts):
        line = line_at(solution, at)
        out.append(_mark(e, mark) if line_re.search(line) else e)
    return out


def _mark(e: Expr, mark: str = "k_one_first_place") -> Expr:
    """The 1 of a sum or difference (a place moved by spots, a floor moved up or down)."""
    if isinstance(e, BinOp) and e.op in "+-":
        left, right = e.left, e.right
        if isinstance(left, Num) and left.value == 1 and left.text and not left.text.startswith("k_"):
            left = Num(left.value, mark)
        return BinOp(e.op, _mark(left, mark) if isinstance(left, BinOp) else left, right)
    if isinstance(e, Neg):
        return Neg(_mark(e.operand))
    return e


_ORDINALS = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
             "tenth": 10}
#: the named constants of :func:`floors` by name
FLOOR_FACTORS: dict[str, Fraction] = {f"k_stories_up_to_the_{w}_floor": Fraction(n) for w, n in _ORDINALS.items()}
_FLOOR = re.compile(r"\b(second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)[- ]floor\b", re.I)
_STORY = re.compile(r"\bstor(?:y|ies|eys?)\b", re.I)


def floors(starts: Sequence[int], exprs: list[Expr], givens: Givens | None, solution: str) -> list[Expr]:
    """``exprs`` with the number of stories up to the floor the question names by its ordinal ("he
    drops it from the third-floor balcony in the mall, where each story is 24 feet high" / "24
    feet/story * 3 stories") marked ``k_stories_up_to_the_third_floor``: only where the question
    names one such floor and speaks of a story's height, and the step multiplies by that number on
    a line that writes stories."""
    if givens is None:
        return exprs
    q = givens.question[:20_000]
    named = {m.group(1).lower() for m in _FLOOR.finditer(q)}
    if len(named) != 1 or not _STORY.search(q):
        return exprs
    word = named.pop()
    n = Fraction(_ORDINALS[word])
    if n in givens.values or n in givens.word_values:
        return exprs  # (a fraction's parts of equal value, "2/3rds", is no story: the line says stories)
    out = []
    for e, at in zip(exprs, starts):
        line = line_at(solution, at)
        if _STORY.search(line) and isinstance(e, BinOp) and e.op == "*":
            e = BinOp("*", *(Num(x.value, f"k_stories_up_to_the_{word}_floor")
                             if isinstance(x, Num) and x.text and not x.text.startswith("k_") and x.value == n else x
                             for x in (e.left, e.right)))
        out.append(e)
    return out
