"""Reasoning steps of a seed, for SMART's single-step filter.

Steps are counted as arithmetic operations, for every source:

* an equation (``X=((12.0+5.0)-8.0)`` is 2): :func:`count_equation_ops`;
* a worked solution: the operations of its ``<<...>>`` calculator annotations, else of
  the computations written as ``expression = number``, at least the number of lines that
  calculate: :func:`steps_from_solution` (``3*(16.50+22.50+42)`` is three, not one line);
* a question whose only two numbers give the answer in one operation (MAWPS AddSub /
  SingleEq): :func:`one_op_on_two_numbers`.

Pure functions on text; the expression parser and the computations written in running
text are the reading floor's (``qcstation.core.reading.expr``, ``.inline``).
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction
from types import ModuleType

_EQ_OPS = frozenset("+-*/×÷^")


def count_equation_ops(equation: str) -> int | None:
    """Number of arithmetic operations in an equation string (several equations may be
    separated by ``;`` or newlines). A side that is just a variable or a number (``x =``,
    ``= 14``) is not counted; unary minus is not an operation. An equation that writes a
    number but no operation (``8.0``, ``x = 8``) has 0: it states the answer. ``None``
    when nothing countable is found."""
    total = 0
    numbers = False
    for eq in re.split(r"[;\n]", equation):
        for side in eq.split("="):
            s = side.strip()
            numbers = numbers or any(c.isdigit() for c in s)
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
    return total if total or numbers else None


def equation_steps(equation: str) -> tuple[int, str] | None:
    """(steps, rule) read from an equation field, or None when it has nothing to count."""
    n = count_equation_ops(equation)
    if n is None:
        return None
    if n == 0:
        return 0, f"no operation in equation {equation!r}: it states the answer"
    return n, f"{plural(n, 'operation')} in equation {equation!r}"


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
# variables, or an operation written in words ("83 plus 91 equals 174"). Only whether it
# finds one counts: a number is read from the start of its run of digits , . % ) (its first
# digit or ")"), never again from inside it, where it read the rest of the run each time
# (quadratic in a line of "))))" or "1.1.1."); a later start in a run finds nothing the
# run's start does not.
_CALC_LINE = re.compile(
    r"=|(?:(?<![\d,.%)])[,.%]*(?:\d|\))|\b[a-zA-Z]\b)[\d,.%)]*\s*[-+*/×x÷]\s*\$?\(?(?:\d|\b[a-zA-Z]\b)"
    r"|\b(?:plus|minus|times|divided\s+by|multiplied\s+by|equals)\b",
    re.IGNORECASE,
)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


_TEXT_OPERATOR = re.compile(r"(?<=[\d)\s}])[+*/×÷^](?=[\s\d($\\{])|(?<=[\d)])\s*[-−]\s*(?=[\d($])")


@functools.cache
def _expr() -> ModuleType:
    """The reading floor's bounded expression parser, imported on first use (the CLI's
    start does not pay for it) and once."""
    from qcstation.core.reading import expr

    return expr


_SIMPLE_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?|\.\d+)|([-+*/()]))")


def _simple_operations(text: str) -> int | None:
    """Operations of a computation made only of numbers, ``+ - * /`` and parentheses,
    counted as :func:`parse_expression` would build them (implicit products such as
    ``2(3)`` included, unary signs not) without building the tree; None for anything else
    (the parser decides it). Most calculator annotations take this path."""
    if text.count("(") + text.count("-") + text.count("+") > 90:  # the parser's nesting limit
        return None
    pos, end = 0, len(text)
    ops = depth = 0
    operand = True  # an operand is expected next
    while pos < end:
        m = _SIMPLE_TOKEN.match(text, pos)
        if m is None:
            if text[pos:].isspace():
                break
            return None
        pos = m.end()
        number, op = m.groups()
        if number is not None:
            if not operand or len(number) > 50:
                return None
            operand = False
        elif operand:
            if op == "(":
                depth += 1
            elif op not in "+-":  # a unary sign is no operation
                return None
        elif op == ")":
            depth -= 1
            if depth < 0:
                return None
        else:  # a binary operator, or '(' after an operand (implicit product)
            ops += 1
            depth += op == "("
            operand = True
    return ops if not operand and depth == 0 else None


def _operations(expr_text: str) -> int | None:
    """Arithmetic operations in one written computation (``3*(16.50+22.50+42)`` is 3);
    None when it does not parse. A percent sign is not an operation."""
    parser = _expr()
    BinOp, Neg, Num = parser.BinOp, parser.Neg, parser.Num  # noqa: N806

    if len(expr_text) > 500:
        return None
    text = expr_text.replace(",", "")
    simple = _simple_operations(text)
    if simple is not None:
        return simple
    try:
        expr = parser.parse_expression(text)
    except (parser.ExpressionError, RecursionError, ValueError):
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
    from qcstation.core.reading.inline import find_inline_computations

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


def states_a_number(question: str) -> bool:
    """Does the question write any number, in digits or in words ("seven", "half")?"""
    return any(c.isdigit() for c in question) or _NUMBER_WORDS.search(question) is not None
