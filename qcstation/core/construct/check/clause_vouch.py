"""A given whose line names it with no words of its own, vouched for by the clause words of the
question (called by ``bindings``): the clause that states the step's other operand names what
it is a rate of, and one place of the value names the same (:func:`vouched_by_operand`); the
clause around one place alone shares words with the line (:func:`vouched_by_clause`), for a
word given by its phrase, for a digit by the given's own name.
"""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.construct.check.multipliers import declared_word, multiplies as _multiplies
from qcstation.core.reading.clause_places import clause_choice, operand_clause_choice
from qcstation.core.reading.words import (ANNOTATION, WORD_GIVEN_STEMS, Occurrence, solution_lines, stem,
                                          words_after_value)

__all__ = ["vouched_by_clause", "vouched_by_operand"]


def vouched_by_operand(question: str, cands: list[Occurrence], other: Fraction | None,
                       occurrences: list[Occurrence], line: str, solution: str) -> bool:
    """Is a given the line names with no words tied to one place of its value by the clause of
    the step's other operand, stated at one place (see
    :func:`~qcstation.core.reading.words.operand_clause_choice`)?"""
    if other is None or not question or cands[0].value in (0, 1):
        return False
    at = {o.start: o for o in occurrences if o.value == other and o.start >= 0 and not o.words & WORD_GIVEN_STEMS}
    places = list({o.start: o for o in cands}.values())
    if len(at) != 1 or len(places) < 2 or any(o.start < 0 or o.words & WORD_GIVEN_STEMS for o in places):
        return False
    o = next(iter(at.values()))
    best = operand_clause_choice(question, [p.words for p in places], o.start)
    if best is None:
        return False
    # another line that names the chosen place with its words ("every 2 days is 6 x 2"): this
    # use, which names nothing, may be another place of the value ("two times")
    v = cands[0].value
    for prose, _ in solution_lines(solution):
        if prose.strip() == ANNOTATION.sub(" ", line).strip():
            continue
        if any({stem(w) for w in ws} & places[best].words for ws in words_after_value(prose, v) or []):
            return False
    return True


def vouched_by_clause(given: str, line: str, cands: list[Occurrence], question: str,
                      own_words: frozenset[str] = frozenset()) -> bool:
    """Is a word given the line names with no words tied to its phrase by the clause around it
    (see :func:`~qcstation.core.reading.words.clause_choice`)?"""
    if not question or not given:
        return False
    best = clause_choice(question, [o.start for o in cands], line)
    if best is None:
        return False
    o = cands[best]
    # a word given only ("twice", "half"): a count of things ("two pairs of high heels", "2
    # sons") may multiply or divide as well, so the clause never vouches for a digit (30:
    # "The second pair of heels costs 33 * 2" is "twice as much", not "two pairs")
    if not o.words & WORD_GIVEN_STEMS:
        return _digit_by_clause(given, o, cands, own_words)
    phrase = re.sub(r"[^a-z]+", "_", o.text.lower()).strip("_")
    return given.startswith("w_" + phrase)


def _digit_by_clause(given: str, best: Occurrence, cands: list[Occurrence],
                     own_words: frozenset[str] = frozenset()) -> bool:
    """A digit or number word the clause chose (209: "On Tuesday she bought 4*3" and "Tuesday ...
    bought three times that number of cakes", not "after all three days"), where the given's name
    says it is that place (``g2_times``: the word after it) and no other place of the value is a
    word that multiplies ("twice", "three times"): a count of things may multiply as well, so the
    clause never decides against such a word (30: "33 * 2" is "twice as much", not "two pairs";
    855: "12 * 3" is "three times this many", not "three years")."""
    m = re.fullmatch(r"g\d+_([a-z]+)(?:_[a-z_]*)?", given)
    if m is None or not best.words:
        return False
    slug = stem(m.group(1))
    if slug not in best.words or sum(1 for o in cands if slug in o.words) != 1:
        return False
    # a word that multiplies which the formalization declares as its own given ("w_twice" for 274's
    # "the rosette takes twice as many as the collar") is that given: it is not this digit
    return not any(_multiplies(o) and not declared_word(o, own_words) for o in cands if o is not best)
