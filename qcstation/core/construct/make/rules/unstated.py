"""Numbers the question's words give without writing them, read only where the words tie them to
a step (issue 26.1): each is a named constant or a word given, never a given of equal value.

``sentence_names``: a factor whose words the question writes once ("He walks there and back each
day", "printed on both sides") is a step's number where the step's line shares a content word with
a sentence that writes them ("He has to walk 3*2 = 6 miles", "150*2 = 300 pages"), though the line does not repeat
the phrase; a line of another sentence's quantity ("The plane tickets cost 5000*2" beside "a busy
weekend") shares none and stays refused.

``line_percent``: the 100 of a line that writes "100%" ("divide the number of passing students by
the total number of students and multiply by 100%: 700 / 1000 * 100% = 70%") is the percent factor
where the question's words leave it unnamed ("What is the school's overall pass rate?").

``month_of_days``: the days of the one month the question names, on a line of that month that
multiplies a daily amount ("They each need $1 worth of food a day. How much does she spend on food
in the month of May?" / "So he spends 3*31 = $93 a month"): the constant ``k_days_in_may``.

``sentence_list``: the two of a pair the question names ("$7.50 each for movie tickets for herself
and her younger sister", "5 members of the household eat rice every lunch and dinner") that a step
multiplies by, where the words give each member its share ("every", "each", "for" right before the
pair: never "between his home and office"), on a line that shares a content word with the pair's sentence ("the cost of the movie
tickets by multiplying the price per ticket by 2", "Each person eats 0.2 kg/meal x 2 meals/day"): the
word given ``w_herself_and_her_younger_sister``, tied to the pair's words. Only one such pair.

``percent_totals``: the whole and a percent more written as one percent ("50% more with a steel pickaxe
than with an iron pickaxe" / "multiply that amount by 150%: 24*150*.01"): the term ``100 + 50`` of
the percent factor and the question's 50, where one percent the question states once, with words of
more beside it ("a 10% raise" too), gives the number that way, and the line writes it as a percent
("150%") or over 100 ("$1000 * (110/100)").

``unwritten_conversions``: a number a step writes that is a quantity of the question converted to
the smaller unit by a named factor, the conversion not written ("You have to be 4 feet tall ...
Adam's height is 40 inches" / "Adam needs to grow 8 inches because 48 - 40"; "for selling produced
chocolate bars during two weeks" / "During two weeks the company can produce 14 * 5000" after "In
one day, it can produce 5000 bars"): the term ``4 * k_inches_per_foot``, its 4 bound to the
question's "4 feet" by the binder. Only a number no reading gives otherwise (not stated, no word
given, no earlier step's result), where exactly one number the question states with the larger unit right
after it converts to it, the question or the line names the smaller unit and the line
names one of the two.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Protocol

from qcstation.core.reading.expr import BinOp, Expr, Num
from qcstation.core.reading.words import line_stems

if TYPE_CHECKING:
    from qcstation.core.construct.make.rules.givens import Givens


class Computation(Protocol):
    """What :func:`unwritten_conversions` reads of a computation (:class:`.links.Computation`)."""

    start: int
    value: Fraction
    written: Fraction

__all__ = ["BUY_ONE_GET_ONE", "ONE_WAY_WORDS", "SENTENCE_GATED", "line_percent", "month_of_days", "sentence_list", "percent_totals", "sentence_names", "unwritten_conversions"]

#: the words of a trip made both ways: "back and forth", "a round trip", "there and back", "to and
#: from school", "forth and back", "20 miles to work each way", "walk to school and back", "trips out
#: from and back to his apartment" (never "front and back", two sides; never "came back": the "to" of
#: the way out is written before it)
ROUND_TRIP_WORDS = (r"\bback and forth\b|\bforth and back\b|\bround[- ]trips?\b|\bthere and back\b|\bto and from\b"
                    r"|\beach way\b|\bboth ways\b|\bto\s(?:(?!\band\b)[^.?!,;]){1,40}?\band back\b"
                    r"|\bfrom and back to\b")
#: the same, and a quantity given "one way" ("21 miles one way", "driving one way"): the way out, whose
#: way back the words imply; read where both the question and the step's line write them (never by the
#: sentence alone: "The one-way distance ... is 5 miles" / "he drives 5*2" says no way back)
ONE_WAY_WORDS = ROUND_TRIP_WORDS + r"|\bone[- ]way\b"

#: a sale of two items for the price of one ("buy one get one free", "buy one, get one free")
BUY_ONE_GET_ONE = r"\bbuy[- ]one,?[- ]get[- ]one[- ]free\b"

#: the named factors a line may tie to the question by the sentence of their words
SENTENCE_GATED: dict[str, re.Pattern[str]] = {
    "k_ways_of_a_round_trip": re.compile(ROUND_TRIP_WORDS, re.I),
    "k_both": re.compile(r"\bboth\b", re.I),
    "k_items_per_buy_one_get_one": re.compile(BUY_ONE_GET_ONE, re.I),
}


def _sentence_at(text: str, pos: int) -> str:
    a = max(text.rfind(c, 0, pos) for c in ".?!") + 1
    ends = [e for e in (text.find(c, pos) for c in ".?!") if e != -1]
    return text[a:min(ends) if ends else len(text)]


def sentence_names(name: str, question: str, line: str) -> bool:
    """Does the step's ``line`` name a sentence of the question that writes the words of the
    factor ``name`` (:data:`SENTENCE_GATED`): a content word of that sentence, other than the
    factor's own words, on the line? (A factor is one constant wherever its words are: "Blake runs
    back and forth 15 times. Kelly runs back and forth once" / "Kelly runs 200 yards at first
    because 100 x 2".)"""
    rx = SENTENCE_GATED.get(name)
    if rx is None:
        return False
    said = line_stems(rx.sub(" ", line)) - {"$", "%"}
    for sentence in {_sentence_at(question, m.start()) for m in rx.finditer(question[:20_000])}:
        own = line_stems(" ".join(m.group(0) for m in rx.finditer(sentence)))
        if (line_stems(rx.sub(" ", sentence)) & said) - own:
            return True
    return False


