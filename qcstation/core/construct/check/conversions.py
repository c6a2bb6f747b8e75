"""Two readings of the checks in :mod:`.bindings` that need more than the two words after a
number: a unit conversion's number (:func:`converted_by_given`: "120/60 = 2 hours" divides by
the minutes of an hour, never by a given "60% charged") and a value a step uses twice for two
places of the question (:func:`two_places`: "2 skeins per hat ... 2 skeins per pair of socks").
Read from the question and the solution alone, like :mod:`.bindings`, which calls them with the
question's number places (value, start, end) and the formalization's given names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from qcstation.core.reading.words import MAX_TEXT, NUMERAL, numeral_value, result_words, stem

__all__ = ["converted_by_given", "two_places"]

#: where the question writes each number: (value, start, end)
Places = tuple[tuple[Fraction, int, int], ...]
#: a binding no reader can vouch for, as :class:`.bindings.Binding` takes it: (step, value,
#: the solution's words, the question's texts)
Found = tuple[str, Fraction, tuple[str, ...], tuple[str, ...]]


_PHRASE_STOP = re.compile(r"[=+\-*/×÷<>()\d,;:!?\n]|\.(?:\s|$)|\bx\b")
_PHRASE_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
_PHRASE_SKIP = frozenset("""a an the of per each every in on at to for and or but so that this these those it its
    is are was were be been will would can could he she they we you his her their our my your them him with
    from by as if then than more less""".split())


def _phrase_after(text: str, end: int) -> frozenset[str]:
    """The stems of the content words after a number up to the next number, operator or
    clause break ("2 skeins per pair of socks +" -> {skei, pair, sock}): wider than the
    two words the reading floor keeps, to tell apart places that share their first noun."""
    tail = text[end:end + 120]
    stop = _PHRASE_STOP.search(tail)
    chunk = tail[:stop.start()] if stop else tail
    words = [w.lower() for w in _PHRASE_WORD.findall(chunk)]
    return frozenset(stem(w) for w in words if w not in _PHRASE_SKIP)


def two_places(line: str, v: Fraction, question: str, places: Places) -> bool:
    """Do two places where the line writes ``v`` each name a different place where the
    question writes it, by the words up to the next number (each use's best place unique)?"""
    q = question[:MAX_TEXT]
    after = [_phrase_after(q, b) for pv, _, b in places if pv == v]
    if len(after) < 2:
        return False
    best = set()
    for m in NUMERAL.finditer(line[:MAX_TEXT]):
        if numeral_value(m) != v:
            continue
        words = _phrase_after(line, m.end())
        scores = [len(words & p) for p in after]
        top = max(scores)
        if top and scores.count(top) == 1:
            best.add(scores.index(top))
    return len(best) > 1


#: a division that converts a unit: (the divisor's value, the stems of the result's unit,
#: the words a place of that value must have to be the conversion's number). "80 legs / 2 =
#: 40 pairs" divides by the legs of a pair; "120 minutes / 60 = 2 hours" by the minutes of an
#: hour: read from the line's own result, never from the rules' table of named factors
_CONVERSIONS: tuple[tuple[Fraction, frozenset[str], re.Pattern[str]], ...] = (
    (Fraction(2), frozenset({"pair"}), re.compile(r"\bpairs?\b", re.I)),
    (Fraction(60), frozenset({"hour"}), re.compile(r"\bhours?\b|\bhourly\b|\bminutes?\b|\bmph\b", re.I)),
    (Fraction(12), frozenset({"doze"}), re.compile(r"\bdozens?\b", re.I)),
    (Fraction(12), frozenset({"foot", "feet"}), re.compile(r"\binch(?:es)?\b|\bfoot\b|\bfeet\b", re.I)),
    (Fraction(7), frozenset({"week"}), re.compile(r"\bdays?\b|\bweeks?\b|\bweekly\b", re.I)),
    (Fraction(24), frozenset({"day"}), re.compile(r"\bhours?\b|\bdays?\b|\bdaily\b", re.I)),
    (Fraction(3), frozenset({"yard"}), re.compile(r"\bfeet\b|\bfoot\b|\byards?\b", re.I)),
    (Fraction(16), frozenset({"pound"}), re.compile(r"\bounces?\b|\bpounds?\b", re.I)),
)
_SENTENCE_END = re.compile(r"[.?!;](?:\s|$)")


def converted_by_given(defs: Mapping[str, Any], values: Mapping[str, Fraction], givens: set[str], question: str,
                       lines: list[tuple[str, list[Fraction]]], places: Places) -> list[Found]:
    """A given used as a unit conversion's number that its own place never states: "120/60 =
    2 hours" with the 60 bound to "the phone is at 60% charged" (329), "80/2 = 40 pairs of
    legs" with the 2 bound to "10 2-legged animals" (1268). The step's result is in the
    conversion's unit; the sentence of the question that states the given says nothing of
    that unit. The conversion is a named constant of the words (minutes in an hour, legs of a
    pair), never a given of equal value (move the given and the hour would move with it)."""
    out: list[Found] = []
    q = question[:MAX_TEXT]
    for step, expr in defs.items():
        if step in givens or step not in values or getattr(expr, "op", None) != "/":
            continue
        dep = getattr(expr.right, "name", None)
        if dep is None or dep.startswith("k_") or dep not in givens or dep not in values:
            continue  # (a named factor is the conversion)
        v = values[dep]
        convs = [(unit, words) for cv, unit, words in _CONVERSIONS if cv == v]
        if not convs:
            continue
        line = next((prose for prose, results in lines if values[step] in results), None)
        if line is None:
            continue
        unit_words = result_words(line, values[step])
        at = [p for p in places if p[0] == v]
        line_stems = {stem(w) for w in _PHRASE_WORD.findall(line)}
        if any(_phrase_after(q, b) & line_stems for _, _, b in at):
            continue  # "12/2 = 6 pairs of balloons" for "$0.5 for 2 balloons": the place's own noun
        for unit, words in convs:
            if not unit & unit_words or not at:
                continue
            said = [q[_sentence_start(q, a):_sentence_end(q, b)] for _, a, b in at]
            if not any(words.search(s) for s in said):
                out.append((step, v, tuple(sorted(unit)), tuple(s.strip()[:60] for s in said)))
                break
    return out


def _sentence_start(q: str, at: int) -> int:
    ends = [m.end() for m in _SENTENCE_END.finditer(q, 0, at)]
    return ends[-1] if ends else 0


def _sentence_end(q: str, at: int) -> int:
    m = _SENTENCE_END.search(q, at)
    return m.end() if m else len(q)
