"""Key information and a wrong chain of thought re-read against the question and the gold
solution alone, never against the labels a rule wrote with its artifact (evidence, error
records): they can fail where the rule is wrong. :mod:`qcstation.core.construct.check.selfcheck`
turns their findings into flags. (A formalization's givens are re-read by
:mod:`qcstation.core.construct.check.bindings`.)

* :func:`value_leaks`: unknown quantities that show a step's result or the answer.
* :func:`hidden_numbers`: its converse, a '?' that hides a number no step computes.
* :func:`used_irrelevant`: "irrelevant" information whose numbers the solution computes with.
* :func:`stale_edits`: an edited line of a wrong chain of thought that still states the
  value its computation no longer gives.

The words are read on the reading floor (:mod:`qcstation.core.reading.words`); every input is
untrusted text; each reads at most :data:`~qcstation.core.reading.words.MAX_TEXT` characters.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

from qcstation.common.memo import text_memo
from qcstation.core.reading.textnumbers import word_key
from qcstation.core.reading.words import (MAX_TEXT, ANNOTATION, NUMBER_WORD_VALUES, NUMERAL, WORD_GIVEN_STEMS, fmt_value, number_word_matches, numeral_value, numeral_values, question_occurrences, solution_lines, solution_results, stated_with_words)

__all__ = ["hidden_numbers", "stale_edits", "used_irrelevant", "value_leaks"]


_UNIT = (r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|inch(?:es)?|foot|feet|yards?|miles?|"
         r"ounces?|pounds?|cups?|pints?|quarts?|gallons?|dozens?|cents?|dimes?|quarters?|nickels?|pennies)")
#: a conversion between two units, each with its number: "12 inches in 1 foot", "7 days in a
#: week", "12 months of the year", "1 foot is equal to 12 inches", "16 ounces to a pound"
_CONVERSION = re.compile(
    r"(?<![\w.])\d+\s+" + _UNIT + r"\s+(?:(?:is|are)\s+)?(?:in|of|to|per)\s+(?:an?|one|1|the|each)\s+" + _UNIT + r"\b"
    r"|(?<![\w.])(?:1|one|an?)\s+" + _UNIT + r"\s+(?:is|equals|has|makes)\s+(?:equal\s+to\s+)?\d+\s+" + _UNIT + r"\b",
    re.I)


def value_leaks(unknowns: list[Any], question: str, solution: str, gold: Fraction | None) -> list[str]:
    """Unknown-quantity descriptions that show a step's result or the answer: the answer
    anywhere, a result the question does not state, or the result of the solution line the
    description is written from (most words in common) even when the question states the
    same value elsewhere."""
    stated = numeral_values(question) | {o.value for o in question_occurrences(question)}
    lines = solution_lines(solution)
    results = {v for _, r in lines for v in r} - {Fraction(0), Fraction(1)}
    out = []
    line_words = [set(_skeleton(prose)) for prose, _ in lines]
    for u in unknowns:
        text = str(u)[:2000]
        # a given written with the question's words for it shows that given, whatever its value
        # and so does a unit conversion the line states ("12 inches in 1 foot", "7 days in a
        # week", "60 minutes is in an hour", "1 foot is equal to 12 inches"): a constant of the
        # units, no quantity of the story
        conversions = [(c.start(), c.end()) for c in _CONVERSION.finditer(text)]
        shown = {v for m in NUMERAL.finditer(text) if (v := numeral_value(m)) is not None
                 and not stated_with_words(text, m.start(), m.end(), v, question)
                 and not any(a <= m.start() < b for a, b in conversions)}
        own: set[Fraction] = set()
        words = set(_skeleton(text))
        best = max(range(len(lines)), key=lambda k: len(words & line_words[k]), default=None)
        if best is not None and len(words & line_words[best]) >= 3:
            own = set(lines[best][1])
        leak = (shown & ((results - stated) | own)) | ({gold} & shown if gold is not None else set())
        if leak:
            out.append(f"{text[:80]!r} shows " + ", ".join(fmt_value(v) for v in sorted(leak)[:4]))
    return out


def _computed(solution: str) -> set[Fraction]:
    """Every value the solution computes: an annotation's result, a number written after '='
    (in digits or as a counting word)."""
    out = set(solution_results(solution))
    text = solution[:MAX_TEXT]
    for m in re.finditer(r"=\s*[$€£]?\s*(" + NUMERAL.pattern + r")(?!\s*%?\s*[-+*/×÷]\s*[\d$(])", text):
        v = numeral_value(NUMERAL.match(m.group(1)))  # type: ignore[arg-type]
        if v is not None:
            out.add(v)
    return out


def _aligns(chunks: list[str], line: str, ok: Any, pos: int = 0, k: int = 0, depth: int = 0) -> bool:
    """Can ``line`` be read as the ``chunks`` of a description, in order, with what stands
    between them (the text each '?' or step name replaces) passing ``ok``?"""
    if k == len(chunks) or depth > 40:
        return k == len(chunks)
    c = chunks[k].strip()
    last = k == len(chunks) - 1
    if not c:
        return ok(line[pos:]) if last else _aligns(chunks, line, ok, pos, k + 1, depth + 1)
    if k == 0:
        return line.startswith(c) and _aligns(chunks, line, ok, len(c), 1, depth + 1)
    at = line.find(c, pos)
    tries = 0
    while at >= 0 and tries < 12:
        if ok(line[pos:at]) and _aligns(chunks, line, ok, at + len(c), k + 1, depth + 1):
            return True
        at, tries = line.find(c, at + 1), tries + 1
    return False


_SPACES = re.compile(r"\s+")
_LABEL = re.compile(r"^Q\d+:\s*")
_ASKED_FOR = re.compile(r"(?<!\s)\s*\(the value asked for\)$")   # (?<!\s): linear on space runs
_GAP = re.compile(r"\?|\bQ\d+\b")
#: each text before an "=" (from the start of its run only: from inside a run with no "=" after
#: it, the rest of the run was read again from each character, quadratic in a line's length)
_LEFT_OF_EQUALS = re.compile(r"(?<![^=\n])([^=\n]+)=")


@text_memo(maxsize=1024)
def _gap_values(gap: str) -> frozenset[Fraction]:
    """The numbers a piece of a solution line writes, in digits or as number words."""
    return frozenset(numeral_values(gap) | {Fraction(NUMBER_WORD_VALUES[word_key(m.group(1), NUMBER_WORD_VALUES)]) for m in number_word_matches(gap)})


#: the words a relationship rounds with (:func:`~qcstation.core.construct.make.notation_rounding.rounding_words`)
_ROUNDS = re.compile(r"\bwhole number at (?:least|most)\b|\brounded to the nearest whole number\b")


def hidden_numbers(unknowns: list[Any], relations: list[Any], solution: str) -> list[str]:
    """The converse of :func:`value_leaks`: an unknown quantity's '?' (or another step's name,
    Q2) that can only stand where its solution line writes numbers no step of the solution
    computes ("since ? foot is equal to 12 inches": the 1 of a unit reads as an unknown), and a
    relationship that writes a '?' (it defines each Q from the givens and earlier Qs, hiding
    nothing). A description the solution's lines do not contain piece by piece is not judged."""
    computed = _computed(solution)
    if any(_ROUNDS.search(str(r)[:2000]) for r in relations):
        # a relationship that rounds ("Q3 = the least whole number at least Q2"): the whole numbers
        # next to a computed value are what the rounded quantity's '?' may hide (never another)
        computed |= {Fraction(f(v)) for v in computed for f in (math.floor, math.ceil)}
    lines = [_SPACES.sub(" ", ln).strip() for ln in solution[:MAX_TEXT].splitlines() if ln.strip()]

    def hides_a_result(gap: str) -> bool:
        return not _gap_values(gap).isdisjoint(computed)

    out: list[str] = []
    for u in unknowns:
        text = str(u)[:2000]
        body = _ASKED_FOR.sub("", _LABEL.sub("", text))
        chunks = _GAP.split(_SPACES.sub(" ", body))
        if len(chunks) < 2:
            continue
        cut_from = [ln for ln in lines if _aligns(chunks, ln, lambda g: True)]
        if cut_from and not any(_aligns(chunks, ln, hides_a_result) for ln in cut_from):
            out.append(f"{text[:80]!r} hides a number no step computes")
    out += [f"{str(r)[:80]!r} writes '?'" for r in relations if "?" in str(r)]
    return out