_HUNDRED_PERCENT = re.compile(r"(?<![\d.,])100\s*%")


def line_percent(v: object, line: str) -> str | None:
    """``k_percent`` for a 100 the step's line writes as "100%", else None."""
    return "k_percent" if v == 100 and _HUNDRED_PERCENT.search(line) else None


_DAILY = re.compile(r"\b(?:a|per|each|every)\s+day\b|\bdaily\b", re.I)
#: a line of the month: "a month", or the month's name ("until the end of May, she paid 31*$0.50")
_MONTH_LINE = re.compile(r"\b(?i:months?)\b|\b(?:January|March|April|May|June|July|August|September|October|November"
                         r"|December)\b")


def month_of_days(question: str, v: object, line: str, role: str) -> str | None:
    """``k_days_in_<month>`` for a number that multiplies on a line that says "month", where the
    question names one month with ``v`` days and states a daily amount; else None (the one month
    and its days are read by :func:`.implied._month_days`, as for a line that says "days")."""
    from qcstation.core.construct.make.rules.implied import _month_days

    if role != "times" or not isinstance(v, Fraction) or not _MONTH_LINE.search(line) or not _DAILY.search(question):
        return None
    return _month_days(question, v, "days")


#: (factor name, value, the larger unit, the smaller unit), as words after a number
_CONVERSIONS: list[tuple[str, Fraction, str, str]] = [
    ("k_inches_per_foot", Fraction(12), r"feet|foot", r"inch(?:es)?"),
    ("k_days_per_week", Fraction(7), r"weeks?", r"days?"),
    ("k_minutes_per_hour", Fraction(60), r"hours?", r"minutes?"),
    ("k_seconds_per_minute", Fraction(60), r"minutes?", r"seconds?"),
    ("k_hours_per_day", Fraction(24), r"days?", r"hours?"),
    ("k_months_per_year", Fraction(12), r"years?", r"months?"),
    ("k_ounces_per_pound", Fraction(16), r"pounds?", r"ounces?"),
    ("k_feet_per_yard", Fraction(3), r"yards?", r"feet|foot"),
]

#: the values of the factors and common unit numbers: a 7, 12 or 60 a step writes is that factor, never
#: a quantity "converted" from a 1 ("a week")
_FACTOR_VALUES = frozenset({v for _, v, _, _ in _CONVERSIONS} | {Fraction(x) for x in (2, 3, 4, 7, 10, 12, 24, 30, 52, 60, 100, 365, 1000)})


def _converted(v: Fraction, givens: Givens, line: str) -> Expr | None:
    """The one conversion ``g * factor`` of a number ``g`` the question states once with the larger
    unit after it that gives ``v`` (see the module docstring), else None."""
    q = givens.question
    once = [n for n in givens.numbers if not n.percent]
    found: list[Expr] = []
    for name, factor, big, small in _CONVERSIONS:
        small_rx = re.compile(rf"\b(?:{small})\b", re.I)
        big_rx = re.compile(rf"\b(?:{big})\b", re.I)
        if not (small_rx.search(q) or small_rx.search(line)) or not (small_rx.search(line) or big_rx.search(line)):
            continue
        for n in once:
            if n.value > 1 and n.value * factor == v and re.match(rf"\s*-?\s*(?:{big})\b", q[n.start + len(n.text):], re.I):
                found.append(BinOp("*", Num(n.value, n.text.lstrip("$")), Num(factor, name)))
    # a price in dollars a question that counts in cents converts ("Pete and Raymond each receive
    # $2.50 ... How much did they spend altogether, in cents?" / "Raymond spent 250-70 cents"): where
    # the question and the line say cents
    if _CENTS.search(q) and _CENTS.search(line):
        for n in once:
            if n.value * 100 == v and n.start > 0 and q[n.start - 1] == "$" and n.value.denominator != 1:
                found.append(BinOp("*", Num(n.value, n.text.lstrip("$")), Num(Fraction(100), "k_cents_per_dollar")))
    # one place with the larger unit after it; the binder ties its number to that place by the
    # line's words (a second place of the value with another unit is another quantity)
    return found[0] if len(found) == 1 else None


