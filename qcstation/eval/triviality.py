"""Reasoning: does a model's SMT-LIB formalize the question, or just state its answer?

SMART asks for a formalization "without solving the problem". ACC@Re counts a script correct
only if Z3 gives the gold **and** the answer depends, through asserted relations, on declared
constants equal to the numbers the question states (issue 27.2). A verified script that fails
either test is verdict ``trivial`` (not correct). Two checks, in order:

1. **Meaning**, read from the text (:func:`qcstation.core.verify.meaning.check_meaning`, the
   same check generation applies to model-made references): a script that sets ``answer`` to a
   number (``(assert (= answer 18))``), writes a number the question does not state
   (``(= answer (- 20 2))`` when 20 is not in it, a half-solved ``(* 9 2)``, ``a = 7, b = 5`` for
   a question without them) or never ties ``answer`` to a number of the question is
   ``trivial``. What counts as stated (digits, fractions, LaTeX, percents, number words, and the
   constants the words imply) is documented in that module.
2. **Dependence**, with Z3 (:func:`perturbations`): one number of the question at a time (only
   numbers the script writes, at most :data:`MAX_TRIED`) is moved to value + 1 at every place
   the script writes it, outside a statement that fixes ``answer`` itself, and the script is
   run again. When some move changes the answer (Z3 finds a unique, different value) the script
   depends on the question's numbers; when none does, it is ``trivial``. A move that makes the
   script contradictory (``unsat``) does not count as moving the answer.

The question is the item's own text, so the check needs no reference formalization: a script
is judged against the words it formalizes, never against another script's values.
"""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.verify.meaning import STRUCTURAL, MeaningCheck, check_meaning, stated_numbers

__all__ = ["MAX_TRIED", "meaning", "perturbations"]

MAX_TRIED = 6
_NUM = r"\d{1,30}(?:\.\d{1,30})?"
_LITERAL_RE = re.compile(rf"\(\s*/\s+({_NUM})\s+({_NUM})\s*\)|(?<![\w.])({_NUM})(?![\w.])")
_ANSWER_FIXED_RE = re.compile(
    rf"\(\s*=\s+answer\s+(?:{_NUM}|\(\s*/\s+{_NUM}\s+{_NUM}\s*\)|\(\s*-\s+{_NUM}\s*\))\s*\)"
    rf"|\(\s*=\s+(?:{_NUM}|\(\s*/\s+{_NUM}\s+{_NUM}\s*\)|\(\s*-\s+{_NUM}\s*\))\s+answer\s*\)"
    rf"|\(\s*define-(?:fun\s+answer\s+\(\s*\)|const\s+answer)\s+\w+\s+[^()]*?\)")


def meaning(script: str, question: str) -> MeaningCheck:
    """The shared check of meaning (:func:`qcstation.core.verify.meaning.check_meaning`)."""
    return check_meaning(script, question)


def _value(whole: str | None, num: str | None, den: str | None) -> Fraction | None:
    try:
        if whole is not None:
            return Fraction(whole)
        if num is not None and den is not None and Fraction(den) != 0:
            return Fraction(num) / Fraction(den)
    except (ValueError, ZeroDivisionError):
        return None
    return None


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


def perturbations(script: str, question: str) -> list[str]:
    """The scripts to run, one per number of ``question`` that ``script`` writes (0 and 1 aside;
    at most :data:`MAX_TRIED`, in the script's order), each with that number moved to value + 1
    everywhere the script writes it; empty when the script writes none."""
    stated = stated_numbers(question) - STRUCTURAL
    lits = _literals(script)
    order: list[Fraction] = []
    for _, _, v in lits:
        if v in stated and v not in order:
            order.append(v)
    out: list[str] = []
    for v in order[:MAX_TRIED]:
        spots = [(a, b) for a, b, lv in lits if lv == v]
        text = script
        for a, b in reversed(spots):
            text = text[:a] + _written(v + 1) + text[b:]
        out.append(text)
    return out
