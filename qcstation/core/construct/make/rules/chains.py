"""Computations the inline reader leaves, read only on a second reading of a solution whose
first reading left a number of the question unused or its answer unproduced: a chain of
equal terms the solution writes in one line ("Harry:5+2(3)=5+6=11 trees", 264), read as its
first term (the one written with the question's numbers and the earlier results), and a
computation whose written result is a fraction ("1 - (1/3) = 2/3", 428; the inline reader
stops before a result's "/"), and a computation whose operands' words run past the inline
reader's three ("160 used pieces of straw – 70 pieces of straw for the hamsters and rabbits = 90",
187; letters only: words that write a number are no operand's). Each is kept only where every
term of the chain evaluates exactly to the written result
(:func:`~qcstation.core.reading.inline.parse_visible`); a chain whose terms differ ("4 x 3 = 12
+ 2 = 14", a running total) is not one computation and is not read here.

A unit's abbreviation glued to a number ("60g * 4/5 = 240g/5", 44) is blanked there. A fraction
such a line writes as its result is one number where a later step writes it
(:func:`protect_chain_fractions`); the 1 of "1 - (1/3) = 2/3" with the question's fraction is the
whole that fraction is of (:func:`whole_less_fraction`), refused where the question states a 1
of its own; and a fraction written in other numbers on a line that names the question's fraction
("has 1/10 nongendered children so 10/100 * 30", 319) is that fraction (:func:`restated_fractions`).
A computation whose first operand is a negative earlier result, written right after the "=" of the
line's naming of it ("Increase 3 degrees = -6 + 3 = -3 degrees", 1114), is read with that operand
one number (-6), so that it may be that result (the inline reader starts at no minus sign)."""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.reading.expr import BinOp, Expr, Neg, Num
from qcstation.core.reading.inline import (EXPR_TXT, NUM_TXT, equals_signs, find_inline_computations,
                                          matches_before_an_end, parse_visible)
from qcstation.core.construct.make.rules.result import RuleError

__all__ = ["chained_computations", "protect_chain_fractions", "restated_fractions", "whole_less_fraction"]

_RESULT = rf"[$€£]?\s*{NUM_TXT}(?:\s*/\s*\d+(?!\d|\.\d))?(?:\s*%)?"
_TERM = rf"(?:{EXPR_TXT}|{_RESULT})"
_START = r"(?<![\w.,$/^*+\-×÷−–=])"
# a chain's last "=": its result, followed by no more of a number and no operation
_CHAIN_END = rf"\s*=\s*(?P<res>{_RESULT})(?![\d.,]*\d|\s*/\s*\d|\s*[-+*/×÷−–]\s*[\d(.$])"
_CHAIN_RE = re.compile(rf"{_START}(?P<expr>{EXPR_TXT})(?P<rest>(?:\s*=\s*{_TERM})*?){_CHAIN_END}")
# (tried only where it can match, :func:`~qcstation.core.reading.inline.matches_before_an_end`:
# from each operand of a chain with no end the regex read the rest of the chain again, quadratic)
_CHAIN_HEAD = re.compile(rf"{_START}{EXPR_TXT}(?=\s*=)")
_CHAIN_ENDS_AT = re.compile(_CHAIN_END)
_CHAIN_STEP = re.compile(rf"\s*=\s*{_TERM}(?=\s*=)")
# an operand whose words run past the inline reader's three ("160 used pieces of straw – 70 pieces
# of straw for the hamsters and rabbits = 90", 187): letters only, so never past a sentence's end
# (at most 64 operations, as the inline reader's: read from each operand, an unbounded chain with
# no "=" after it was read again from each, quadratic in the line)
_LONG_OPERAND = rf"[$€£]?{NUM_TXT}(?:\s+[A-Za-z][A-Za-z’'\-]*){{0,8}}"
_LONG_EXPR = rf"{_LONG_OPERAND}(?:\s*(?:[-+*/×÷−–]|(?<=\s)x(?=\s))\s*{_LONG_OPERAND}){{1,64}}"
_LONG_END = rf"\s*=\s*(?P<res>[$€£]?\s*{NUM_TXT})(?![\d.,]*\d|\s*/\s*\d)"
_LONG_RE = re.compile(rf"{_START}(?P<expr>{_LONG_EXPR}){_LONG_END}")
_LONG_HEAD = re.compile(rf"{_START}{_LONG_EXPR}(?=\s*=)")
_LONG_ENDS_AT = re.compile(_LONG_END)
# a computation from a negative earlier result, written after the '=' of the line's naming of it
# ("Increase 3 degrees = -6 + 3 = -3 degrees", 1114): the inline reader starts at no minus sign
_NEGATIVE_START_RE = re.compile(
    rf"(?<==)\s*(?P<expr>-\s*{NUM_TXT}(?:\s+[A-Za-z]+)?\s*[-+]\s*{NUM_TXT}(?:\s+[A-Za-z]+)?)"
    rf"\s*=\s*(?P<res>-?\s*{NUM_TXT})(?![\d.,]*\d|\s*/\s*\d|\s*[-+*/×÷−–]\s*[\d(.$])")
