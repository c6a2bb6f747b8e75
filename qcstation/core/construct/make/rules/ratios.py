"""The parts of a whole that one share "N times as much as" another splits into, where a solution
divides by their count, a number the question does not state (issue 26.1, lane cover20).

``ratio_parts``: "Jeff and Brad are trying to divide 100 dollars between them. Jeff gets 4 times as
much as Brad" / "Brad gets 100/5": the 5 is Jeff's 4 parts and Brad's one, the term ``4 + 1``
with the question's 4 (a given, tied to its words) and the named constant ``k_one_share_of_brad``
(the base's one part, value 1, never moved by derive). Only where:

* the question says "N times as much/many ... as <base>" (or "twice"/"thrice as"; also "as fast", "as
  long", "as tall", "as old", "as far", "as heavy", and "than <base>" for the second "as") once, with
  ``N + 1`` the number the step writes, and N is stated at that one place (or is that word);
* the step divides by that number ("100/5", "60*(2/3)", "3/4*120000");
* the step's line names the base or the thing compared ("Brad gets", "40 chickens", "the house");
* the number is no number or word given of the question.

A derived item that moves N moves the parts with it (Jeff 3 times as much: 100/4).

``base_share_one`` (lane covB): the same base's part where the solution writes the sum itself ("3
times as many apples as oranges" / "3+1 = 4"), a bare 1 beside the ratio's N, for :mod:`.ones`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from qcstation.core.construct.make.rules.complements import line_at, names_other_quantity
from qcstation.core.reading.expr import BinOp, Expr, Name, Neg, Num
from qcstation.core.reading.words import NUMBER_WORD_VALUES, line_stems

if TYPE_CHECKING:
    from qcstation.core.construct.make.rules.givens import Givens

__all__ = ["base_share_one", "ratio_parts"]

_WORD_TIMES = {"twice": 2, "thrice": 3}
_N_WORDS = "|".join(w for w, v in NUMBER_WORD_VALUES.items() if 2 <= v <= 20 and "-" not in w)
_TIMES_AS = re.compile(
    rf"\b(?:(?P<n>\d+|{_N_WORDS})\s+times|(?P<w>twice|thrice))\s+as\s+(?:much|many|fast|long|tall|old|far|heavy)\b"
    r"(?P<what>[^.?!;]{0,40}?)\s+(?:as|than)\s+(?P<base>(?:(?:the|a|an|his|her|their|each)\s+)?[A-Za-z]+)", re.I)
_COMPARING = frozenset(line_stems("if has have had gets get got is are was were times as much many more than costs cost"
                                  " fast long tall old far heavy"))
_ARTICLE = re.compile(r"^(?:the|a|an|his|her|their|each)\s+", re.I)


class _Ratio:
    def __init__(self, n: Fraction, text: str, word: bool, base: str, stems: frozenset[str], start: int = -1) -> None:
        self.n = n
        self.start = start  # where the question writes N (its given's place)
        self.text = text
        self.word = word
        self.base = base
        self.stems = stems


def _ratios(givens: Givens) -> list[_Ratio]:
    q = givens.question[:20_000]
    out = []
    for m in _TIMES_AS.finditer(q):
        base = _ARTICLE.sub("", m.group("base")).lower()
        # the words of the comparison: its clause up to the base ("the house cost three times as
        # much as the lot": house, cost, lot), less the words that make it a comparison
        start = max(q.rfind(c, 0, m.start()) for c in ".?!,;") + 1
        stems = frozenset(line_stems(q[start:m.start()] + " " + m.group("what") + " " + base)) \
            - {"$", "%"} - _COMPARING
        if m.group("w"):
            out.append(_Ratio(Fraction(_WORD_TIMES[m.group("w").lower()]), m.group("w"), True, base, stems,
                              m.start("w")))
            continue
        raw = m.group("n")
        n = Fraction(int(raw)) if raw.isdigit() else Fraction(NUMBER_WORD_VALUES[raw.lower()])
        # N stated at this one place only: its given is tied to "N times as much"
        places = [x for x in givens.numbers if x.value == n and not x.percent]
        if len(places) == 1 and places[0].start == m.start("n"):
            out.append(_Ratio(n, places[0].text, False, base, stems, places[0].start))
    return out


def ratio_parts(starts: Sequence[int], exprs: list[Expr], givens: Givens | None, solution: str) -> list[Expr]:
    """``exprs`` (one term per computation starting at ``starts``) with each divisor that is the
    count of a ratio's parts (see the module docstring) replaced by ``N + k_one_share_of_<base>``."""
    if givens is None:
        return exprs
    ratios = _ratios(givens)
    if not ratios:
        return exprs
    out = []
    for e, at in zip(exprs, starts):
        said = line_stems(line_at(solution, at)) - {"$", "%"}
        out.append(_walk(e, givens, ratios, said))
    return out


