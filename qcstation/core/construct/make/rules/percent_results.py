"""Which candidate a number is where an earlier result is a percent and the question states the
value as a count (used by :func:`.links.resolve_links` after its other deciders).

"In a 60-item quiz, 40% of the questions are easy ..." / "The average and difficult questions
comprises 100% - 40% = 60% of the quiz. There are 60 questions x 40/100 = 24 easy questions. There
are a total of 60 questions x 60/100 = 36 average and difficult questions" (1022): the first step's
60 is a percent ("= 60%"), the question's 60 a count ("60-item"). A term that divides by 100 holds
one percent: the number it divides alone ("60/100 x 60") is the percent, the earlier result; of a
product of two over 100 ("(60*40)/100"), where the other is a percent the question states (its
40%), this one is the count, the question's; where both are of this value ("(60*60)/100"), one is
the percent result and the other the question's count. Only where the question writes no percent
of this value, the earlier result is written as one ("= 60%"), the line writes this value as no
percent, and one reading is left.

The percent's own hundred (:func:`decide_percent_wholes`): a 100 an earlier step also computed
("$400/4 = $100 per week") that the step takes the question's percent from into a result written
as a percent ("100-60 = 40% of the groceries"), or that divides a percent ("$100*(40/100)" after
"= 40%"), is 100 percent, not that result (871).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from qcstation.core.construct.make.rules.givens import Givens
from qcstation.core.construct.make.rules.link_structure import (Computation, Readings, _Choices, _keep_decided, _line_at,
                                                                open_numbers)
from qcstation.core.reading.expr import BinOp, Expr, Neg, Num, fmt, leaves


def percent_slots(e: Expr) -> list[frozenset[int]]:
    """The numbers a term divides by 100, by their ordinals (:func:`leaves`' order): one of each
    set is a percent ("40/100*40": {0}; "(20*50)/100": {0, 1}, the 20 or the 50)."""
    slots: list[frozenset[int]] = []
    counter = iter(range(10**9))

    def walk(x: Expr) -> list[tuple[int, Num]]:
        if isinstance(x, Num):
            return [(next(counter), x)]
        if isinstance(x, Neg):
            return walk(x.operand)
        if isinstance(x, BinOp):
            left, right = walk(x.left), walk(x.right)
            if x.op == "/" and isinstance(x.right, Num) and x.right.value == 100:
                if isinstance(x.left, Num):
                    slots.append(frozenset(o for o, _ in left))
                elif isinstance(x.left, BinOp) and x.left.op == "*" and isinstance(x.left.left, Num) \
                        and isinstance(x.left.right, Num):
                    slots.append(frozenset(o for o, _ in left))
                else:
                    slots.append(frozenset(o for o, _ in left) | {-1})  # a percent somewhere inside
            return left + right
        return []

    walk(e)
    return slots


def percent_only(givens: Givens, v: Fraction) -> bool:
    """Does the question state ``v`` only as a percent ("10%")?"""
    digits = [q for q in givens.numbers if q.value == v and not q.percent]
    return bool(digits) and len(digits) == sum(1 for q in givens.numbers if q.percent and q.value * 100 == v)


#: a result written as a percent: "= 60%", "<<...>>60%", "60 percent"
_PERCENT_AFTER = re.compile(r"\s*(?:%|percent\b)", re.I)
_WRITTEN_RESULT = re.compile(r"\s*-?(?:\d[\d,]*(?:\.\d+)?|\.\d+)")


def _written_as_percent(solution: str, comp: Computation) -> bool:
    """Does the solution write a step's result as a percent ("100% - 40% = 60%")?"""
    if comp.source == "annotation":
        m = _WRITTEN_RESULT.match(solution, comp.end)
        return m is not None and _PERCENT_AFTER.match(solution, m.end()) is not None
    raw = str(getattr(comp, "raw", ""))
    tail = raw.rsplit("=", 1)[-1] if "=" in raw else ""
    return tail.rstrip().endswith("%") or _PERCENT_AFTER.match(solution, comp.end) is not None


def _counted_places(givens: Givens, v: Fraction) -> bool:
    """Does the question state ``v`` as a count and never as a percent?"""
    return any(q.value == v and not q.percent for q in givens.numbers) \
        and not any(q.percent and q.value * 100 == v for q in givens.numbers)


def decide_percent_results(readings: Readings, ch: _Choices, comps: Sequence[Computation], exprs: list[Expr],
                           givens: Givens, solution: str) -> Readings:
    """See the module's docstring: a number a step divides by 100 that an earlier percent result
    or the question's count of equal value may be."""
    decided: dict[int, int | None] = {}
    pairs: list[tuple[int, int, int]] = []  # two numbers of one term: one the result, one the given
    for n, i, k, terms, v in open_numbers(readings, ch, exprs):
        steps = [j for j in ch.options[n] if j is not None]
        if None not in ch.options[n] or len(steps) != 1 or not _counted_places(givens, v):
            continue
        j = steps[0]
        if not _written_as_percent(solution, comps[j]) or _written_as_percent(solution, comps[i]):
            continue
        line = _line_at(solution, comps[i].start)
        if line == _line_at(solution, comps[j].start) \
                or re.search(rf"(?<![\d.]){re.escape(terms[k].text or fmt(v))}\s*(?:%|percent)", line, re.I):
            continue  # the line writes this value as a percent: which number is which, no word says
        mine = [sl for sl in percent_slots(exprs[i]) if k in sl]
        if len(mine) != 1 or -1 in mine[0]:
            continue
        if mine[0] == {k}:
            decided[n] = j  # "60/100 x 60": the number divided alone is the percent
            continue
        (m,) = mine[0] - {k}
        w = terms[m].value
        if w != v:
            fixed = (i, m) not in ch.keys or ch.options[ch.keys.index((i, m))] == [None]
            if fixed and percent_only(givens, w):
                decided[n] = None  # "(60*40)/100": the 40 is the question's percent, the 60 a count
        elif (i, m) in ch.keys and sorted(ch.options[ch.keys.index((i, m))], key=str) == sorted(ch.options[n], key=str):
            pair = (min(n, ch.keys.index((i, m))), max(n, ch.keys.index((i, m))), j)
            if pair not in pairs:
                pairs.append(pair)
    if not decided and not pairs:
        return readings
    kept = {key: r for key, r in readings.items()
            if all(r[0][n] == c for n, c in decided.items())
            and all({r[0][a], r[0][b]} == {None, j} for a, b, j in pairs)}
    if len(kept) != 1:
        return readings
    for n, c in decided.items():
        ch.evidence[ch.keys[n]] = PERCENT_RESULT_EVIDENCE if c is not None else COUNT_EVIDENCE
    (r,) = kept.values()
    for a, b, _j in pairs:
        for n in (a, b):
            ch.evidence[ch.keys[n]] = PERCENT_RESULT_EVIDENCE if r[0][n] is not None else COUNT_EVIDENCE
    return kept


#: the evidence of a link to an earlier result written as a percent (see :func:`decide_percent_results`)
PERCENT_RESULT_EVIDENCE = ("the words: the earlier result is written as a percent and the step divides this "
                           "number by 100; the question states this value only as a count")
#: the evidence of a given the same reading keeps
COUNT_EVIDENCE = ("the words: the earlier result of this value is a percent, and this number is the count "
                  "the step takes a percent of")


def _parents(e: Expr) -> list[tuple[str, str, Expr]]:
    """For each number of a term (in :func:`leaves`' order): its parent's operator, its side
    ("left"/"right") and its sibling (at the top: "", "" and the number itself)."""
    out: list[tuple[str, str, Expr]] = []

    def walk(x: Expr, op: str, side: str, sibling: Expr) -> None:
        if isinstance(x, Num):
            out.append((op, side, sibling))
        elif isinstance(x, Neg):
            walk(x.operand, "neg", "", x)
        elif isinstance(x, BinOp):
            walk(x.left, x.op, "left", x.right)
            walk(x.right, x.op, "right", x.left)

    walk(e, "", "", e)
    return out


def decide_percent_wholes(readings: Readings, ch: _Choices, comps: Sequence[Computation], exprs: list[Expr],
                          givens: Givens, solution: str) -> Readings:
    """A 100 a step writes that an earlier step also computed ("$400/4 = $100 per week"), where the
    step takes a percent the question states from it and writes its result as a percent ("Keenan
    pays for 100-60 = 40% of the groceries", for "Madeline pays 60% of the cost": the whole, 100%),
    or divides by it a term holding a percent ("$100*(40/100)" after "= 40%": the percent's
    hundred): the percent's 100, not the earlier result. Only where the question states no 100
    as a count and one reading is left (871: the other 100 of "$100*(40/100)" is then the $100 a
    week, the one use the earlier result has)."""
    if any(q.value == 100 and not q.percent for q in givens.numbers):
        return readings
    keyed = {key: n for n, key in enumerate(ch.keys)}

    def holds_percent(i: int, m: int, x: Fraction) -> bool:
        """Is the step's m-th number a percent: the question's (a fixed literal), or an earlier
        result written as one (its one option)?"""
        opts = ch.options[keyed[(i, m)]] if (i, m) in keyed else [None]
        if len(opts) != 1:
            return False
        if opts[0] is None:
            return x != 100 and any(q.percent and q.value * 100 == x for q in givens.numbers)
        return _written_as_percent(solution, comps[opts[0]])

    decided: dict[int, int | None] = {}
    for n, i, k, terms, v in open_numbers(readings, ch, exprs):
        if v != 100 or None not in ch.options[n]:
            continue
        ordinal = {id(x): o for o, x in enumerate(terms)}
        op, side, sibling = _parents(exprs[i])[k]
        inside = [ordinal[id(x)] for x in leaves(sibling)]
        if op == "-" and side == "left" and isinstance(sibling, Num) \
                and holds_percent(i, inside[0], sibling.value) and _written_as_percent(solution, comps[i]):
            decided[n] = None
        elif op == "/" and side == "right" and any(holds_percent(i, m, terms[m].value) for m in inside):
            decided[n] = None
    return _keep_decided(readings, ch, decided, lambda j: PERCENT_WHOLE_EVIDENCE)


#: the evidence of a 100 that is the percent's, not an earlier result (see :func:`decide_percent_wholes`)
PERCENT_WHOLE_EVIDENCE = ("the words: the step takes the question's percent from this 100 into a result written "
                          "as a percent, or divides a percent by it: the percent's hundred")
