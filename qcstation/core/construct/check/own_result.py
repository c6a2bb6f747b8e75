"""Each step read on its own line, and each operand by its own words (issue 26.1, lane covB).

* :func:`without_result`: a step whose result equals one of its operands writes that value twice on
  its line, once as the operand and once as its result ("There are 50-15-20=15 cat owners", the 15
  families who own 2 dogs and the 15 cat owners left). The words after the result ("cat owners")
  say what the result counts: where they tie the operand to no place, the line is read again with
  the result left out (the check then asks its other evidence). The written result is the number
  right after "=" (a "$" between them) that no operator follows ("= 15 + 3" opens a computation).
  Where the result's words do tie the operand ("10 - 5 = 5 years have passed" for "5 years old"),
  the first reading stands.
* :func:`own_line`: two steps of the same result and the same operands ("15x2 = 30 dogs", "15x2 =
  30 cats") are each read on their own line, in order, never both on the first.
* :func:`place_by_line`: which place of a value a step's line names, for a given two steps use: the
  place whose words the line writes after the value; where the line writes none ("15x2 = 30 cats"),
  the place whose clause alone shares words with the line ("the remaining families own 2 cats
  each"), less the words of the clauses of the step's other numbers that are no place of the
  value ("3*10 = 30 dress shirts" for "3 dress shirts per suit": "dress" is the 3's, not the "10
  dress pants"'); no clause is read for a step that uses two givens of the value ("12 + 12").

Reads only the reading floor.
"""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.reading.clause_places import clause_stems
from qcstation.core.reading.words import (_WORD, ANNOTATION, MAX_TEXT, NUMBER_WORD_VALUES, NUMERAL, Occurrence,
                                          _line_operands, number_word_stems, numeral_value, solution_lines, stem,
                                          step_line, words_after_value)
from qcstation.core.reading.clause_places import CLAUSE_STOP

__all__ = ["crossed_twin", "own_line", "place_by_line", "without_result"]

_AFTER_EQUALS = re.compile(r"=\s*\$?\s*$")
_OPERATOR_NEXT = re.compile(r"\s*(?:[-+*/×÷x]|times\b|plus\b|minus\b)\s*[\d$(.]", re.I)


def without_result(line: str, v: Fraction) -> str:
    """``line`` with the places that are a step's written result ``v`` blanked (see the module
    docstring); the line itself where it writes none."""
    text = line[:MAX_TEXT]
    for m in NUMERAL.finditer(text):
        if numeral_value(m) != v or m.group("den"):
            continue
        if _AFTER_EQUALS.search(text, max(0, m.start() - 8), m.start()) and not _OPERATOR_NEXT.match(text, m.end()):
            text = text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]
    return text


def own_line(solution: str, value: Fraction, operands: list[Fraction], taken: dict[tuple[object, ...], set[int]]
             ) -> int | None:
    """The line of a step (:func:`~qcstation.core.reading.words.step_line`), where an earlier step of
    the same result and the same operands was read on it, the next line that computes that result
    from those operands. ``taken``: the lines given so far, by (result, operands); updated."""
    at = step_line(solution, value, operands)
    key = (value, tuple(sorted(operands)))
    seen = taken.setdefault(key, set())
    if at is not None and at in seen:
        want = sorted(operands)
        text_lines = solution[:MAX_TEXT].splitlines()
        for i, (_, results) in enumerate(solution_lines(solution)):
            if i > at and i not in seen and value in results and i < len(text_lines) \
                    and any(sorted(ops) == want for ops in _line_operands(text_lines[i], value)):
                at = i
                break
    if at is not None:
        seen.add(at)
    return at


def place_by_line(line: str, v: Fraction, cands: list[Occurrence], question: str, others: list[Fraction],
                  occurrences: list[Occurrence], uses: int) -> int | None:
    """Which of the places ``cands`` of ``v`` a step's ``line`` names (see the module docstring);
    ``others``: the values of the step's other givens; ``uses``: how many givens of value ``v`` the
    step uses. None where the words do not tell."""
    stems = {stem(w) for ws in (words_after_value(line, v) or []) for w in ws} - {"$", "%"}
    scores = [len(o.words & stems) for o in cands]
    best = max(scores, default=0)
    if best:
        return scores.index(best) if scores.count(best) == 1 else None
    if stems or uses != 1 or any(o.start < 0 for o in cands):
        return None
    q = question[:MAX_TEXT]
    own = [clause_stems(q, o.start) for o in cands]
    theirs: set[str] = set()
    for o in occurrences:
        if o.value in others and o.start >= 0 and o.value != v:
            clause = clause_stems(q, o.start)
            if clause not in own:  # a clause of the value's own places is evidence, not another number's
                theirs |= clause
    here = {stem(w) for w in _WORD.findall(ANNOTATION.sub(" ", line[:MAX_TEXT]))
            if w.lower() not in CLAUSE_STOP and w.lower() not in NUMBER_WORD_VALUES} - theirs
    scores = [len(c & here) for c in own]
    top = max(scores, default=0)
    if not top or scores.count(top) != 1:
        return None
    return scores.index(top)


def crossed_twin(line: str, v: Fraction, places: list[Occurrence], same: list[str]) -> str | None:
    """Of two or more givens of ``v`` one step uses (``same``, by name), one named for another place
    than the one place ``line`` names ``v`` with (after its number word: "The round trip
    of two miles each ... 2+2" names "Two miles", so ``g3_gallons``, the "2 gallons", is no term of
    it); None where the line names no one place or every given is named for it."""
    if len({o.start for o in places}) < 2:
        return None
    # the line spells the value out with one place's words ("two miles each"): its digits' own words
    # ("3 women + 3 women" for "Three of the women ... three are wearing") may be an elided noun's
    said = number_word_stems(line, v)
    hit = {i for stems in said for i, o in enumerate(places) if stems and (o.words - {"$", "%"}) & stems}
    if len(hit) != 1:
        return None
    place = places[hit.pop()]
    for g in same:
        m = re.fullmatch(r"g\d+_([a-z]+)(?:_[a-z_]*)?", g)
        if m is not None and stem(m.group(1)) not in place.words \
                and any(stem(m.group(1)) in o.words for o in places if o is not place):
            return g
    return None
