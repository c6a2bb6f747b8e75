"""Two givens of equal value bound to places the lines' words swap (called by the rules'
gate, ``rules.dispatch.check_independently``, which has each given's place).

The checks of :mod:`.bindings` read a formalization by its values: two givens of equal value
("a raise of $0.50 per hour", "her starting salary is $0.50 more per hour than Billy's") look
the same to them, whichever place each is bound to. Here each given's place is read back from
the question: the sentence that states it, against the solution line of the one step that
uses it. Where the two lines share more words with each other's sentence than with their own
("Billy has a salary of $10+0.50+$1.00" and "Sally is paid $0.50 more per hour than Billy's
initial salary": 799 bound Billy's raise to Sally's sentence and Sally's to Billy's), the
binding is the words' swap: the answer is still right, but a derived item that moves one of
the two would move the other quantity. Read from the question and the solution alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from qcstation.core.reading.words import MAX_TEXT, line_stems, solution_lines

__all__ = ["swapped_places"]

_SENTENCE_END = re.compile(r"[.?!;](?:\s|$)")


def _sentence(q: str, start: int, end: int) -> str:
    s = max([m.end() for m in _SENTENCE_END.finditer(q, 0, start)] or [0])
    m = _SENTENCE_END.search(q, end)
    return q[s:m.end() if m else len(q)]


def swapped_places(givens: Sequence[Mapping[str, Any]], uses: Mapping[str, list[int | None]],
                   question: str, solution: str) -> list[str]:
    """Each pair of givens of equal value, each used by one step on its own line (``uses``:
    given name -> the solution line index of each step that uses it), whose lines' words fit
    the other's sentence better than their own (the sum of shared word stems of each line with
    a sentence, swapped against kept). A pair stated in one sentence, or a tie, is no swap."""
    q = question[:MAX_TEXT]
    lines = solution_lines(solution)
    one: list[tuple[str, Fraction, frozenset[str], frozenset[str]]] = []
    for given in givens:
        name, span = str(given.get("name")), given.get("span")
        at = uses.get(name) or []
        if not span or len(at) != 1 or at[0] is None or not 0 <= at[0] < len(lines):
            continue
        try:
            value = Fraction(str(given.get("value")))
        except (ValueError, ZeroDivisionError):
            continue
        one.append((name, value, line_stems(_sentence(q, int(span[0]), int(span[1]))),
                    line_stems(lines[at[0]][0])))
    out = []
    for i, (g, gv, g_said, g_line) in enumerate(one):
        for h, hv, h_said, h_line in one[i + 1:]:
            if gv != hv or g_said == h_said or uses[g] == uses[h]:
                continue
            kept = len(g_line & g_said) + len(h_line & h_said)
            swapped = len(g_line & h_said) + len(h_line & g_said)
            if swapped > kept:
                out.append(f"{g} and {h} (both {gv}): each step's line reads as the other's place "
                           f"({swapped} shared words swapped, {kept} as bound)")
    return out
