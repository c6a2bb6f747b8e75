"""Readings of a solution's links that add or subtract a word that only multiplies (used by
:func:`.links.resolve_links` after the words, for the readings they left; issue 26.1, lane covB).

A number a step writes that an earlier step computed may be read as that result or as the
question's number of equal value. Where the question states that value only as a word that
multiplies or divides ("twice", "thrice", "half" as 2, "a third" as 3) or as a number that
compares as a multiplier ("two times the number of hardback books"), a reading that adds it to
something or takes it from something is no reading: "6 + 3 + 12 + 18 = 39 pets" after "6 / 2 = 3
cats" adds the cats, not the "thrice" of "thrice as many fish" (which the "6 x 3" takes); "2 + 8 =
10 books" after "6/3 = 2 paperbacks" adds the paperbacks, not the "two times" of the hardbacks.
Nor is a reading that links every use of such a value to earlier results, where the solution
writes the value nowhere else: it leaves the word unused ("6 x 3 = 18 fish" is the "thrice").
A number of the question stated in other words at that value (a count, "a pair", "a dozen") may be
added, and so leaves the readings as they are. Only where some reading is left.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import TYPE_CHECKING

from qcstation.core.construct.make.rules.link_structure import Readings, _Choices
from qcstation.core.reading.expr import BinOp, Expr, Neg, Num, leaves
from qcstation.core.reading.words import WORD_GIVENS

if TYPE_CHECKING:
    from qcstation.core.construct.make.rules.givens import Givens

__all__ = ["drop_added_multipliers"]

#: words that only multiply at their value (the fraction words only as their parts, below)
_MULTIPLIER_WORDS = frozenset({"twice", "double", "doubled", "doubles", "triple", "tripled", "triples", "thrice",
                               "quadruple", "quadrupled", "quadruples"})
_WORD_RE = re.compile(r"\b(" + "|".join(re.escape(w) for w in sorted(WORD_GIVENS, key=len, reverse=True)) + r")\b",
                      re.I)
#: a number right before "times as", "times more", "times the" ...: it compares as a multiplier
_TIMES_AS = re.compile(r"(?:\s*-\s*|\s+)times\s+(?:as|more|less|fewer|the|that|what|his|her|their|its|[a-z]+er)\b",
                       re.I)
#: the evidence of a link this module decides
ADDED_EVIDENCE = ("the words: the question states this value only as a word that multiplies, which is never "
                  "added or taken away; it is the earlier result")


def _only_multiplies(givens: Givens, v: Fraction) -> bool:
    """Does the question state ``v`` only as words that multiply or divide (see the docstring)?"""
    q = givens.question[:20_000]
    for n in givens.numbers:
        if n.value == v and (n.percent or not _TIMES_AS.match(q, n.start + len(n.text))):
            return False
    words = [m.group(1).lower() for m in _WORD_RE.finditer(q) if v in WORD_GIVENS[m.group(1).lower()]]
    if not words and not any(n.value == v for n in givens.numbers):
        return False  # the question states no such value: a constant, read elsewhere
    for w in words:
        parts = v.denominator == 1 and v > 1 and Fraction(1, v.numerator) in WORD_GIVENS[w]
        if w not in _MULTIPLIER_WORDS and not parts:
            return False  # "a pair", "a dozen", "two-thirds": may be added
    return True


def _added(e: Expr) -> list[bool]:
    """For each number of ``e`` (in :func:`~qcstation.core.reading.expr.leaves` order): is it a
    term of a sum or a difference (its parent adds or subtracts it)?"""
    out: list[bool] = []

    def walk(x: Expr, added: bool) -> None:
        if isinstance(x, Num):
            out.append(added)
        elif isinstance(x, Neg):
            walk(x.operand, added)
        elif isinstance(x, BinOp):
            walk(x.left, x.op in "+-")
            walk(x.right, x.op in "+-")

    walk(e, False)
    return out


def drop_added_multipliers(readings: Readings, ch: _Choices, exprs: list[Expr], givens: Givens) -> Readings:
    """The readings that add or subtract no number of the question stated only as a word that
    multiplies (see the module docstring); the readings unchanged where none or all would go."""
    bad: dict[int, Fraction] = {}
    for n, (i, k) in enumerate(ch.keys):
        if None not in ch.options[n] or len(ch.options[n]) < 2:
            continue
        added = _added(exprs[i])
        leaf_values = [leaf.value for leaf in leaves(exprs[i])]
        if k < len(added) and added[k] and _only_multiplies(givens, leaf_values[k]):
            bad[n] = leaf_values[k]
    # a value stated only as a word that multiplies, every use of which a reading links to an
    # earlier result: that reading leaves the word unused ("6 x 3 = 18 fish" is "thrice")
    words: dict[int, Fraction] = {}
    for n, (i, k) in enumerate(ch.keys):
        v = leaves(exprs[i])[k].value
        if n not in bad and None in ch.options[n] and len(ch.options[n]) > 1 and _only_multiplies(givens, v) \
                and not _unkeyed(ch, exprs, v):
            words[n] = v
    if not bad and not words:
        return readings
    kept = {key: r for key, r in readings.items() if all(r[0][n] is not None for n in bad)
            and all(any(r[0][m] is None for m, w in words.items() if w == v) for v in set(words.values()))}
    if not kept or len(kept) == len(readings):
        return readings
    for n in [*bad, *words]:
        if len({r[0][n] for r in kept.values()}) == 1:
            ch.evidence[ch.keys[n]] = ADDED_EVIDENCE
    return kept



def _unkeyed(ch: _Choices, exprs: list[Expr], v: Fraction) -> bool:
    """Does a step write ``v`` where it can be no earlier result (the question's number as written)?"""
    keyed = set(ch.keys)
    return any(leaf.text and leaf.value == v and (i, k) not in keyed
               for i, e in enumerate(exprs) for k, leaf in enumerate(leaves(e)))