def _walk(e: Expr, givens: Givens, ratios: list[_Ratio], said: set[str] | frozenset[str]) -> Expr:
    if isinstance(e, Neg):
        return Neg(_walk(e.operand, givens, ratios, said))
    if not isinstance(e, BinOp):
        return e
    left = _walk(e.left, givens, ratios, said)
    right = e.right
    if e.op == "/" and isinstance(right, Num):
        parts = _parts(right, givens, ratios, said)
        if parts is not None:
            return BinOp("/", left, parts)
    return BinOp(e.op, left, _walk(right, givens, ratios, said))


def _parts(num: Num, givens: Givens, ratios: list[_Ratio], said: set[str] | frozenset[str]) -> Expr | None:
    v = num.value
    if not num.text or num.text.startswith("k_") or v.denominator != 1 or v < 3 or names_other_quantity(givens, v):
        return None
    found = [r for r in ratios if r.n + 1 == v]
    if len(found) != 1 or len(ratios) != 1:
        return None  # two ratios: which one's parts the step counts no reader can tell
    r = found[0]
    if r.word and r.n in givens.values:
        return None  # "twice" beside a stated 2: the 2 would be bound to that place
    if not (said & r.stems):
        return None  # the line names neither the base nor the thing compared
    return BinOp("+", Num(r.n, "" if r.word else r.text), Num(Fraction(1), _share_name(r)))


def _share_name(r: _Ratio) -> str:
    return "k_one_share_of_" + re.sub(r"[^a-z]+", "_", r.base).strip("_")[:24]


def base_share_one(givens: Givens, line: str, op: str, siblings: Sequence[Expr], places: Mapping[str, Any],
                   declared: Collection[str]) -> str | None:
    """The base's one part (``k_one_share_of_<base>``, the constant :func:`ratio_parts` writes) for
    a bare 1 a step writes beside the ratio's N: "3 times as many apples as oranges" / "3+1 = 4",
    "5 times as many children as women" / "3000 / (5+1)", "twice as many as Helen" / "2+1 = 3 units
    of eggs": the sum of the two shares, where the step adds the 1 to the given of the question's one
    "N times as much/many ... as" and nothing else, and its line names the base or the thing compared.
    A product's 1 ("10*1 = 10 oranges": one orange a group) only once an earlier step of the same
    reading has the base's part (``declared``) and the line names the base itself. None otherwise
    (two ratios, a line that names neither, a 1 beside other numbers)."""
    ratios = _ratios(givens)
    if len(ratios) != 1 or len(siblings) != 1:
        return None
    r = ratios[0]
    said = line_stems(line) - {"$", "%"}
    name = _share_name(r)
    sib = siblings[0]
    if op == "+" and said & r.stems and isinstance(sib, Name) and (
            (not r.word and getattr(places.get(sib.name), "start", None) == r.start)
            or (r.word and sib.name == "w_" + r.text.lower())):
        return name
    if op == "*" and name in declared and line_stems(r.base) <= said:
        return name
    return None
