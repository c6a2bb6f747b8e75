"""Which candidate a number is that its step writes as money ("$4"), where the others are counts
(used by :func:`.links.resolve_links` after every other decider).

"The discount for 2 tubs of ice cream is $2 x 2 = $<<2*2=4>>4. The total discount for 4 packets of
milk is $0.5 x 4 = $<<0.5*4=2>>2. You will save $4 + $2 = $6" (309): the question's 4 is "4 packets
of milk", a count; the first step's 4 is "$4", money. The last step writes its 4 as "$4": of the
two candidates, only the earlier result is money, so it is that result (and the structure then
leaves the question's 4 packets to "$0.5 x 4"). The sign is read on the number's own place in the
written computation (its operands aligned with the step's numbers), never elsewhere on the line.
Every other candidate must be named as something else than money; one named by nothing decides
nothing (a bare "= 40" may be dollars too). A twin of equal value beside the money in one sum or
product ("($10 x 10)/100" for "a 10 percent discount", 467) is told apart by the sign alone: the
"$10" is the money candidate; both written as money, or neither, decide nothing.

A step whose result is money tells its terms apart by money too (:func:`decide_by_money_result`):
a term of a sum or difference, or the dividend of a division, is the one money candidate ("making
his total 40-4 = $36.00": the $4.00 discount, not "4 packs"); a divisor the one that counts ("each
bagel costs 36/36 = $1.00": the 36 bagels). A product is not read so (money times a count either
way round). Its decisions are kept for :func:`.link_structure.decide_together` where they alone
leave more than one reading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from qcstation.core.construct.make.rules.givens import Givens
from qcstation.core.construct.make.rules.link_structure import (Computation, Readings, _Choices, _keep_decided,
                                                                _line_at, open_numbers)
from qcstation.core.reading.expr import BinOp, Expr, Name, Neg, Num, canon, leaves

#: the stems of a money unit (:func:`qcstation.core.reading.words.stem` maps "dollars" to "$")
_MONEY = frozenset({"$", "cent", "buck", "penn", "euro", "€", "£"})
#: a number as a computation writes it, with the currency sign right before it ("$4", "$ 0.5")
_OPERAND = re.compile(r"(?P<sign>[$€£]\s?)?(?<![\d.])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)")
_WRITTEN_RESULT = re.compile(r"\s*[$€£]?\s*-?(?:\d[\d,]*(?:\.\d+)?|\.\d+)?")


def _visible(solution: str, comp: Computation) -> str | None:
    """The computation as the solution writes it: an inline one's own text; for an annotation,
    the ``expression =`` its line writes right before it ("$0.5 x 4 = $<<0.5*4=2>>2")."""
    from qcstation.core.reading.inline import VISIBLE_TAIL_RE

    if comp.source != "annotation":
        raw = getattr(comp, "raw", "")
        return raw.rsplit("=", 1)[0] if "=" in raw else None
    line_start = solution.rfind("\n", 0, comp.start) + 1
    m = VISIBLE_TAIL_RE.search(solution[line_start:comp.start])
    return m.group(1) if m else None


def _money_operands(solution: str, comp: Computation, values: list[Fraction]) -> list[bool] | None:
    """For each number of a step (``values``, in order), is it written with a currency sign? None
    unless the written computation's numbers are exactly the step's, in order."""
    text = _visible(solution, comp)
    if text is None:
        return None
    found = [(m.group("sign") is not None, Fraction(m.group("num").replace(",", ""))) for m in _OPERAND.finditer(text)]
    if [v for _, v in found] != values:
        return None
    return [sign for sign, _ in found]


def _result_kind(solution: str, comp: Computation) -> str:
    """"money", "other" (named with words, none of money) or "" (named by nothing) for the result
    a step writes: its sign and the words right after it."""
    from qcstation.core.reading.words import words_at

    end = comp.end
    if comp.source == "annotation":
        m = _WRITTEN_RESULT.match(solution, end)
        end = m.end() if m else end
        sign = solution[max(0, comp.start - 1):comp.start] == "$" or "$" in solution[comp.end:end]
    else:
        sign = any(c in str(getattr(comp, "raw", "")).rsplit("=", 1)[-1] for c in "$€£")
    words = words_at(solution, end, end)
    if sign or words & _MONEY:
        return "money"
    return "other" if words else ""


def _place_kind(stems: frozenset[str], percent: bool) -> str:
    """The same for a place of the question (its ``words_at`` stems)."""
    if stems & _MONEY:
        return "money"
    return "other" if stems or percent else ""


def _candidate_kinds(solution: str, comps: Sequence[Computation], givens: Givens,
                     options: Sequence[int | None], v: Fraction, line: str) -> dict[int | None, str]:
    """What each candidate of a number of value ``v`` on ``line`` is: the question's places of
    that value (None; "" unless they agree) or an earlier step's result, "money", "other"
    or "" (unread; an earlier step on the same line, whose words are this step's too)."""
    kinds: dict[int | None, str] = {}
    for j in options:
        if j is None:
            found = {_place_kind(q.stems, q.percent) for q in givens.numbers if q.value == v}
            kinds[None] = found.pop() if len(found) == 1 else ""
        elif _line_at(solution, comps[j].start) == line:
            kinds[j] = ""
        else:
            kinds[j] = _result_kind(solution, comps[j])
    return kinds


def decide_by_currency(readings: Readings, ch: _Choices, comps: Sequence[Computation], exprs: list[Expr],
                       givens: Givens, solution: str) -> Readings:
    """A number a step writes once, with a currency sign on its own place in the written
    computation ("$4 + $2"), that could be the question's number or an earlier result: the one
    candidate that is money (a place of the question with "$" or "dollars"; an earlier result
    written "$4" or "4 dollars"), when every other candidate is named as something else (a count:
    "4 packets"; "= 4 hours"). Only where one reading is left."""
    decided: dict[int, int | None] = {}
    for n, i, k, terms, v in open_numbers(readings, ch, exprs):
        signs = _money_operands(solution, comps[i], [x.value for x in terms])
        if signs is None or not signs[k]:
            continue
        if sum(1 for x, sign in zip(terms, signs) if x.value == v and sign) > 1:
            continue  # "$4 x $4": two numbers of one value both written as money, which is which is unread
        line = _line_at(solution, comps[i].start)
        kinds = _candidate_kinds(solution, comps, givens, ch.options[n], v, line)
        money = [j for j, kind in kinds.items() if kind == "money"]
        if len(money) == 1 and all(kind == "other" for j, kind in kinds.items() if j != money[0]):
            decided[n] = money[0]
    twins = _commuted_twins(ch, exprs, decided)
    if not twins:
        return _keep_decided(readings, ch, decided, lambda j: CURRENCY_EVIDENCE)
    kept = {key: r for key, r in readings.items()
            if all(r[0][n] == c or any(r[0][m] == c for m in twins.get(n, ())) for n, c in decided.items())}
    if len(kept) != 1:
        return readings
    for n, j in decided.items():
        if next(iter(kept.values()))[0][n] == j:
            ch.evidence[ch.keys[n]] = CURRENCY_EVIDENCE
    return kept


def _commuted_twins(ch: _Choices, exprs: list[Expr], decided: dict[int, int | None]) -> dict[int, list[int]]:
    """For a decided number written beside a number of equal value in one sum or product ("$10 x 10"),
    the keys of those twins: the readings keep one formalization of a commuted pair (``10 * s3`` is
    ``s3 * 10``), whichever of the two carries the link, so the link may stand on the twin."""
    out: dict[int, list[int]] = {}
    for n in decided:
        i, k = ch.keys[n]
        terms = leaves(exprs[i])
        for m, (i2, k2) in enumerate(ch.keys):
            if i2 == i and k2 != k and terms[k2].value == terms[k].value and m not in decided \
                    and canon(_marked(exprs[i], k)) == canon(_marked(exprs[i], k2)):
                out.setdefault(n, []).append(m)
    return out


def _marked(e: Expr, k: int) -> Expr:
    """``e`` with its ``k``-th number (in :func:`leaves`' order) a name of its own."""
    counter = iter(range(10**6))

    def walk(x: Expr) -> Expr:
        if isinstance(x, Num):
            return Name("_x") if next(counter) == k else x
        if isinstance(x, Neg):
            return Neg(walk(x.operand))
        if isinstance(x, BinOp):
            left = walk(x.left)
            return BinOp(x.op, left, walk(x.right))
        return x

    return walk(e)


def _role_under_money(e: Expr, k: int) -> str:
    """What the ``k``-th number of a step whose result is money must be: "money" for a term of one
    sum or difference ("40-4 = $36.00": both amounts of money) or the dividend of one division of
    two numbers ("36/36 = $1.00 per bagel"), "count" for that division's divisor; "" else (a
    product may be money times a count in either order)."""
    def additive(x: Expr) -> bool:
        if isinstance(x, BinOp):
            return x.op in "+-" and additive(x.left) and additive(x.right)
        return isinstance(x, Num)

    if isinstance(e, BinOp) and e.op in "+-" and additive(e):
        return "money"
    if isinstance(e, BinOp) and e.op == "/" and isinstance(e.left, Num) and isinstance(e.right, Num):
        return "money" if k == 0 else "count"
    return ""


def decide_by_money_result(readings: Readings, ch: _Choices, comps: Sequence[Computation], exprs: list[Expr],
                           givens: Givens, solution: str) -> Readings:
    """A number of a step whose result is money ("making his total 40-4 = $36.00"; "each bagel costs
    36/36 = $1.00"), that could be the question's number or an earlier result: a term of a sum or
    difference, or the dividend of a division, is the one candidate that is money, where every other
    candidate counts something else ("4 packs", "= 36 bagels"); the divisor is the one candidate
    that counts something, where every other is money ("So one carrot costs $2 / $2 = $1": the
    question's "two carrots", not the $2 the carrots cost). Money plus a count, or a count over
    money, is no amount of money. Only where one reading is left."""
    decided: dict[int, int | None] = {}
    for n, i, k, _terms, v in open_numbers(readings, ch, exprs):
        if _result_kind(solution, comps[i]) != "money":
            continue
        want = _role_under_money(exprs[i], k)
        if not want:
            continue
        line = _line_at(solution, comps[i].start)
        kinds = _candidate_kinds(solution, comps, givens, ch.options[n], v, line)
        mine = "money" if want == "money" else "other"
        rest = "other" if want == "money" else "money"
        fit = [j for j, kind in kinds.items() if kind == mine]
        if len(fit) == 1 and all(kind == rest for j, kind in kinds.items() if j != fit[0]):
            decided[n] = fit[0]
    return _keep_decided(readings, ch, decided, lambda j: MONEY_RESULT_EVIDENCE, partial=True)


#: the evidence of a link the money of a step's result decides
MONEY_RESULT_EVIDENCE = ("the words: the step's result is money; of the candidates only this one is what a "
                         "sum of money or a price's dividend or divisor can be (the others are money or "
                         "counts in the wrong place)")


#: the evidence of a link the currency sign decides
CURRENCY_EVIDENCE = ("the words: the step writes this number as money, and only this candidate is money "
                     "(the others count things)")
