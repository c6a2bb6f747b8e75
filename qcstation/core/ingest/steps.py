"""Reasoning steps of a seed, for SMART's single-step filter.

Steps are counted as arithmetic operations, for every source:

* an equation (``X=((12.0+5.0)-8.0)`` is 2): :func:`count_equation_ops`;
* a worked solution: the operations of its ``<<...>>`` calculator annotations, else of
  the computations written as ``expression = number``, at least the number of lines that
  calculate: :func:`steps_from_solution` (``3*(16.50+22.50+42)`` is three, not one line);
* a question whose only two numbers give the answer in one operation (MAWPS AddSub /
  SingleEq): :func:`one_op_on_two_numbers`.

Pure functions on text; the expression parser is the construct rules' bounded one.
"""

from __future__ import annotations

import re
from fractions import Fraction

_EQ_OPS = frozenset("+-*/×÷^")


def count_equation_ops(equation: str) -> int | None:
    """Number of arithmetic operations in an equation string (several equations may be
    separated by ``;`` or newlines). A side that is just a variable or a number (``x =``,
    ``= 14``) is not counted; unary minus is not an operation. ``None`` when nothing
    countable is found."""
    total = 0
    for eq in re.split(r"[;\n]", equation):
        for side in eq.split("="):
            s = side.strip()
            if not s or re.fullmatch(r"[A-Za-z_]\w*|[-+]?\d+(?:\.\d+)?", s):
                continue
            prev = ""
            for ch in s.replace("**", "^"):
                if ch.isspace():
                    continue
                if ch in _EQ_OPS:
                    unary = ch in "+-" and (prev == "" or prev == "(" or prev in _EQ_OPS)
                    if not unary:
                        total += 1
                prev = ch
    return total or None


_NUMERAL = re.compile(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?|(?<![\w.])\.\d+")
_NUMBER_WORDS = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
    r"eighty|ninety|hundred|thousand|million|dozens?|half|halves|twice|thrice|double|triple|"
    r"quarters?|thirds?|fourths?|fifths?|tenths?|pair|couple|single)\b",
    re.IGNORECASE,
)


def one_op_on_two_numbers(question: str, target: Fraction) -> str | None:
    """If the question has exactly two numerals (no number words) and one operation on them
    gives ``target``, return that operation as text."""
    if _NUMBER_WORDS.search(question):
        return None
    nums = _NUMERAL.findall(question)
    if len(nums) != 2:
        return None
    try:
        a, b = (Fraction(n.replace(",", "")) for n in nums)
    except (ValueError, ZeroDivisionError):
        return None
    sa, sb = nums
    candidates = [(a + b, f"{sa} + {sb}"), (a - b, f"{sa} - {sb}"), (b - a, f"{sb} - {sa}"),
                  (a * b, f"{sa} * {sb}")]
    if b:
        candidates.append((a / b, f"{sa} / {sb}"))
    if a:
        candidates.append((b / a, f"{sb} / {sa}"))
    for value, text in candidates:
        if value == target:
            return text
    return None


_CALC = re.compile(r"<<([^<>]*)>>")
# a solution line that calculates: an '=', an operator between numbers / one-letter
# variables, or an operation written in words ("83 plus 91 equals 174")
_CALC_LINE = re.compile(
    r"=|(?:\d|\b[a-zA-Z]\b|\))[\d,.%)]*\s*[-+*/×x÷]\s*\$?\(?(?:\d|\b[a-zA-Z]\b)"
    r"|\b(?:plus|minus|times|divided\s+by|multiplied\s+by|equals)\b",
    re.IGNORECASE,
)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


_TEXT_OPERATOR = re.compile(r"(?<=[\d)\s}])[+*/×÷^](?=[\s\d($\\{])|(?<=[\d)])\s*[-−]\s*(?=[\d($])")


def _operations(expr_text: str) -> int | None:
    """Arithmetic operations in one written computation (``3*(16.50+22.50+42)`` is 3);
    None when it does not parse. A percent sign is not an operation."""
    from qcstation.core.construct.rules import (
        BinOp,
        ExpressionError,
        Neg,
        Num,
        parse_expression,
    )

    if len(expr_text) > 500:
        return None
    try:
        expr = parse_expression(expr_text.replace(",", ""))
    except (ExpressionError, RecursionError, ValueError):
        return None

    def count(e: object) -> int:
        if isinstance(e, BinOp):
            made_up = isinstance(e.right, Num) and not e.right.text  # the /100 of a percent
            return (0 if made_up else 1) + count(e.left) + count(e.right)
        if isinstance(e, Neg):
            return count(e.operand)
        return 0

    return count(expr)


def steps_from_solution(solution: str, *, require_annotations: bool) -> tuple[int | None, str | None, list[str]]:
    """Reasoning steps of a worked solution, counted as arithmetic operations (SMART's
    single-step filter: ``<<3*(16.50+22.50+42)=...>>`` is three operations, not one
    line): the operations of the ``<<...>>`` calculator annotations, else of the
    computations written as ``expression = number``; at least the number of lines that
    calculate (GSM8K leaves some calculations unannotated); with none of these, the
    number of non-empty lines. Returns (steps, rule, annotations)."""
    from qcstation.core.construct.rules import find_inline_computations

    calcs = _CALC.findall(solution)
    if require_annotations and not calcs:
        return None, None, []
    lines = [ln for ln in solution.splitlines() if ln.strip()]
    calc_lines = sum(1 for ln in lines if "<<" in ln or _CALC_LINE.search(ln))
    ops = 0
    counted = "calculator annotation"
    exprs = [c.split("=", 1)[0] for c in calcs]
    if not exprs:
        counted = "written computation"
        exprs = [c.expr_text for c in find_inline_computations(_CALC.sub(" ", solution[:100_000]))]
        exprs = [re.sub(r"[$€£]|[A-Za-z][A-Za-z’'\-]*", " ", e) for e in exprs]
    for e in exprs:
        n = _operations(e)
        ops += n if n is not None else 1
    if not calcs and exprs:
        # free text: computations chained or written in words parse only in part, so
        # every operator written between numbers counts too
        ops = max(ops, len(_TEXT_OPERATOR.findall(_CALC.sub(" ", solution[:100_000]))))
    steps = max(ops, calc_lines) if exprs else calc_lines
    if steps:
        shown = ", ".join(f"<<{c}>>" for c in calcs[:3]) + (", …" if len(calcs) > 3 else "")
        rule = (f"{plural(ops, 'operation')} in {plural(len(exprs), counted)}, "
                f"{plural(calc_lines, 'calculating solution line')}")
        return steps, rule + (f": {shown}" if calcs else ""), calcs
    if lines:
        return len(lines), f"{plural(len(lines), 'solution line')}, no calculations found", calcs
    return None, None, calcs


def free_text_steps(question: str, solution: str) -> tuple[int | None, str | None]:
    """Steps of a seed whose format gave none, from its solution: (steps, rule), or
    (None, None) when the solution shows no countable computation. A free-text rationale
    with one parsed computation and more than two givens is not judged single-step: free
    text reasons in words too."""
    n, rule, _ = steps_from_solution(solution, require_annotations=False)
    if n is None or not rule or " in 0 " in rule or "no calculations found" in rule:
        return None, None
    given = len(re.findall(r"(?<![\w.])\d+(?:[.,]\d+)*", question))
    if n == 1 and "calculator annotation" not in rule and given > 2:
        return None, None
    return n, rule
