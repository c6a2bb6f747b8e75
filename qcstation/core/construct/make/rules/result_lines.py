"""Which of two or more earlier results a step's number is, where the question states no such
number: the words of the step's line against the lines of the earlier steps of that value (used
by :func:`.links.resolve_links` after every other decider).

"There are 40/2 = 20 pupils who like blue. So, there are now 40 - 20 = 20 pupils who like either
green or yellow. Hence, 20/4 = 5 pupils like green" (377): the question states no 20, so the 20
of "20/4" is one of the two results of 20; only the second result's line writes "green", a word
the first's does not, so it is that one. A line that writes the words of none, or of more than
one, decides nothing (:func:`.clause_words.result_or_given` with no place of the question).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from qcstation.core.construct.make.rules.givens import Givens
from qcstation.core.construct.make.rules.link_structure import (Computation, Readings, _Choices, _keep_decided,
                                                                _line_at, _term_times, open_numbers)
from qcstation.core.reading.expr import Expr


def decide_results_by_line(readings: Readings, ch: _Choices, comps: Sequence[Computation], exprs: list[Expr],
                           givens: Givens, solution: str) -> Readings:
    """For a number the question cannot state (its options are earlier results only), written once
    in its step's term and once in its line: the earlier result whose line alone writes words the
    step's line writes (:func:`.clause_words.result_or_given`). Only where one reading is left."""
    from qcstation.core.construct.make.rules.clause_words import result_or_given

    decided: dict[int, int | None] = {}
    for n, i, _k, terms, v in open_numbers(readings, ch, exprs):
        steps = ch.options[n]
        if None in steps or len(steps) < 2:
            continue
        if sum(1 for x in terms if x.value == v) > 1:
            continue
        line = _line_at(solution, comps[i].start)
        earlier = [_line_at(solution, comps[j].start) for j in steps]  # type: ignore[index]
        if line in earlier or len(set(earlier)) != len(earlier) or _term_times(line, v) > 1:
            continue
        # "3/5 of the remaining hats ... 3/5*50": the words after a fraction "of" name what it is a
        # part of (this number), not the fraction
        others = [x.value for x in terms if x.value != v and not _part_of(line, x.text or "")]
        found = result_or_given(givens.question, [], line, earlier, others)
        if found is not None and found >= 0:
            decided[n] = steps[found]
    return _keep_decided(readings, ch, decided, lambda j: RESULT_LINE_EVIDENCE)


def _part_of(line: str, text: str) -> bool:
    """Does the line write the fraction ``text`` ("3/5") as a part of something ("3/5 of the ...")?"""
    return "/" in text and re.search(rf"(?<![\d.]){re.escape(text)}\s+of\b", line) is not None


#: the evidence of a link the words of the lines decide between earlier results
RESULT_LINE_EVIDENCE = "the words: the line writes words of this earlier result's line that no other candidate's writes"


#: a comparison the question states right after a number: "5 fewer books than the bottom shelf",
#: "three years older than Granny Red"; group 1 is what it is compared with
_THAN = re.compile(r"^(?:(?!\b(?:and|but|while|if|when|so|because|how|what|which|who)\b)[^.?!;:,]){0,60}?"
                   r"\bthan\s+([^.?!;:,]{1,60})", re.I)
_THAN_END = re.compile(r"\b(?:and|but|while|if|when|so|because|how|what|which|who)\b", re.I)


def _compared_with(question: str, start: int, end: int) -> frozenset[str]:
    """The words of what the question compares the number at ``question[start:end]`` with ("5
    fewer books than the bottom shelf" -> {bott, shel}); empty when it states no comparison there."""
    from qcstation.core.reading.words import _STOP, _WORD, stem

    m = _THAN.match(question[end:end + 140])
    if m is None:
        return frozenset()
    base = m.group(1)
    cut = _THAN_END.search(base)
    base = base[:cut.start()] if cut else base
    return frozenset(stem(w) for w in _WORD.findall(base) if w.lower() not in _STOP and w not in ("$", "%"))


