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
the two would move the other quantity. The noun a line writes right after the value decides
before any count: where it is the noun right after its own given's place and not the other's
("has 9 inpatients" for "if he has 9 inpatients", not "nine hours"), and no line's noun is only
the other place's, the binding is kept; the other way round, it is the words' swap. Read from the question and the solution alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from qcstation.core.reading.words import MAX_TEXT, line_stems, noun_after, nouns_after_value, solution_lines

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
    #: given name -> (the word right after its place, the words right after its value on its line)
    nouns: dict[str, tuple[str | None, frozenset[str]]] = {}
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
        nouns[name] = (noun_after(q, int(span[1])), nouns_after_value(lines[at[0]][0], value))
    out = []
    for i, (g, gv, g_said, g_line) in enumerate(one):
        for h, hv, h_said, h_line in one[i + 1:]:
            if gv != hv or g_said == h_said or uses[g] == uses[h]:
                continue
            by_noun = _noun_reading(nouns[g], nouns[h])
            if by_noun == "kept":
                continue
            if by_noun == "swapped":
                out.append(f"{g} and {h} (both {gv}): each step's line writes the noun of the other's place "
                           f"right after the value ({nouns[g][0]!r}, {nouns[h][0]!r} as bound)")
                continue
            kept = len(g_line & g_said) + len(h_line & h_said)
            swapped = len(g_line & h_said) + len(h_line & g_said)
            if swapped > kept:
                out.append(f"{g} and {h} (both {gv}): each step's line reads as the other's place "
                           f"({swapped} shared words swapped, {kept} as bound)")
    return out


def _noun_reading(g: tuple[str | None, frozenset[str]], h: tuple[str | None, frozenset[str]]) -> str | None:
    """What the nouns the lines write right after the value say of a pair: "kept" where a line's
    noun is its own given's place's and not the other's ("Doctor Jones has 9 inpatients, so his
    rounds will take 9 * 20" for "if he has 9 inpatients", not "nine hours at the clinic": 1001)
    and no line's noun is only the other's; "swapped" the other way round; else None (the two
    places named by one noun, no noun on either line, or lines that disagree)."""
    (g_noun, g_said), (h_noun, h_said) = g, h
    if not g_noun or not h_noun or g_noun == h_noun:
        return None
    own = (g_noun in g_said and h_noun not in g_said) or (h_noun in h_said and g_noun not in h_said)
    other = (h_noun in g_said and g_noun not in g_said) or (g_noun in h_said and h_noun not in h_said)
    if own != other:
        return "kept" if own else "swapped"
    return None