# a unit's abbreviation glued to its number ("300g", "140cm"): blanked where a chain is read
_GLUED_UNIT = re.compile(r"(?<=\d)(?:g|kg|mg|cm|mm|km|ml|lbs?|oz|ft)\b")
_EQ_SPLIT = re.compile(r"\s*=\s*")
_FRACTION_RES = re.compile(r"\d\s*/\s*\d")


def chained_computations(masked: str) -> list[tuple[int, int, str, str, Expr, Fraction, Fraction]]:
    """(start, end, raw, first term, parsed term, value, written result) of each chain of equal
    terms or computation with a fraction result in ``masked`` (the solution with its
    annotations and their results blanked, so offsets are the solution's); only a chain of two
    or more '=' or a fraction result: a plain ``expression = number`` is the inline reader's."""
    out = []
    for line_m in re.finditer(r"[^\n]+", masked[:100_000]):
        line, at = line_m.group(0), line_m.start()
        if "=" not in line:
            continue
        shown, line = line, _GLUED_UNIT.sub(lambda u: " " * len(u.group(0)), line)  # "60g * 4/5": 60 grams
        for m in matches_before_an_end(line, _CHAIN_RE, _CHAIN_HEAD, _chain_ends(line)):
            rest = [t for t in _EQ_SPLIT.split(m.group("rest")) if t.strip()]
            res = m.group("res").replace(" ", "")
            if not rest and not _FRACTION_RES.search(res):
                continue
            parsed = parse_visible(m.group("expr"), res)
            if parsed is None or any(parse_visible(t, res) is None and not _same_number(t, parsed[1])
                                     for t in rest):
                continue
            expr, value, written = parsed
            out.append((at + m.start("expr"), at + m.end("res"), shown[m.start():m.end()], m.group("expr").strip(),
                        expr, value, written))
        plain = [(c.expr_start, c.result_end) for c in find_inline_computations(line)]
        for m in _NEGATIVE_START_RE.finditer(line):
            if any(s < at + m.end() and at + m.start("expr") < e for s, e, *_ in out) \
                    or (parsed := parse_visible(m.group("expr"), m.group("res").replace(" ", ""))) is None:
                continue
            expr, value, written = parsed
            if isinstance(expr, BinOp) and isinstance(expr.left, Neg) and isinstance(expr.left.operand, Num):
                # the first operand is one number, the earlier result written with its sign
                first = expr.left.operand
                expr = BinOp(expr.op, Num(-first.value, "-" + first.text), expr.right)
            out.append((at + m.start("expr"), at + m.end("res"), shown[m.start("expr"):m.end()],
                        m.group("expr").strip(), expr, value, written))
        for m in matches_before_an_end(line, _LONG_RE, _LONG_HEAD, _long_ends(line)):
            if any(s < at + m.end() and at + m.start() < e for s, e, *_ in out) \
                    or any(s < m.end() and m.start() < e for s, e in plain) \
                    or (parsed := parse_visible(m.group("expr"), m.group("res"))) is None:
                continue
            expr, value, written = parsed
            out.append((at + m.start("expr"), at + m.end("res"), shown[m.start():m.end()], m.group("expr").strip(),
                        expr, value, written))
    return sorted(out)


def _chain_ends(line: str) -> set[int]:
    """The "="s of ``line`` from which :data:`_CHAIN_RE`'s rest goes on to its end: one whose
    result ends the chain, or that a term follows up to the next such "=" (its lazy rest, read
    once from the right for every "=" instead of again from each operand before it)."""
    eqs = equals_signs(line)
    ok: set[int] = set()
    for j in range(len(eqs) - 1, -1, -1):
        e = eqs[j]
        if _CHAIN_ENDS_AT.match(line, e) or (j + 1 < len(eqs) and eqs[j + 1] in ok and _CHAIN_STEP.match(line, e)):
            ok.add(e)
    return ok


def _long_ends(line: str) -> set[int]:
    return {e for e in equals_signs(line) if _LONG_ENDS_AT.match(line, e)}


def _same_number(term: str, value: Fraction) -> bool:
    """A middle term that is a number itself ("= 25 cars = ..."), equal to the chain's value."""
    text = re.sub(r"[$€£%\s]|[A-Za-z]+", "", term).replace(",", "")
    try:
        return Fraction(text) == value
    except (ValueError, ZeroDivisionError):
        return False


