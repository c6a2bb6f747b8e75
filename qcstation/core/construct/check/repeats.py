"""One given a step uses more than once where nothing in the words says both uses are the same
quantity (called by :mod:`.bindings`, so the rules refuse it and the audit flags it).

* :func:`repeated_given`: a given multiplied by itself ("2 x 2 = 4 boxes to her mom and
  sister", GSM8K 973: the 2 boxes each and the two people; "3 times 3 = 9 tricycle tires",
  152: the 3 people and the 3 wheels of a tricycle; "5 dance classes 5 days a week so 5*5",
  71) is accepted only where the sentence that states its value says a square or a cube ("a
  square ... 4 feet on each side", "a 4 by 4 grid"); a given added to itself as many times as
  its own value ("3 + 3 + 3 = 9 tires" for the one "3 people" of a tricycle story) only where
  the question states that value at another place too (the count then has its own words) or
  says the quantity is counted again ("twice", "again", "the same", "there and back").
  Move such a given and both of its roles move with it: every derived item that moves it has
  a wrong answer.
* a given added to itself whose value the question states once, beside a term of the sum
  with which it makes a number of the question that no term is ("20 minutes + 15 minutes + 45
  minutes + 20 minutes" for "watches 35 minutes ... the last 20 minutes", GSM8K train 6760:
  the 35 written as 20 + 15, the second 20 no place of the question's 20).
* a given that both divides and multiplies one product ("36/100*100" for "What percentage of
  Boyd's friends are boys?" with "has 100 friends total", GSM8K train 2797: the 100 friends and
  the percent's 100; ``(x / g) * g`` is ``x``): never one quantity, always refused.

Read from the formalization's definitions, the question and nothing else: independent of the
rule that bound the given (a rule that did bind it that way is wrong, whatever the solution says).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from qcstation.core.construct.check.terms import names as _names
from qcstation.core.reading.words import MAX_TEXT

__all__ = ["repeated_given"]

#: where the question writes each number: (value, start, end)
Places = tuple[tuple[Fraction, int, int], ...]
#: as :class:`.bindings.Binding` takes it: (step, value, the solution's words, the question's texts)
Found = tuple[str, Fraction, tuple[str, ...], tuple[str, ...]]

#: words of a sentence that make a number its own other factor: a square's side, a cube's
#: edge, a number times itself; never an area or volume unit ("For every square foot, he needs
#: 24 mosaic tiles" is no square of side 24: GSM8K 714)
_SQUARE_WORDS = re.compile(r"\bsquare[ds]?\b(?!\s+(?:feet|foot|ft|meters?|metres?|inch(?:es)?|yards?|miles?|units?"
                           r"|centimet(?:er|re)s?|kilomet(?:er|re)s?|cm|km|m)\b)|\bcube[sd]?\b"
                           r"|\b(?:each|every|per|all|both|four) sides?\b|\bitself\b", re.I)
#: words that say a quantity is counted again ("2 miles, twice a day": 2 + 2 is the 2 miles twice,
#: its count no given of the question)
_REPEATED = re.compile(r"\b(?:twice|thrice|again|double[ds]?|the same|both|back|round[- ]trip|each way)\b", re.I)
#: words that make one stated number each one's ("each of them ... 2 times"): added once per one
_EACH = re.compile(r"\b(?:each|every|apiece|both|per)\b", re.I)
_SENTENCE_END = re.compile(r"[.?!;](?:\s|$)")
_BY = re.compile(r"^\s*(?:[A-Za-z-]+\s+){0,2}?(?:by|x|×)\s*$", re.I)
_DEPTH = 200


def repeated_given(defs: Mapping[str, Any], values: Mapping[str, Fraction], question: str, places: Places,
                   is_given: Callable[[Any], bool]) -> list[Found]:
    """The steps that use a given twice in one product, or add it to itself as many times as
    its value, with no words of the question saying the uses are one quantity (module
    docstring). ``places``: the question's numbers (value, start, end); ``is_given``: whether
    a definition is a given (a number). Named constants (``k_...``) are the words' own
    quantities and are not read here."""
    q = question[:MAX_TEXT]
    out: list[Found] = []
    for step, expr in defs.items():
        if is_given(expr) or step not in values:
            continue
        for op, terms in _chains(expr):
            counts: dict[str, int] = {}
            for t in terms:
                name = getattr(t, "name", None)
                if type(t).__name__ == "Name" and isinstance(name, str) and not name.startswith("k_") \
                        and name in defs and is_given(defs[name]) and name in values:
                    counts[name] = counts.get(name, 0) + 1
            for name, n in sorted(counts.items()):
                v = values[name]
                if n < 2 or v in (0, 1):
                    continue
                at = [(a, b) for pv, a, b in places if pv == v]
                if op == "*" and not any(_says_square(q, a, b, v, places) for a, b in at):
                    out.append((step, v, ("times", "itself"), tuple(_said(q, a, b) for a, b in at)))
                elif op == "+" and v == n and len(at) < 2 and not _REPEATED.search(q):
                    out.append((step, v, ("plus", "itself"), tuple(_said(q, a, b) for a, b in at)))
                elif op == "+" and len(at) == 1 and (split := _split_place(terms, name, v, values, places)):
                    # "20 minutes + 15 minutes + 45 minutes + 20 minutes" for "She watches 35
                    # minutes ... another 45 minutes ... adding 15 minutes ... the last 20
                    # minutes" (GSM8K train 6760, lane gold8): the solution wrote the question's
                    # 35, which no given holds, as 20 + 15, and both 20s were bound to the one
                    # "last 20 minutes": the second 20 is a part of the 35, not that place
                    out.append((step, v, ("plus", "itself"), (_said(q, at[0][0], at[0][1]), split)))
                elif op == "+" and len(at) >= 2 and _other_place_given(name, v, defs, values, is_given) >= len(at) - 1 \
                        and not any(_EACH.search(_sentence(q, a, b)) for a, b in at):
                    # "3 women + 3 women" as g1 + g1 where the question's other "three are wearing"
                    # is a given of its own (1110): the sum adds the two places, one given stands
                    # for both (move the other place and the total does not move); not where a
                    # sentence of the value says it is each one's ("each of them ... the luge 2
                    # times": 2+2 is Pam's and Fred's, 133)
                    out.append((step, v, ("plus", "itself"), tuple(_said(q, a, b) for a, b in at)))
        for name in sorted(_cancelled(expr)):
            if name.startswith("k_") or name not in defs or not is_given(defs[name]) or name not in values:
                continue
            v = values[name]
            if v in (0, 1):
                continue
            at = [(a, b) for pv, a, b in places if pv == v]
            out.append((step, v, ("both", "dividing", "and", "multiplying"), tuple(_said(q, a, b) for a, b in at)))
    return out


def _cancelled(expr: Any) -> set[str]:
    """The names that both multiply and divide one chain of ``*`` and ``/`` of a term
    ("(x / g) * g"): a chain's numerator and denominator factors, read through nested products
    and quotients; a sum or a negation starts a chain of its own."""
    out: set[str] = set()
    _cancelled_in(expr, 0, out)
    return out


def _chain_factors(e: Any, depth: int, out: set[str]) -> tuple[list[str], list[str]]:
    """For :func:`_cancelled`: a chain's numerator and denominator names; what is cancelled in
    the terms it does not read as factors goes onto ``out`` (a function of the module: a closure
    that calls itself is a reference cycle, which only the cyclic garbage collector frees)."""
    kind = type(e).__name__
    if depth < _DEPTH and kind == "BinOp" and e.op in ("*", "/"):
        ln, ld = _chain_factors(e.left, depth + 1, out)
        rn, rd = _chain_factors(e.right, depth + 1, out)
        return (ln + rn, ld + rd) if e.op == "*" else (ln + rd, ld + rn)
    name = getattr(e, "name", None)
    if kind == "Name" and isinstance(name, str):
        return [name], []
    _cancelled_in(e, depth + 1, out)
    return [], []


def _cancelled_in(e: Any, depth: int, out: set[str]) -> None:
    if depth > _DEPTH:
        return
    kind = type(e).__name__
    if kind == "BinOp" and e.op in ("*", "/"):
        num, den = _chain_factors(e, depth, out)
        out.update(set(num) & set(den))
    elif kind == "BinOp":
        _cancelled_in(e.left, depth + 1, out)
        _cancelled_in(e.right, depth + 1, out)
    elif kind == "Neg":
        _cancelled_in(e.operand, depth + 1, out)


def _split_place(terms: list[Any], name: str, v: Fraction, values: Mapping[str, Fraction],
                 places: Places) -> str:
    """The words of a number of the question that no term's value is and that ``v`` plus another
    term of the sum makes (the solution wrote that number as two parts, one of them bound to
    ``name``'s place), or ""."""
    held = {values[t.name] for t in terms if isinstance(getattr(t, "name", None), str) and t.name in values}
    for t in terms:
        other = getattr(t, "name", None)
        if not isinstance(other, str) or other == name or other not in values:
            continue
        total = v + values[other]
        if total not in held and any(pv == total for pv, _, _ in places):
            return f"{total} written as {v} + {values[other]}"
    return ""


def _other_place_given(name: str, v: Fraction, defs: Mapping[str, Any], values: Mapping[str, Fraction],
                       is_given: Callable[[Any], bool]) -> int:
    """How many givens of value ``v`` other than ``name`` (no named constant) some step uses."""
    used: set[str] = set()
    for e in defs.values():
        if not is_given(e):
            used |= _names(e)
    return sum(1 for g, e in defs.items() if g != name and g in used and is_given(e) and values.get(g) == v
               and not g.startswith("k_"))



def _chains(expr: Any) -> list[tuple[str, list[Any]]]:
    """Every maximal chain of one operator (``*`` or ``+``) in a term, with its operands."""
    out: list[tuple[str, list[Any]]] = []
    _chains_in(expr, None, 0, out)
    return out


def _flat(e: Any, op: str, depth: int) -> list[Any]:
    """The operands of the chain of ``op`` at ``e``
    (a function of the module: a closure that calls itself is a reference cycle, which
    only the cyclic garbage collector frees)."""
    if depth < _DEPTH and type(e).__name__ == "BinOp" and e.op == op:
        return _flat(e.left, op, depth + 1) + _flat(e.right, op, depth + 1)
    return [e]


def _chains_in(e: Any, parent: str | None, depth: int, out: list[tuple[str, list[Any]]]) -> None:
    if depth > _DEPTH:
        return
    kind = type(e).__name__
    if kind == "Neg":
        _chains_in(e.operand, None, depth + 1, out)
        return
    if kind != "BinOp":
        return
    if e.op in ("*", "+") and e.op != parent:
        out.append((e.op, _flat(e, e.op, 0)))
    _chains_in(e.left, e.op, depth + 1, out)
    _chains_in(e.right, e.op, depth + 1, out)


def _sentence(q: str, a: int, b: int) -> str:
    ends = [m.end() for m in _SENTENCE_END.finditer(q, 0, a)]
    m = _SENTENCE_END.search(q, b)
    return q[ends[-1] if ends else 0:m.end() if m else len(q)]


def _says_square(q: str, a: int, b: int, v: Fraction, places: Places) -> bool:
    """Does the sentence that states the value at ``q[a:b]`` say a square or a cube ("a square
    ... 4 feet on each side"), or write it as "4 by 4"/"4 x 4" with itself?"""
    if _SQUARE_WORDS.search(_sentence(q, a, b)):
        return True
    return any(pv == v and (_BY.match(q[b:a2]) or _BY.match(q[b2:a])) for pv, a2, b2 in places
               if (a2, b2) != (a, b))


def _said(q: str, a: int, b: int) -> str:
    return q[max(0, a - 20):b + 25].strip().replace("\n", " ")[:60]