_CENTS = re.compile(r"\bcents?\b", re.I)


def unwritten_conversions(comps: Sequence[Computation], exprs: list[Expr], givens: Givens | None,
                          solution: str) -> list[Expr]:
    """``exprs`` (one term per computation) with each number that is an unwritten conversion of a
    quantity the question states (see the module docstring) replaced by that conversion."""
    if givens is None:
        return exprs
    from qcstation.core.construct.make.rules.givens import _map_written_nums

    out = []
    for i, (comp, e) in enumerate(zip(comps, exprs)):
        earlier = frozenset({c.value for c in comps[:i]} | {c.written for c in comps[:i]})
        line_start = solution.rfind("\n", 0, comp.start) + 1
        line_end = solution.find("\n", comp.start)
        line = solution[line_start:line_end if line_end != -1 else len(solution)]
        out.append(_map_written_nums(e, functools.partial(_convert, givens=givens, earlier=earlier, line=line)))
    return out


def _convert(num: Num, givens: Givens, earlier: frozenset[Fraction], line: str) -> Expr | None:
    v = num.value
    if v.denominator != 1 or v in (0, 1) or v in givens.values or v in givens.word_values \
            or v in earlier or num.text.startswith("k_") or v in _FACTOR_VALUES:
        return None
    return _converted(v, givens, line)


#: "herself and her younger sister", "himself and his wife": two people the words count
_SELF_AND = re.compile(r"\b(?:herself|himself) and (?:her|his)(?: (?!and\b)[a-z]+){1,2}\b")


_PER_MEMBER = re.compile(r"\b(?:every|each|for|both)\s+$", re.I)


def sentence_list(v: Fraction, question: str, line: str, role: str) -> str | None:
    """The name ``w_<pair>`` of the one pair of the question whose count a step multiplies by (see
    the module docstring), else None."""
    from qcstation.core.construct.make.rules.implied import word_lists

    if v != 2 or role != "times":
        return None
    q = question[:20_000]
    pairs = [text for text, members in word_lists(q) if len(members) == 2]
    pairs += [m.group(0) for m in _SELF_AND.finditer(q)]
    said = line_stems(line) - {"$", "%"}
    found = []
    for text in dict.fromkeys(pairs):
        at = q.find(text)
        own = line_stems(text)
        # a pair the words count by what each member gets ("every lunch and dinner", "for herself and
        # her sister"), never one a relation joins ("between his home and office": a one-way distance)
        if at >= 0 and _PER_MEMBER.search(q, max(0, at - 12), at) \
                and (line_stems(_sentence_at(q, at)) & said) - own:
            found.append(text)
    return "w_" + re.sub(r"[^a-z]+", "_", found[0].lower()).strip("_") if len(found) == 1 else None


_MORE_NEAR = re.compile(r"\b(?:more|additional|extra|increase[ds]?|higher|faster|raise[ds]?)\b", re.I)


def percent_totals(exprs: list[Expr], givens: Givens | None, lines: Sequence[str]) -> list[Expr]:
    """``exprs`` with each number ``100 + p`` that a line writes as a percent ("150%") replaced by
    ``k_percent + p`` (see the module docstring)."""
    if givens is None:
        return exprs
    from qcstation.core.construct.make.rules.givens import _map_written_nums

    q = givens.question
    more: dict[Fraction, str] = {}
    for n in givens.numbers:
        if n.percent or not re.match(r"\s*(?:%|percent\b)", q[n.start + len(n.text):]):
            continue
        if sum(1 for m in givens.numbers if m.value == n.value) == 1 \
                and _MORE_NEAR.search(q[n.start:n.start + len(n.text) + 30]):
            more[n.value] = n.text
    if not more:
        return exprs
    return [_map_written_nums(e, functools.partial(_percent_total, more=more, givens=givens, line=line))
            for e, line in zip(exprs, lines)]


def _percent_total(num: Num, more: dict[Fraction, str], givens: Givens, line: str) -> Expr | None:
    v = num.value
    p = v - 100
    if v.denominator != 1 or p <= 0 or p not in more or v in givens.values or v in givens.word_values \
            or not re.search(rf"(?<![\d.,]){v.numerator}\s*(?:%|/\s*100(?![\d.]))", line):
        return None
    return BinOp("+", Num(Fraction(100), "k_percent"), Num(p, more[p]))