_FRACTION_AT_END = re.compile(r"(?<!\d)(\d+)\s*/\s*(\d+)\s*$")   # (?<!\d): linear on digit runs


def protect_chain_fractions(starts: list[int], raws: list[str | None], exprs: list[Expr]) -> list[Expr]:
    """A fraction a later step writes ("100 / (2/3)", "2 * 1/20") that an earlier chain's line
    wrote as its result ("1 - (1/3) = 2/3"; ``raws[j]`` that line's text, None for any other
    computation) is one number, so that it may be that result (:mod:`.links`), as a fraction
    the question states is one given (:func:`~.givens.protect_fractions`)."""
    written = [(starts[j], m.group(1), m.group(2)) for j, raw in enumerate(raws)
               if raw is not None and (m := _FRACTION_AT_END.search(raw))]
    if not written:
        return exprs

    def frac(a: Num, b: Num, at: int) -> Num | None:
        if b.value and any(s < at and (a.text, b.text) == (n, d) for s, n, d in written):
            return Num(a.value / b.value, f"{a.text}/{b.text}")
        return None

    def walk(e: Expr, at: int) -> Expr:
        if isinstance(e, Neg):
            return Neg(walk(e.operand, at))
        if not isinstance(e, BinOp):
            return e
        if e.op == "/" and isinstance(e.right, Num):
            if isinstance(e.left, Num) and (f := frac(e.left, e.right, at)) is not None:
                return f
            if isinstance(e.left, BinOp) and e.left.op == "*" and isinstance(e.left.right, Num) \
                    and (f := frac(e.left.right, e.right, at)) is not None:
                return BinOp("*", walk(e.left.left, at), f)  # "2 * 1/20": 2 times the 1/20
        return BinOp(e.op, walk(e.left, at), walk(e.right, at))

    return [walk(e, at) for e, at in zip(exprs, starts)]


def whole_less_fraction(exprs: list[Expr], chain: list[bool], stated: frozenset[tuple[str, str]],
                        states_one: bool) -> list[Expr]:
    """A chain line's "1 - (1/3) = 2/3" (``chain[i]``) whose fraction is one the question states
    (``stated``: its (numerator, denominator) texts): the 1 is the whole that fraction is of, the
    rest of the share written as :mod:`.complements` writes it (``(- 1 w_...)``), only where the
    question states no 1: where it does (``states_one``), the binder would tie the 1 to that
    place by its value alone ("He keeps 1/3 of them in 1 box": the box), so the reading is
    refused (:class:`RuleError`); any other 1 stays for :mod:`.ones` to bind by its words."""
    def rest(e: Expr) -> Expr:
        if isinstance(e, BinOp) and e.op == "-" and isinstance(e.left, Num) and e.left.value == 1 \
                and e.left.text == "1" and isinstance(e.right, Num) \
                and tuple(e.right.text.replace(" ", "").split("/")) in stated:
            if states_one:
                raise RuleError(f"the 1 of '1 - {e.right.text}' may be the whole {e.right.text} is of or "
                                "the 1 the question states: no words tell", "Ambiguous binding")
            return BinOp("-", Num(Fraction(1), ""), e.right)
        return e

    return [rest(e) if is_chain else e for e, is_chain in zip(exprs, chain)]


def restated_fractions(exprs: list[Expr], lines: list[str], stated: frozenset[tuple[str, str]]) -> list[Expr]:
    """A fraction a step writes in other numbers ("10/100 * 30") equal to a fraction the question
    states (``stated``: "1/10 as many nongendered children") that the step's own line writes too
    ("The classroom has 1/10 nongendered children so 10/100 * 30", 319): the line says which
    quantity it is, so it is that fraction (one given, :func:`~.givens.protect_fractions`); a
    line that does not write the question's fraction keeps its numbers."""
    def walk(e: Expr, named: list[tuple[str, str]]) -> Expr:
        if isinstance(e, Neg):
            return Neg(walk(e.operand, named))
        if not isinstance(e, BinOp):
            return e
        if e.op == "/" and isinstance(e.left, Num) and isinstance(e.right, Num) and e.right.value:
            value = e.left.value / e.right.value
            same = [(n, d) for n, d in named if Fraction(int(n), int(d)) == value]
            if len(same) == 1 and (e.left.text, e.right.text) != same[0]:
                return Num(value, f"{same[0][0]}/{same[0][1]}")
        return BinOp(e.op, walk(e.left, named), walk(e.right, named))

    out = []
    for e, line in zip(exprs, lines):
        named = [(n, d) for n, d in stated if n.isdigit() and d.isdigit() and int(d)
                 and re.search(rf"(?<![\d.]){n}/{d}(?![\d.])", line)]
        out.append(walk(e, named) if named else e)
    return out
