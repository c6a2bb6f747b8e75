"""A number a rule-made formalization writes as a bare literal where the question states it at a
place no given holds (issue 26.2): the hard flag ``stated-literal``.

A rule-made formalization stores each given with the place of the question it stands for
(``span``). Read here with nothing of the rules but those stored places: every number the
question writes (digits, "$1.00", "1/2", and the number words one to twenty) is a place; a
step's definition that writes a number (a literal, not a name) of the value of a place no
given's span covers writes a stated quantity unbound ("1 cup of dog food every day" ...
``(* g1_days 1)``; the avocado's "$1.00" written as ``1`` beside the cheese's given): a derived
item that moves that place moves nothing, and a reader cannot tell which quantity it is.

Only a formalization that stores its givens' places is read (a model's stores none: its
literals are the ``step-literal`` soft flag). The 1 of a percent or fraction change ("25%
more": ``(+ 1 g3_pct)``; "the rest": ``(- 1 g2)``) is the whole, no quantity of the question,
and is not read. 0 is never read.

Pure text reading with limits; no rule code imported."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from qcstation.common.memo import LastAnswers, Unkeyed, plain_key, term_shape
from qcstation.core.reading.answers import decimal_fraction

__all__ = ["stated_literals"]

MAX_TEXT = 20_000

_DIGITS = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:\s*/\s*(\d+)(?![\d.]))?")
_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                                     "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split())}
_WORD_RE = re.compile(r"\b(" + "|".join(sorted(_WORDS, key=len, reverse=True)) + r")\b(?!-(?:thirds?|quarters?|"
                      r"fourths?|fifths?|halves|half))", re.I)


def _places(question: str) -> list[tuple[int, int, Fraction]]:
    """(start, end, value) of every number the question writes."""
    q = question[:MAX_TEXT]
    out = []
    for m in _DIGITS.finditer(q):
        try:
            v = decimal_fraction(m.group(1).replace(",", ""))
            if m.group(2):
                if not int(m.group(2)):
                    continue
                v /= int(m.group(2))
        except (ValueError, ZeroDivisionError):
            continue
        out.append((m.start(), m.end(), v))
    for m in _WORD_RE.finditer(q):
        out.append((m.start(), m.end(), Fraction(_WORDS[m.group(1).casefold()])))
    return out


def _kind(e: Any) -> str:
    return type(e).__name__


def _literals(expr: Any, whole_ok: set[str], depth: int = 0) -> list[Fraction]:
    """The numbers a term writes, less the 1 of a change by a percent or fraction given."""
    if depth > 200:
        return []
    k = _kind(expr)
    if k == "Num":
        return [expr.value]
    if k == "Neg":
        return _literals(expr.operand, whole_ok, depth + 1)
    if k == "Call":  # a rounding (reading.expr.Call): the numbers of what it rounds
        return _literals(expr.arg, whole_ok, depth + 1)
    if k != "BinOp":
        return []
    left, right = expr.left, expr.right
    if expr.op in "+-":
        if _kind(left) == "Num" and left.value == 1 and _kind(right) == "Name" and right.name in whole_ok:
            return _literals(right, whole_ok, depth + 1)
        if _kind(right) == "Num" and right.value == 1 and _kind(left) == "Name" and left.name in whole_ok:
            return _literals(left, whole_ok, depth + 1)
    return _literals(left, whole_ok, depth + 1) + _literals(right, whole_ok, depth + 1)


def _is_given(expr: Any) -> bool:
    k = _kind(expr)
    if k == "Num":
        return True
    if k == "Neg":
        return _kind(expr.operand) == "Num"
    return k == "BinOp" and expr.op == "/" and _kind(expr.left) == "Num" and _kind(expr.right) == "Num"


def stated_literals(defs: Mapping[str, Any], givens: Sequence[Mapping[str, Any]], question: str) -> list[str]:
    """One message per step that writes, as a literal, a number the question states at a place
    no stored given covers (see the module docstring); [] when the givens store no places.

    The rules ask this of a formalization (from its steps) and the make-time audit asks it again
    (read back from its SMT-LIB): the answer is kept for the last formalizations by
    :func:`_literals_key`, which keeps exactly what it reads."""
    try:
        key = _literals_key(defs, givens, question)
    except (Unkeyed, TypeError):
        return _stated_literals(defs, givens, question)
    hit = _STATED.get(key)
    if hit is None:
        hit = tuple(_stated_literals(defs, givens, question))
        _STATED.put(key, hit)
    return list(hit)


#: the last answers of :func:`stated_literals`
_STATED = LastAnswers(64)


def _literals_key(defs: Mapping[str, Any], givens: Sequence[Mapping[str, Any]], question: str) -> tuple[Any, ...]:
    """What :func:`_stated_literals` reads, and nothing else: each given's name, place, kind and
    value; the definitions that are no given's (in order), by shape (a number's written text is
    never read), less those that only name another (``answer = s4``: no literal). :class:`Unkeyed`
    for anything else."""
    gkey, names = [], set()
    for g in givens:
        if type(g) is not dict:
            raise Unkeyed
        gkey.append((plain_key(g.get("name")), plain_key(g.get("span")), plain_key(g.get("kind")),
                     "value" in g, plain_key(g.get("value"))))
        names.add(str(g.get("name")))
    steps = tuple((plain_key(name), term_shape(expr)) for name, expr in defs.items()
                  if not _is_given(expr) and name not in names and _kind(expr) != "Name")
    return question, tuple(gkey), steps


def _stated_literals(defs: Mapping[str, Any], givens: Sequence[Mapping[str, Any]], question: str) -> list[str]:
    spans = []
    for g in givens:
        sp = g.get("span") if isinstance(g, Mapping) else None
        if isinstance(sp, list) and len(sp) == 2 and all(isinstance(x, int) for x in sp):
            spans.append((sp[0], sp[1]))
    if not spans:
        return []
    whole_ok = {str(g.get("name")) for g in givens
                if str(g.get("kind")) in ("percent", "fraction")
                or _fraction_below_one(str(g.get("value", "")))}
    free: dict[Fraction, list[str]] = {}
    for a, b, v in _places(question):
        if v and not any(s < b and a < e for s, e in spans):
            free.setdefault(v, []).append(re.split(r"[.!?,;](?:\s|$)", question[a:b + 20])[0].strip()[:30])
    out = []
    for name, expr in defs.items():
        if _is_given(expr) or name in {str(g.get("name")) for g in givens}:
            continue
        for v in dict.fromkeys(_literals(expr, whole_ok)):
            if v in free:
                shown = str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
                out.append(f"{name} writes {shown}, which the question states at "
                           + ", ".join(repr(p) for p in free[v][:3]) + " where no given is tied")
    return out


def _fraction_below_one(value: str) -> bool:
    try:
        return 0 < decimal_fraction(value) < 1
    except (ValueError, ZeroDivisionError):
        return False
