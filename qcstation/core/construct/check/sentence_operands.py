"""A given stated in digits or as a number word whose step's line names nothing after it, vouched
for by the sentence that states the step's other numbers (:func:`vouched_by_sentence_operands`;
issue 26.1, lane covB).

"On a farm, there are 2 cows, 3 pigs, and 6 goats. The farmer planned on adding 3 cows, 5 pigs,
and 2 goats" / "Currently, the farm has 2 + 3 + 6 = 11 animals": the question states 2 twice, and
the line writes no word after it; but the step's two other numbers, 3 and 6, are both stated in
the sentence of "2 cows" and not both in that of "2 goats": the 2 is the one stated beside them.
Vouched only where the step uses at least two other numbers of the question (givens, no earlier
results, no named constants), exactly one place of the value has a sentence that states every
one of them, and the given is named for that place (``g1_cows``: the word after it), a name no
other place's words share. One other number is no evidence ("100+20" may add a first day's 100
pushups to a second day's 20 more).

Reads only the reading floor, the stored names and the question's words.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from qcstation.core.construct.check.terms import names as _names
from qcstation.core.reading.words import MAX_TEXT, Occurrence, stem

__all__ = ["vouched_by_sentence_operands"]

_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
_GIVEN_NAME = re.compile(r"g\d+_([a-z]+)(?:_[a-z_]*)?")


def _sentence(ends: list[int], at: int) -> tuple[int, int]:
    b = next((e for e in ends if e > at), ends[-1])
    a = max((e for e in ends if e <= at), default=0)
    return a, b


def vouched_by_sentence_operands(given: str, v: Fraction, cands: list[Occurrence], expr: Any,
                                 defs: dict[str, Any], values: dict[str, Fraction], question: str,
                                 occurrences: list[Occurrence], is_given: Callable[[Any], bool]) -> bool:
    """Is ``given`` (of value ``v``, stated at ``cands``) the one place of ``v`` whose sentence states
    every other number its step uses? See the module docstring."""
    m = _GIVEN_NAME.fullmatch(given)
    if m is None or expr is None or not question:
        return False
    slug = stem(m.group(1))
    others = []
    for name in _names(expr):
        if name == given:
            continue
        if name not in defs or not is_given(defs[name]) or name.startswith(("k_", "w_")) or name not in values:
            return False  # an earlier result or a named constant: the step is no list of the question's numbers
        others.append(values[name])
    if len(others) < 2 or v in others:
        return False
    q = question[:MAX_TEXT]
    ends = [e.end() for e in _SENTENCE_END.finditer(q)] + [len(q)]
    places = list({o.start: o for o in cands if o.start >= 0}.values())
    if len(places) < 2 or len(places) != len({o.start for o in cands}):
        return False

    def states_all(o: Occurrence) -> bool:
        a, b = _sentence(ends, o.start)
        here = [w.value for w in occurrences if a <= w.start < b and w.start != o.start]
        return all(here.count(w) >= others.count(w) for w in set(others))

    hits = [o for o in places if states_all(o)]
    if len(hits) != 1:
        return False
    return slug in hits[0].words and not any(slug in o.words for o in places if o is not hits[0])