def decide_compared_results(readings: Readings, ch: _Choices, comps: Sequence[Computation], exprs: list[Expr],
                            givens: Givens, solution: str) -> Readings:
    """A step ``r ± n`` (or ``r × n``) whose other number ``n`` the question states once, right
    before a comparison ("The top shelf can hold 5 fewer books than the bottom shelf"; "Sally Two
    is three years older than Granny Red"), where ``r`` is one of two or more earlier results the
    question cannot state: the result whose line alone writes the words of what is compared with
    ("The bottom shelf can hold 2 * 10 = 20 books", not "The 2 middle shelves can hold ... 20
    books"). Only where one reading is left."""
    from qcstation.core.reading.expr import BinOp, Num
    from qcstation.core.reading.words import line_stems

    decided: dict[int, int | None] = {}
    for n, i, k, _terms, v in open_numbers(readings, ch, exprs):
        steps = ch.options[n]
        e = exprs[i]
        if None in steps or len(steps) < 2 or not (isinstance(e, BinOp) and e.op in "+-*"
                                                   and isinstance(e.left, Num) and isinstance(e.right, Num)):
            continue
        other = (e.left, e.right)[1 - k]
        if other.value == v:
            continue
        places = [q for q in givens.numbers if q.value == other.value and not q.percent]
        if len(places) != 1:
            continue  # the other number is no single place of the question
        base = _compared_with(givens.question, places[0].start, places[0].start + len(places[0].text))
        if not base:
            continue
        lines = [line_stems(re.sub(r"<<[^<>]*>>", " ", _line_at(solution, comps[j].start)))  # type: ignore[index]
                 for j in steps]
        if _line_at(solution, comps[i].start) in [_line_at(solution, comps[j].start) for j in steps]:  # type: ignore[index]
            continue
        hits = [j for j, words in zip(steps, lines)
                if base & (words - frozenset().union(*(w for w2, w in zip(steps, lines) if w2 != j)))]
        if len(hits) == 1:
            decided[n] = hits[0]
    return _keep_decided(readings, ch, decided, lambda j: COMPARED_EVIDENCE)


#: the evidence of a link the question's comparison decides
COMPARED_EVIDENCE = ("the words: the question compares the step's other number with what only this "
                     "earlier result's line names")


def decide_factor_words(readings: Readings, ch: _Choices, comps: Sequence[Computation], exprs: list[Expr],
                        givens: Givens, solution: str) -> Readings:
    """A common factor the question does not state ("2 hours * 7 days" in "for another week"),
    that its line names with the factor's unit (a week's days, an hour's minutes) where the line or
    the question writes the larger unit, is that named factor, not an earlier result of equal value
    whose step names it with other words ("0.5 hours * 14 days = 7 hours"). Every candidate result
    must be named, and none with the factor's unit. Only where one reading is left."""
    from qcstation.core.construct.make.rules.binding import _FACTOR_STEMS
    from qcstation.core.reading.words import solution_stems

    decided: dict[int, int | None] = {}
    for n, i, _k, terms, v in open_numbers(readings, ch, exprs):
        unit = _FACTOR_STEMS.get(v, frozenset())
        larger = _LARGER.get(v)
        steps = [j for j in ch.options[n] if j is not None]
        if None not in ch.options[n] or not steps or not unit or larger is None or v in givens.values \
                or sum(1 for x in terms if x.value == v) > 1:
            continue
        line = _line_at(solution, comps[i].start)
        if _term_times(line, v) != 1 or not (larger.search(line) or larger.search(givens.question)):
            continue
        here = {w for m in range(8) for w in solution_stems(line, v, 4, m)}
        if not here & unit:
            continue
        said = [_named_result(solution, comps[j]) for j in steps]
        if all(s and not s & unit for s in said) and all(_line_at(solution, comps[j].start) != line for j in steps):
            decided[n] = None
    return _keep_decided(readings, ch, decided, lambda j: FACTOR_WORD_EVIDENCE)


def _named_result(solution: str, comp: Computation) -> frozenset[str]:
    """The stems of the words right after the result a step writes ("= 7 hours" -> {hour})."""
    from qcstation.core.reading.words import words_at

    end = comp.end
    if comp.source == "annotation":
        m = _WRITTEN_RESULT.match(solution, end)
        end = m.end() if m else end
    return words_at(solution, end, end) - {"$"}


_WRITTEN_RESULT = re.compile(r"\s*[$€£]?\s*-?(?:\d[\d,]*(?:\.\d+)?|\.\d+)?")


#: the larger unit of each common factor whose smaller unit :data:`.binding._FACTOR_STEMS` names
_LARGER = {
    Fraction(7): re.compile(r"\bweeks?\b|\bweekly\b", re.I),
    Fraction(24): re.compile(r"\bdays?\b|\bdaily\b", re.I),
    Fraction(60): re.compile(r"\bhours?\b|\bhourly\b|\bminutes?\b", re.I),
    Fraction(52): re.compile(r"\byears?\b|\byearly\b|\bannual", re.I),
    Fraction(365): re.compile(r"\byears?\b|\byearly\b|\bannual", re.I),
}

#: the evidence of a number its line names with a common factor's unit
FACTOR_WORD_EVIDENCE = ("the words: the line names this number with a common factor's unit (7 days for a "
                        "week), which no earlier result of this value is named with")
