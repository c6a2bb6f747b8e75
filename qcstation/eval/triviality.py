"""Reasoning: does a model's SMT-LIB compute its ``answer`` from the givens, or just state it?

SMART asks for a formalization "without solving the problem". A script such as
``(assert (= answer 18))`` verifies to the gold answer without formalizing anything; it is
verdict ``trivial`` (not correct). The check is semantic, with Z3, not a pattern:

1. The *givens* are the quantities the item's reference formalization asserts as numbers
   (``(assert (= g1 60))``, ``(assert (= g2 (/ 3 2)))``), by value.
2. The model's script declares its own constants, so givens are found in it by value: every
   numeral (``16``, ``16.0``, ``1.5``, ``(/ 3 2)``) equal to a given. Numerals inside a
   statement that fixes ``answer`` itself (``(= answer 18)``, ``(= 18 answer)``,
   ``(define-fun answer () Int 18)``) are not givens: they are the answer.
3. One given at a time is moved to value + 1 (all its occurrences), and the script is run
   again. When some given moves the answer (Z3 finds a unique, different value), the
   script depends on the givens. When no given occurs, or none moves the answer (at most
   :data:`MAX_TRIED` tried), the script is ``trivial``.

A changed given that makes the script contradictory (``unsat``) does not count as moving
the answer: a script that re-asserts the answer as a number besides computing it still
depends on nothing but that number.
"""

from __future__ import annotations

import re
from fractions import Fraction

MAX_TRIED = 6
_NUM = r"\d{1,30}(?:\.\d{1,30})?"
_GIVEN_RE = re.compile(rf"\(\s*assert\s+\(\s*=\s+[^\s()]+\s+(?:({_NUM})|\(\s*/\s+({_NUM})\s+({_NUM})\s*\))\s*\)\s*\)")
_LITERAL_RE = re.compile(rf"\(\s*/\s+({_NUM})\s+({_NUM})\s*\)|(?<![\w.])({_NUM})(?![\w.])")
_ANSWER_FIXED_RE = re.compile(
    rf"\(\s*=\s+answer\s+(?:{_NUM}|\(\s*/\s+{_NUM}\s+{_NUM}\s*\)|\(\s*-\s+{_NUM}\s*\))\s*\)"
    rf"|\(\s*=\s+(?:{_NUM}|\(\s*/\s+{_NUM}\s+{_NUM}\s*\)|\(\s*-\s+{_NUM}\s*\))\s+answer\s*\)"
    rf"|\(\s*define-(?:fun\s+answer\s+\(\s*\)|const\s+answer)\s+\w+\s+[^()]*?\)")


def _value(whole: str | None, num: str | None, den: str | None) -> Fraction | None:
    try:
        if whole is not None:
            return Fraction(whole)
        if num is not None and den is not None and Fraction(den) != 0:
            return Fraction(num) / Fraction(den)
    except (ValueError, ZeroDivisionError):
        return None
    return None


def givens(reference: str | None) -> list[Fraction]:
    """The values the reference formalization asserts as given numbers, in order, once each."""
    out: list[Fraction] = []
    for m in _GIVEN_RE.finditer(reference or ""):
        v = _value(m.group(1), m.group(2), m.group(3))
        if v is not None and v not in out:
            out.append(v)
    return out


def _literals(script: str) -> list[tuple[int, int, Fraction]]:
    fixed = [(m.start(), m.end()) for m in _ANSWER_FIXED_RE.finditer(script)]
    out = []
    for m in _LITERAL_RE.finditer(script):
        if any(a <= m.start() < b for a, b in fixed):
            continue
        v = _value(m.group(3), m.group(1), m.group(2))
        if v is not None:
            out.append((m.start(), m.end(), v))
    return out


def _written(v: Fraction) -> str:
    if v.denominator == 1:
        return str(v.numerator) if v >= 0 else f"(- {-v.numerator})"
    return f"(/ {v.numerator} {v.denominator})"


def perturbations(script: str, reference: str | None) -> list[str] | None:
    """The scripts to run, one per given found in ``script`` (at most :data:`MAX_TRIED`),
    each with that given moved to value + 1; ``None`` when the reference names no given
    (nothing to check against)."""
    values = givens(reference)
    if not values:
        return None
    lits = _literals(script)
    out: list[str] = []
    for v in values:
        spots = [(a, b) for a, b, lv in lits if lv == v]
        if not spots:
            continue
        new = _written(v + 1)
        text = script
        for a, b in reversed(spots):
            text = text[:a] + new + text[b:]
        out.append(text)
        if len(out) >= MAX_TRIED:
            break
    return out
