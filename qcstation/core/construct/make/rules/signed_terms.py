"""Which of two earlier results of one value a sum takes away and which it adds, by the words after
each result (used by :func:`.links.resolve_links` after the deciders of money).

"Thus, she initially had 44 balloons, but 10 red ones burst, 6 yellow ones escaped, and she added 6
more blue ones, for a total of 44-10-6+6" (1030): the 6 taken away and the 6 added are two earlier
results, "she then had (1/2)*12 = 6 fewer yellow balloons" and "she added 0.75*8 = 6 blue balloons".
The one whose own line names it a decrease right after its result ("fewer", "less", "lost") is the
number the sum subtracts; the other, named so by nothing, the number it adds. Only a sum or
difference that writes the value exactly twice, once with each sign, whose two candidates are those
two earlier results (no number of the question of that value), exactly one of them named a decrease;
only where one reading is left. Which prose mention comes first on the line decides nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from qcstation.core.construct.make.rules.givens import Givens
from qcstation.core.construct.make.rules.link_structure import (Computation, Readings, _Choices, _keep_decided,
                                                                open_numbers)
from qcstation.core.reading.expr import BinOp, Expr, Num
from qcstation.core.reading.words import stem, words_at

__all__ = ["decide_by_decrease"]

#: the words right after a result that name it a decrease ("= 6 fewer yellow balloons")
_DECREASE = frozenset(stem(w) for w in ("fewer", "less", "lost", "loss"))
_WRITTEN_RESULT = re.compile(r"\s*[$€£]?\s*-?(?:\d[\d,]*(?:\.\d+)?|\.\d+)?")


def _signs(e: Expr) -> list[int] | None:
    """+1 or -1 for each number of one sum or difference (in :func:`leaves`' order); None for any
    other term."""
    out: list[int] = []

    def walk(x: Expr, sign: int, depth: int) -> bool:
        if depth > 50:
            return False
        if isinstance(x, Num):
            out.append(sign)
            return True
        if isinstance(x, BinOp) and x.op in "+-":
            return walk(x.left, sign, depth + 1) and walk(x.right, sign if x.op == "+" else -sign, depth + 1)
        return False

    return out if walk(e, 1, 0) else None


def _named_a_decrease(solution: str, comp: Computation) -> bool:
    end = comp.end
    if comp.source == "annotation":
        m = _WRITTEN_RESULT.match(solution, end)
        end = m.end() if m else end
    return bool(words_at(solution, end, end) & _DECREASE)


def decide_by_decrease(readings: Readings, ch: _Choices, comps: Sequence[Computation], exprs: list[Expr],
                       givens: Givens, solution: str) -> Readings:
    """The number a sum takes away is the earlier result named a decrease, the one it adds the other
    (see the module's docstring)."""
    decided: dict[int, int | None] = {}
    for n, i, k, terms, v in open_numbers(readings, ch, exprs):
        signs = _signs(exprs[i])
        same = [m for m, x in enumerate(terms) if x.value == v]
        steps = [j for j in ch.options[n] if j is not None]
        if signs is None or len(same) != 2 or signs[same[0]] == signs[same[1]] \
                or None in ch.options[n] or len(steps) != 2:
            continue
        named = [_named_a_decrease(solution, comps[j]) for j in steps]
        if named.count(True) != 1:
            continue
        down, up = steps[named.index(True)], steps[named.index(False)]
        decided[n] = down if signs[k] < 0 else up
    return _keep_decided(readings, ch, decided, lambda j: DECREASE_EVIDENCE)


#: the evidence of a link the words of a decrease decide
DECREASE_EVIDENCE = ("the words: of two earlier results of this value, the one its line names a decrease "
                     "(\"fewer\") is the number the sum takes away, the other the number it adds")
