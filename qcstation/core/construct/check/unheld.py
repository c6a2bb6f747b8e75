"""One given that steps apart use while the question states its value at another place no
given holds (called by the rules' gate, ``rules.dispatch.check_independently``, which has each
given's place).

The question states a value twice; the binder ties the uses in two different steps to one
place and leaves the other place to no given: "it takes 3 less than 6 potatoes to make 1 less
than 3 scoops" computed as 6-3 and 3-1 with both 3s the "3 scoops" (GSM8K 1141: the "3 less"
is held by nothing; every check of :mod:`.bindings` passes it). One given then stands for two
quantities: a derived item that moves it moves both, and every such item has a wrong answer
(issue 26.1).

Such a binding is refused where a use pairs the given with another given whose place is in the
sentence of the place no given holds and nearer to it than the given's own place (6 - 3 uses the
6 of "3 less than 6"): that use is the unheld place's quantity. A place no use pairs with is left
alone: "Two cars ... after 2 hours" read as 60*2 and 70*2 (805) is right, the "Two cars" is no
use's. Nor is it refused where the place no given holds restates the quantity by its own words:
a definite reference before it ("*the* 500 piece one", 147; "*All* 5 apples Tom started with";
"each of *the* 3 other people", 299; never "the other 3", a complement), or a sentence that
states the place says it is each one's in the place's own clause ("3 other people *each* bid once",
"*both*"; not "8 hours *each* day, and on Friday, he only works from 8am", GSM8K train 1631).
Read from the givens' places, the steps' terms and the question's words alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from qcstation.core.construct.check.terms import names as _names
from qcstation.core.reading.words import MAX_TEXT, fmt_value, question_occurrences

__all__ = ["unheld_places"]

#: words right before a place that refer back to a quantity already named ("the 500", "all 5",
#: "those three")
_DEFINITE = re.compile(r"\b(?:the|all|all\s+the|those|these|its|their|his|her)\s+"
                       r"(?:(?:first|previous|original|initial|same|entire|whole)\s+)?\$?$", re.I)
#: words that make a place each one's (the value said once for every one of a group)
_EACH = re.compile(r"\b(?:each|every|apiece|both)\b", re.I)
_SENTENCE_END = re.compile(r"[.?!;](?:\s|$)")


def unheld_places(steps: Mapping[str, Any], givens: Sequence[Mapping[str, Any]], question: str) -> list[str]:
    """For each given of the question's numbers used by two or more steps, the places of its
    value that no given holds and whose words restate nothing (module docstring). ``steps``:
    each step's name -> its defining term; ``givens``: the rule's givens (``name``, ``value``,
    ``span``: the place each holds)."""
    q = question[:MAX_TEXT]
    held: set[int] = set()
    at: dict[str, tuple[int, Fraction]] = {}
    for g in givens:
        span = g.get("span")
        if isinstance(span, (list, tuple)) and len(span) == 2 and all(isinstance(x, int) for x in span):
            held.add(span[0])
            try:
                at[str(g.get("name"))] = (span[0], Fraction(str(g.get("value"))))
            except (ValueError, ZeroDivisionError):
                continue
    places = [o for o in question_occurrences(q) if o.start >= 0 and not any(w[:1] == "~" for w in o.words)]
    out: list[str] = []
    for name, (own, v) in at.items():
        if name.startswith(("k_", "w_")) or v in (0, 1):
            continue
        uses = [s for s, e in steps.items() if e is not None and name in _names(e)]
        if len(uses) < 2:
            continue
        unheld = [o for o in places if o.value == v and o.start not in held
                  and not any(o.start <= h < o.start + len(o.text.split()[0]) for h in held)]
        loose = [o for o in unheld if not _restates(q, o.start)]
        paired = [(o, u) for o in loose for u in uses if _pairs_with(q, o.start, own, steps[u], name, at)]
        if paired:
            o, u = paired[0]
            out.append(f"{name} ({fmt_value(v)}) is used by {', '.join(uses[:4])}; {u} pairs it with a number "
                       f"beside {_said(q, o.start)!r}, which states {fmt_value(v)} too and no given holds: "
                       "one given for two places")
    return out


def _pairs_with(q: str, unheld: int, own: int, term: Any, name: str, at: Mapping[str, tuple[int, Fraction]]) -> bool:
    """Does the step's term use, beside ``name``, a given whose place is in the sentence of the
    unheld place and nearer to it than ``name``'s own place ("3 less than 6 potatoes" for 6 - 3,
    where the 3 is bound to "3 scoops")? Then that use is the unheld place's quantity."""
    sentence = _sentence_bounds(q, unheld)
    for other in _names(term):
        if other == name or other not in at:
            continue
        p = at[other][0]
        if sentence[0] <= p < sentence[1] and abs(p - unheld) < abs(p - own):
            return True
    return False


def _restates(q: str, start: int) -> bool:
    """Does the place at ``start`` restate a quantity by its words: a definite reference right
    before it, or a sentence that says it is each one's?"""
    if _DEFINITE.search(q[max(0, start - 30):start]):
        return True
    return bool(_EACH.search(_clause(q, start)))


def _sentence_bounds(q: str, start: int) -> tuple[int, int]:
    s = max([m.end() for m in _SENTENCE_END.finditer(q, 0, start)] or [0])
    m = _SENTENCE_END.search(q, start)
    return s, m.end() if m else len(q)


def _clause(q: str, start: int) -> str:
    """The clause of the sentence the place at ``start`` stands in: between the commas, semicolons
    or colons around it. An "each" of another clause says nothing of this place ("works for 8 hours
    each day, and on Friday, he only works from 8am to 11am": GSM8K train 1631)."""
    a, b = _sentence_bounds(q, start)
    cuts = [m.end() for m in _CLAUSE_END.finditer(q, a, start)]
    m = _CLAUSE_END.search(q, start, b)
    return q[max(cuts or [a]):m.start() if m else b]


_CLAUSE_END = re.compile(r"[,;:](?:\s|$)")


def _said(q: str, start: int) -> str:
    return q[max(0, start - 15):start + 25].strip().replace("\n", " ")[:45]