def _used_givens(question: str, solution: str) -> set[Fraction]:
    """Numbers of the question the solution computes with (the left sides of its computations)."""
    used: set[Fraction] = set()
    for line in solution[:MAX_TEXT].splitlines():
        anns = ANNOTATION.findall(line)
        lefts = [a.rsplit("=", 1)[0] for a in anns if "=" in a] or \
            [part for part in _LEFT_OF_EQUALS.findall(ANNOTATION.sub(" ", line))]
        for left in lefts:
            used |= numeral_values(left)
    return used & {o.value for o in question_occurrences(question)}


def used_irrelevant(irrelevant: list[Any], question: str, solution: str) -> list[str]:
    """Items listed as irrelevant that state a number the solution computes with."""
    used = _used_givens(question, solution) - {Fraction(0), Fraction(1)}
    out = []
    for item in irrelevant:
        hit = {o.value for o in question_occurrences(str(item)) if not o.words & WORD_GIVEN_STEMS} & used
        if hit:
            out.append(f"{str(item)[:80]!r} states " + ", ".join(fmt_value(v) for v in sorted(hit)[:4])
                       + ", which the solution uses")
    return out


def stale_edits(gt_cot: str, w_cot: str) -> list[str]:
    """Lines of the wrong chain of thought whose computation gives a new result while the line
    still states the old one (the result of the line it replaced)."""
    gt = gt_cot[:MAX_TEXT].splitlines()
    wrong = w_cot[:MAX_TEXT].splitlines()
    by_text = {line.strip() for line in gt}
    gt_words = [(g, _skeleton(g)) for g in gt]
    out = []
    for line in wrong:
        if line.strip() in by_text or "=" not in line:
            continue
        new = _last_result(line)
        if new is None:
            continue
        # the line it was made from: the one of the correct chain with the same words
        words = _skeleton(line)
        old_line = next((g for g, gw in gt_words if gw == words and g.strip() != line.strip()), None)
        if old_line is None:
            continue
        old = _last_result(old_line)
        if old is None or old == new:
            continue
        prose = line.rsplit("=", 1)[0]
        computation = re.split(r"\b(?:because|since|as)\b|:", prose)[-1]
        before = prose[:len(prose) - len(computation)]
        if old in numeral_values(before):
            out.append(f"{line.strip()[:100]!r} still states {fmt_value(old)}, its computation gives "
                       f"{fmt_value(new)}")
    return out


def _last_result(line: str) -> Fraction | None:
    if "=" not in line:
        return None
    tail = line.rsplit("=", 1)[1]
    m = NUMERAL.search(tail.replace("$", ""))
    return numeral_value(m) if m else None


_LETTERS = re.compile(r"[A-Za-z]+")


def _skeleton(line: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in _LETTERS.findall(line))
