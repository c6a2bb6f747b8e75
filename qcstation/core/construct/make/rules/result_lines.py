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

from qcstation.core.construct.make.rules.givens import Givens
from qcstation.core.construct.make.rules.link_structure import (Computation, Readings, _Choices, _keep_decided,
                                                                _line_at, _term_times)
from qcstation.core.reading.expr import Expr, leaves


def decide_results_by_line(readings: Readings, ch: _Choices, comps: Sequence[Computation], exprs: list[Expr],
                           givens: Givens, solution: str) -> Readings:
    """For a number the question cannot state (its options are earlier results only), written once
    in its step's term and once in its line: the earlier result whose line alone writes words the
    step's line writes (:func:`.clause_words.result_or_given`). Only where one reading is left."""
    from qcstation.core.construct.make.rules.clause_words import result_or_given

    open_keys = [n for n in range(len(ch.keys)) if len({r[0][n] for r in readings.values()}) > 1]
    decided: dict[int, int | None] = {}
    for n in open_keys:
        i, k = ch.keys[n]
        steps = ch.options[n]
        if None in steps or len(steps) < 2:
            continue
        terms = leaves(exprs[i])
        v = terms[k].value
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
