"""Exact, rule-based SMT-LIB formalizations of seed problems (no model needed).

Two rules:

* ``gsm8k-calculator``: GSM8K solutions carry calculator annotations
  (``16 - 3 - 4 = <<16-3-4=9>>9``). Every annotation becomes one step constant
  whose value is the annotated expression; given the question, each of its numbers
  the solution uses is its own declared constant (``g1_eggs = 16``). A number in a
  later expression is an earlier step's result only where the solution settles it:
  the value is neither stated by the question nor a common factor and one earlier
  step has it, or exactly one reading uses every step and every given
  (:func:`_resolve_links`); otherwise the solution is ambiguous and no rule applies.
  ``answer`` is the step whose value is the gold answer (the last such step).
* ``equation``: an explicit equation field (``x = (70 - 27)``, ``X=((45.0*3.0))``,
  a bare expression, or a linear equation in one unknown such as ``x + 27 = 70``).

Expressions are parsed by a small recursive-descent parser (never ``eval``) into
exact ``Fraction`` arithmetic. The SMT-LIB uses sort Real with exact rationals
(``(/ 3 2)``, ``(- 5)``) and only the commands set-logic, declare-const, assert,
check-sat and get-value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Union

from qcstation.core.verify.answers import parse_number
from qcstation.common.errors import GenerationError

__all__ = [
    "Num",
    "Name",
    "BinOp",
    "Neg",
    "Expr",
    "ExpressionError",
    "RuleError",
    "RuleStep",
    "RuleResult",
    "parse_expression",
    "evaluate",
    "expr_names",
    "fraction_to_smt",
    "expr_to_sexpr",
    "is_nonlinear",
    "smt_from_calculator_annotations",
    "smt_from_equation",
    "rule_for_seed",
    "gold_from_seed",
    "ANNOTATION_RE",
    "INLINE_RE",
    "InlineComputation",
    "find_inline_computations",
    "normalize_visible",
]


# --------------------------------------------------------------------------- errors


class RuleError(GenerationError):
    """No exact rule could formalize this seed; ``str(err)`` says why."""

    def __init__(self, message: str, title: str = "No rule applies") -> None:
        super().__init__(message, title)


class ExpressionError(ValueError):
    """Text is not an arithmetic expression the parser accepts."""


# --------------------------------------------------------------------------- AST


@dataclass(frozen=True)
class Num:
    value: Fraction  # always >= 0; negation is a Neg node
    text: str = ""  # as written; "" for numbers the parser made up (the 100 of a percent)


@dataclass(frozen=True)
class Name:
    name: str


@dataclass(frozen=True)
class BinOp:
    op: str  # + - * /
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Neg:
    operand: Expr


Expr = Union[Num, Name, BinOp, Neg]

MAX_EXPONENT = 12

# Limits on untrusted expression text (seed solutions, equations): a seed beyond one of
# them is refused with the limit named (ExpressionError → RuleError), never a crash or a
# minutes-long computation.
MAX_EXPRESSION_CHARS = 1_000  #: characters in one expression
MAX_DEPTH = 100  #: nesting of parentheses and unary signs
MAX_NUMBER_DIGITS = 50  #: digits in one written number
MAX_EXPANDED_NODES = 5_000  #: size of the expression once powers are expanded
MAX_VALUE_BITS = 4_000  #: bits in a numerator or denominator while evaluating

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\*\*|[-+*/^%()×·÷−–])
    """,
    re.VERBOSE,
)

_OP_ALIASES = {"×": "*", "·": "*", "÷": "/", "−": "-", "–": "-"}


def _tokenize(text: str, names: bool) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if not m:
            raise ExpressionError(f"unexpected character {text[pos]!r} at position {pos}")
        pos = m.end()
        kind = m.lastgroup or ""
        if kind == "ws":
            continue
        value = m.group()
        if kind == "name" and not names:
            raise ExpressionError(f"unexpected name {value!r} (only numbers are allowed)")
        if kind == "op":
            value = _OP_ALIASES.get(value, value)
        elif kind == "num" and sum(c.isdigit() for c in value) > MAX_NUMBER_DIGITS:
            raise ExpressionError(
                f"a number has {sum(c.isdigit() for c in value)} digits "
                f"(limit {MAX_NUMBER_DIGITS})")
        tokens.append((kind, value))
    return tokens


class _Parser:
    """expr := term (('+'|'-') term)* ; term := unary (('*'|'/'|implicit) unary)* ;
    unary := ('+'|'-') unary | power ; power := postfix (('^'|'**') unary)? ;
    postfix := primary '%'? ; primary := NUMBER | NAME | '(' expr ')'."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0
        self._sizes: dict[int, int] = {}

    def _nest(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ExpressionError(f"the expression nests deeper than {MAX_DEPTH} levels")

    def _size(self, node: Expr) -> int:
        """Node count of ``node`` written out as a tree (powers share sub-trees)."""
        key = id(node)
        if key not in self._sizes:
            if isinstance(node, BinOp):
                self._sizes[key] = 1 + self._size(node.left) + self._size(node.right)
            elif isinstance(node, Neg):
                self._sizes[key] = 1 + self._size(node.operand)
            else:
                self._sizes[key] = 1
        return self._sizes[key]

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise ExpressionError("unexpected end of expression")
        self.pos += 1
        return tok

    def at_op(self, *ops: str) -> bool:
        tok = self.peek()
        return tok is not None and tok[0] == "op" and tok[1] in ops

    def parse(self) -> Expr:
        if not self.tokens:
            raise ExpressionError("empty expression")
        node = self.expr()
        if self.peek() is not None:
            raise ExpressionError(f"unexpected {self.peek()[1]!r} after a complete expression")  # type: ignore[index]
        return node

    def expr(self) -> Expr:
        node = self.term()
        while self.at_op("+", "-"):
            op = self.take()[1]
            node = BinOp(op, node, self.term())
        return node

    def term(self) -> Expr:
        node = self.unary()
        while True:
            if self.at_op("*", "/"):
                op = self.take()[1]
                node = BinOp(op, node, self.unary())
            elif self.at_op("(") or (self.peek() is not None and self.peek()[0] == "name"):  # type: ignore[index]
                # implicit multiplication: 2(60), 50(.50), 2x
                node = BinOp("*", node, self.unary())
            else:
                return node

    def unary(self) -> Expr:
        if self.at_op("-", "+"):
            op = self.take()[1]
            self._nest()
            try:
                operand = self.unary()
            finally:
                self.depth -= 1
            return Neg(operand) if op == "-" else operand
        return self.power()

    def power(self) -> Expr:
        base = self.postfix()
        if self.at_op("^", "**"):
            self.take()
            exponent_node = self.unary()
            try:
                exponent = evaluate(exponent_node)
            except ExpressionError as exc:
                raise ExpressionError(f"exponent must be a number: {exc}") from exc
            if exponent.denominator != 1 or abs(exponent) > MAX_EXPONENT:
                raise ExpressionError(
                    f"exponent {exponent} is not a small integer (|n| <= {MAX_EXPONENT})"
                )
            n = int(exponent)
            if n == 0:
                return Num(Fraction(1), "1")
            if self._size(base) * abs(n) > MAX_EXPANDED_NODES:
                raise ExpressionError(
                    f"the powers expand to more than {MAX_EXPANDED_NODES} terms")
            node: Expr = base
            for _ in range(abs(n) - 1):
                node = BinOp("*", node, base)
            return BinOp("/", Num(Fraction(1), ""), node) if n < 0 else node
        return base

    def postfix(self) -> Expr:
        node = self.primary()
        while self.at_op("%"):
            self.take()
            node = BinOp("/", node, Num(Fraction(100), ""))
        return node

    def primary(self) -> Expr:
        kind, value = self.take()
        if kind == "num":
            return Num(Fraction(value.replace(",", "")), value)
        if kind == "name":
            return Name(value)
        if value == "(":
            self._nest()
            node = self.expr()
            if not self.at_op(")"):
                raise ExpressionError("missing ')'")
            self.take()
            self.depth -= 1
            return node
        raise ExpressionError(f"unexpected {value!r}")


def parse_expression(text: str, *, names: bool = False) -> Expr:
    """Parse infix arithmetic (numbers with optional thousands commas and decimals,
    + - * / × ÷ −, parentheses, unary minus, ``^``/``**`` with a small integer
    exponent, postfix ``%`` = /100, implicit multiplication ``2(3)``).
    With ``names=True`` identifiers are allowed as variables. Raises ExpressionError,
    also when the text exceeds a limit (length, nesting, digits, expanded size)."""
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ExpressionError(
            f"the expression has {len(text)} characters (limit {MAX_EXPRESSION_CHARS})")
    return _Parser(_tokenize(text, names)).parse()


def evaluate(expr: Expr, env: Mapping[str, Fraction] | None = None) -> Fraction:
    """Exact value of an expression; raises ExpressionError on division by zero or
    an unknown name."""
    if isinstance(expr, Num):
        return expr.value
    if isinstance(expr, Name):
        if env is None or expr.name not in env:
            raise ExpressionError(f"unknown name {expr.name!r}")
        return env[expr.name]
    if isinstance(expr, Neg):
        return -evaluate(expr.operand, env)
    left = evaluate(expr.left, env)
    right = evaluate(expr.right, env)
    if expr.op == "+":
        return _bounded(left + right)
    if expr.op == "-":
        return _bounded(left - right)
    if expr.op == "*":
        return _bounded(left * right)
    if right == 0:
        raise ExpressionError("division by zero")
    return _bounded(left / right)


def _bounded(value: Fraction) -> Fraction:
    if value.numerator.bit_length() > MAX_VALUE_BITS or value.denominator.bit_length() > MAX_VALUE_BITS:
        raise ExpressionError(f"a value grows beyond {MAX_VALUE_BITS} bits (about "
                              f"{int(MAX_VALUE_BITS * 0.30103)} digits)")
    return value


def expr_names(expr: Expr) -> list[str]:
    """Names used in an expression, in first-use order, without duplicates."""
    out: list[str] = []

    def walk(e: Expr) -> None:
        if isinstance(e, Name):
            if e.name not in out:
                out.append(e.name)
        elif isinstance(e, Neg):
            walk(e.operand)
        elif isinstance(e, BinOp):
            walk(e.left)
            walk(e.right)

    walk(expr)
    return out


# --------------------------------------------------------------------------- SMT-LIB text


def fraction_to_smt(value: Fraction) -> str:
    """Exact SMT-LIB Real literal: ``16``, ``(- 5)``, ``(/ 3 2)``, ``(- (/ 3 2))``."""
    magnitude = abs(value)
    if magnitude.denominator == 1:
        text = str(magnitude.numerator)
    else:
        text = f"(/ {magnitude.numerator} {magnitude.denominator})"
    return f"(- {text})" if value < 0 else text


def _chain(expr: Expr, op: str) -> list[Expr]:
    """Flatten a left-associative chain of one operator: ((a-b)-c) -> [a, b, c]."""
    if isinstance(expr, BinOp) and expr.op == op:
        return [*_chain(expr.left, op), expr.right]
    return [expr]


def expr_to_sexpr(expr: Expr) -> str:
    if isinstance(expr, Num):
        return fraction_to_smt(expr.value)
    if isinstance(expr, Name):
        return expr.name
    if isinstance(expr, Neg):
        if isinstance(expr.operand, Num):
            return fraction_to_smt(-expr.operand.value)
        return f"(- {expr_to_sexpr(expr.operand)})"
    args = _chain(expr, expr.op)
    return "(" + expr.op + " " + " ".join(expr_to_sexpr(a) for a in args) + ")"


def is_nonlinear(expr: Expr) -> bool:
    """True when a product has two factors with names, or a divisor has a name."""
    if isinstance(expr, (Num, Name)):
        return False
    if isinstance(expr, Neg):
        return is_nonlinear(expr.operand)
    args = _chain(expr, expr.op)
    if any(is_nonlinear(a) for a in args):
        return True
    if expr.op == "*":
        return sum(1 for a in args if expr_names(a)) >= 2
    if expr.op == "/":
        return any(expr_names(a) for a in args[1:])
    return False


# --------------------------------------------------------------------------- results


@dataclass
class RuleStep:
    name: str
    expr_text: str  # the original infix, e.g. "16-3-4"
    result: Fraction  # exact value of the step in the formalization (earlier steps substituted)
    sexpr: str  # SMT-LIB term defining the step (may reference earlier steps)
    refs: list[str] = field(default_factory=list)  # earlier steps this one uses
    expr: Expr | None = None  # the defining term (names: givens and earlier steps)
    line: str = ""  # the solution line the computation is written on


@dataclass
class RuleResult:
    smtlib: str
    steps: list[RuleStep]
    answer_step: str
    value: Fraction
    rule: str  # "gsm8k-calculator" | "inline-arithmetic" | "equation"
    notes: list[str] = field(default_factory=list)
    # each use of an earlier step's result: {"step", "uses", "value", "evidence"}
    links: list[dict[str, str]] = field(default_factory=list)
    # the question's numbers declared as constants: {"name", "value", "text"}
    givens: list[dict[str, str]] = field(default_factory=list)
    # what the rule could not settle from the solution (shown to reviewers, flagged by audit)
    uncertain: list[str] = field(default_factory=list)


def _build_smtlib(steps: list[RuleStep], exprs: list[Expr], answer_step: str,
                  givens: list[tuple[str, Fraction, Expr]] | None = None) -> str:
    nonlinear = any(is_nonlinear(e) for e in exprs)
    lines = [f"(set-logic {'QF_NRA' if nonlinear else 'QF_LRA'})"]
    for name, _value, _expr in givens or []:
        lines.append(f"(declare-const {name} Real)")
    for step in steps:
        if step.name != "answer":
            lines.append(f"(declare-const {step.name} Real)")
    lines.append("(declare-const answer Real)")
    for name, _value, expr in givens or []:
        lines.append(f"(assert (= {name} {expr_to_sexpr(expr)}))")
    for step in steps:
        lines.append(f"(assert (= {step.name} {step.sexpr}))")
    if answer_step != "answer":
        lines.append(f"(assert (= answer {answer_step}))")
    lines.append("(check-sat)")
    lines.append("(get-value (answer))")
    return "\n".join(lines) + "\n"


def _fmt(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


# --------------------------------------------------------------------------- inline computations

_NUM_TXT = r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
# a unit after a number: "/hour", " sheep", " miles per gallon" (up to three words)
_UNIT_TXT = r"(?:/[A-Za-z][A-Za-z’']*|\s+(?!x(?:\s|$))[A-Za-z][A-Za-z’'\-]*(?:/[A-Za-z][A-Za-z’']*)*)"
_OPERAND_TXT = rf"(?:\(\s*)*[$€£]?{_NUM_TXT}(?:\s*%)?(?:{_UNIT_TXT}){{0,3}}(?:\s*\))*"
_OPSYM_TXT = r"(?:\*\*|[-+*/×÷−^]|(?<=\s)x(?=\s)|(?<=\d)x(?=\d))"
_EXPR_TXT = rf"{_OPERAND_TXT}(?:\s*{_OPSYM_TXT}\s*{_OPERAND_TXT})+"
INLINE_RE = re.compile(
    rf"(?<![\w.,$/^*+\-×÷−])(?P<expr>{_EXPR_TXT})\s*=\s*(?P<res>[$€£]?\s*-?{_NUM_TXT}(?:\s*%)?)(?!\d|/\s*\d|\.\d|,\d)"
)


@dataclass
class InlineComputation:
    """A visible ``expression = result`` in running text (``54 − 37 = 17``)."""

    expr_start: int
    expr_end: int
    result_start: int
    result_end: int
    expr_text: str  # as written, e.g. "$4 x 3"
    result_text: str  # as written, e.g. "$12"
    expr: Expr  # parsed (x -> *, currency dropped); scaled by 100 for a percent result
    value: Fraction  # exact value of ``expr``
    written: Fraction  # the written result (the number shown, without % scaling)


def _strip_currency(text: str) -> str:
    return re.sub(r"[$€£]", "", text)


def _balance(text: str) -> tuple[int, int]:
    """Offsets (lead, trail) of unmatched parentheses to drop from the ends."""
    lead = trail = 0
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                lead = -1  # a ')' before any '(' : cannot balance by trimming the left
            else:
                depth -= 1
    if lead == -1:
        return (0, len(text) - len(text.rstrip(")")))
    # drop `depth` unmatched '(' from the left
    i = 0
    remaining = depth
    while remaining and i < len(text):
        if text[i] == "(":
            remaining -= 1
        elif not text[i].isspace():
            break
        i += 1
    return (i, 0)


def _within(value: Fraction, written: Fraction, written_text: str) -> bool:
    if value == written:
        return True
    m = re.search(r"\.(\d+)", written_text)
    if not m:
        return False
    return abs(value - written) <= Fraction(1, 2 * 10 ** len(m.group(1)))


def normalize_visible(expr_text: str) -> str:
    """Written arithmetic -> parser input: currency signs and unit words dropped,
    a standalone ``x`` read as ×. ``$20/hour * 35 hours/week`` -> ``20 * 35``."""
    text = re.sub(r"(?<=[\s\d])x(?=[\s\d])", "*", _strip_currency(expr_text))
    text = re.sub(r"/[A-Za-z][A-Za-z’']*", " ", text)
    text = re.sub(r"[A-Za-z][A-Za-z’'\-]*", " ", text)
    return text


def _parse_visible(expr_text: str, result_text: str) -> tuple[Expr, Fraction, Fraction] | None:
    """Parse a written ``expression = result`` pair; None unless the arithmetic checks out."""
    normalized = normalize_visible(expr_text)
    res_clean = _strip_currency(result_text).strip()
    res_percent = res_clean.endswith("%")
    try:
        written = Fraction(res_clean.rstrip("%").strip().replace(",", ""))
    except (ValueError, ZeroDivisionError):
        return None
    candidates: list[Expr] = []
    try:
        if "%" in normalized:
            candidates.append(parse_expression(normalized.replace("%", "")))
            scaled = parse_expression(normalized)
            if res_percent:
                scaled = BinOp("*", scaled, Num(Fraction(100), ""))
            candidates.append(scaled)
        else:
            candidates.append(parse_expression(normalized))
    except ExpressionError:
        return None
    for cand in candidates:
        try:
            value = evaluate(cand)
        except ExpressionError:
            continue
        if _within(value, written, res_clean):
            return cand, value, written
    return None


def find_inline_computations(text: str) -> list[InlineComputation]:
    """Every ``expression = number`` in ``text`` whose arithmetic checks out (exactly,
    or within the rounding of a written decimal). A ``%`` is read either as a unit
    mark on both sides (``100% - 80% = 20%``) or as /100 with the percent result
    scaled back (``50% * 50% = 25%``)."""
    found: list[InlineComputation] = []
    for m in INLINE_RE.finditer(text):
        expr_text = m.group("expr")
        lead, trail = _balance(expr_text)
        expr_start = m.start("expr") + lead
        expr_end = m.end("expr") - trail
        expr_text = text[expr_start:expr_end]
        result_text = m.group("res")
        parsed = _parse_visible(expr_text, result_text)
        if parsed is None:
            continue
        cand, value, written = parsed
        found.append(
            InlineComputation(
                expr_start, expr_end, m.start("res"), m.end("res"),
                expr_text, result_text, cand, value, written,
            )
        )
    return found


# --------------------------------------------------------------------------- calculator rule

ANNOTATION_RE = re.compile(r"<<([^<>]*)>>")

_STOPWORDS = frozenset(
    """a an the of per each every in on at to for and or but so that this these those it its
    he she they we you i his her their our your him them us me is are was were be been being
    has have had do does did will would can could should must may might then than there here
    with by from as into out up down about over after before more less much many total also
    just only now all some any if when which who whom what how not no yes one ones get gets got
    makes make made came come comes goes go went need needs needed left still further another
    other new old first second third last next amount number cost costs pay pays paid buy buys
    bought sell sells sold spend spends spent take takes took find found means mean therefore
    thus hence overall combined together altogether would totals x""".split()
)

_WORD_RE = re.compile(r"[A-Za-z]+")
_RESULT_PREFIX_RE = re.compile(r"^\s*[$€£]?\s*[-\d.,/]*\s*%?")


def _content_words(text: str) -> list[str]:
    return [w.lower() for w in _WORD_RE.findall(text) if w.lower() not in _STOPWORDS and len(w) > 1]


def _step_label(solution: str, start: int, end: int) -> str:
    """Short deterministic slug from the words around an annotation: up to two
    content words right after the written result (usually the unit, "duck eggs"),
    else the last two content words of the clause before the expression."""
    line_end = solution.find("\n", end)
    after = solution[end : line_end if line_end != -1 else len(solution)]
    after = _RESULT_PREFIX_RE.sub("", after, count=1)
    after = re.split(r"[.!?;:=\d]", after, maxsplit=1)[0]
    words = _content_words(after)[:2]
    if not words:
        line_start = solution.rfind("\n", 0, start) + 1
        before = solution[line_start:start]
        before = re.split(r"[.!?;:](?:\s|$)", before)[-1]
        before = re.sub(r"[\d\s.,+\-*/()=$x×÷%]+$", "", before)
        words = _content_words(before)[-2:]
    slug = "_".join(words)[:24].strip("_")
    return slug


@dataclass
class _Annotation:
    index: int  # 1-based
    raw: str
    lhs: str
    rhs: str
    start: int
    end: int


def _annotations(solution: str) -> list[_Annotation]:
    out: list[_Annotation] = []
    for i, m in enumerate(ANNOTATION_RE.finditer(solution), start=1):
        raw = m.group(0)
        body = m.group(1)
        if body.count("=") != 1:
            raise RuleError(
                f"annotation {i} {raw!r} is not of the form <<expression=result>>",
                "Annotation not arithmetic",
            )
        lhs, rhs = (part.strip() for part in body.split("="))
        out.append(_Annotation(i, raw, lhs, rhs, m.start(), m.end()))
    return out


def _final_answer(solution: str) -> Fraction | None:
    m = re.search(r"####\s*(.+?)\s*$", solution.strip())
    if not m:
        return None
    parsed = parse_number(m.group(1))
    return parsed.value if parsed else None


@dataclass
class _Computation:
    start: int
    end: int
    raw: str  # how the computation reads in the solution
    expr_text: str
    expr: Expr
    value: Fraction
    written: Fraction
    source: str  # "annotation" | "inline"


def _mask_annotations(solution: str) -> str:
    """Blank out each annotation and the written result right after it, so the
    visible copy of an annotated computation is not found again as inline text."""

    def blank(m: re.Match[str]) -> str:
        return "\u00a7" * len(m.group(0))

    return re.sub(r"<<[^<>]*>>[\d.,]*", blank, solution)


def _literal_value(expr: Expr) -> Fraction | None:
    if isinstance(expr, Num):
        return expr.value
    if isinstance(expr, Neg) and isinstance(expr.operand, Num):
        return -expr.operand.value
    return None


_VISIBLE_TAIL_RE = re.compile(rf"(?<![\w.,$/^*+\-×÷−])({_EXPR_TXT})\s*=\s*[$€£]?\s*$")


def _visible_before(solution: str, start: int, rhs: str) -> tuple[str, Expr, Fraction] | None:
    line_start = solution.rfind("\n", 0, start) + 1
    m = _VISIBLE_TAIL_RE.search(solution[line_start:start])
    if not m:
        return None
    parsed = _parse_visible(m.group(1), rhs)
    if parsed is None:
        return None
    expr, value, _written = parsed
    return m.group(1).strip(), expr, value


def _collect_computations(solution: str, inline: bool, notes: list[str]) -> list[_Computation]:
    comps: list[_Computation] = []
    for ann in _annotations(solution):
        try:
            lhs = parse_expression(ann.lhs)
        except ExpressionError as exc:
            raise RuleError(
                f"annotation {ann.index} {ann.raw!r} is not arithmetic: {exc}",
                "Annotation not arithmetic",
            ) from exc
        try:
            value = evaluate(lhs)
        except ExpressionError as exc:
            raise RuleError(f"annotation {ann.index} {ann.raw!r} cannot be computed: {exc}") from exc
        try:
            written_value = evaluate(parse_expression(ann.rhs)) if ann.rhs else value
        except ExpressionError:
            notes.append(f"annotation {ann.index} {ann.raw!r}: written result {ann.rhs!r} is not a number")
            written_value = value
        if written_value != value:
            notes.append(
                f"annotation {ann.index} {ann.raw!r}: the expression evaluates to {_fmt(value)}, "
                f"not the written {ann.rhs}; using the computed value"
            )
        expr_text = ann.lhs
        if _literal_value(lhs) is not None:
            # <<15=15>>: the computation is only in the visible text ("7.5 / .5 = <<15=15>>15")
            visible = _visible_before(solution, ann.start, ann.rhs)
            if visible is not None:
                expr_text, lhs, value = visible
                notes.append(
                    f"annotation {ann.index} {ann.raw!r} is a bare number; "
                    f"used the computation written before it: {expr_text} = {ann.rhs}"
                )
        comps.append(
            _Computation(ann.start, ann.end, ann.raw, expr_text, lhs, value, written_value, "annotation")
        )
    if inline:
        masked = _mask_annotations(solution)
        for c in find_inline_computations(masked):
            raw = solution[c.expr_start : c.result_end]
            comps.append(
                _Computation(c.expr_start, c.result_end, raw, c.expr_text.strip(), c.expr, c.value, c.written, "inline")
            )
    comps.sort(key=lambda c: c.start)
    return comps


def smt_from_calculator_annotations(
    solution: str, gold: Fraction | None = None, *, inline: bool = True, question: str | None = None
) -> RuleResult:
    """Formalize a GSM8K-style solution from its ``<<expr=result>>`` annotations.

    With ``inline=True`` (default) visible computations the annotator missed
    (``54 − 37 = 17`` with no ``<<...>>``) are steps too, and a solution with no
    annotations but such computations is formalized from them alone (rule
    ``inline-arithmetic``). ``gold`` defaults to the number after ``####``;
    without either, the last step is the answer. Raises RuleError when there is
    nothing to formalize, an annotation is not arithmetic, or no step produces
    the gold answer.

    With ``question`` (the seed problem), every number of the question the solution
    uses becomes its own declared constant, and a number in a later step is read as
    an earlier step's result only where that is the one structure that uses every
    step and every given (a value the question also states, or a common unit factor
    such as 60 or 100, is never linked because it is equal). An ambiguous solution
    raises RuleError (the item goes to the model path)."""
    notes: list[str] = []
    comps = _collect_computations(solution, inline, notes)
    n_annotations = sum(1 for c in comps if c.source == "annotation")
    if not comps:
        raise RuleError(
            "no calculator annotations (<<expression=result>>)"
            + (" and no computation written as 'expression = number'" if inline else "")
            + " in the solution"
        )
    rule = "gsm8k-calculator" if n_annotations else "inline-arithmetic"
    if n_annotations and len(comps) > n_annotations:
        extra = [c.raw for c in comps if c.source == "inline"]
        notes.append(f"{len(extra)} unannotated computation(s) from the text used: " + "; ".join(extra))
    elif not n_annotations:
        notes.append(
            f"no calculator annotations: {len(comps)} computation(s) written in the text used"
        )
    if gold is None:
        gold = _final_answer(solution)
    givens = question_numbers(question) if question is not None else None
    exprs_raw = [_protect_fractions(c, givens) for c in comps]
    answer_index = _pick_answer(comps, gold, notes)
    if answer_index + 1 < len(comps):
        notes.append(f"steps after the answer were left out: {', '.join(f's{i + 1}' for i in range(answer_index + 1, len(comps)))}")
    comps = comps[: answer_index + 1]
    exprs_raw = exprs_raw[: answer_index + 1]
    names: list[str] = []
    for index, comp in enumerate(comps, start=1):
        label = _step_label(solution, comp.start, comp.end)
        names.append(f"s{index}_{label}" if label else f"s{index}")
    linked_exprs, links = _resolve_links(comps, exprs_raw, names, givens, notes)
    steps: list[RuleStep] = []
    env: dict[str, Fraction] = {}
    for name, comp, linked in zip(names, comps, linked_exprs):
        try:
            chained = evaluate(linked, env)
        except ExpressionError as exc:
            raise RuleError(f"step {name} ({comp.raw}) cannot be computed: {exc}") from exc
        if chained != comp.value:
            notes.append(
                f"step {name} ({comp.expr_text}) is {_fmt(chained)} in the chain, not {_fmt(comp.value)}, "
                "because an earlier step's written result differs from its computed value"
            )
        env[name] = chained
        line_start = solution.rfind("\n", 0, comp.start) + 1
        line_end = solution.find("\n", comp.start)
        line = solution[line_start : line_end if line_end != -1 else len(solution)].strip()
        steps.append(RuleStep(name, comp.expr_text, chained, expr_to_sexpr(linked), expr_names(linked),
                              linked, line))
    exprs = linked_exprs
    chosen = steps[answer_index]
    if not chosen.refs and _literal_value(exprs[answer_index]) is not None:
        raise RuleError(
            f"the answer {_fmt(chosen.result)} is written as a bare number ({comps[answer_index].raw}); "
            "the solution's computation of it is not in its arithmetic",
            "Answer not derived",
        )
    # keep only the steps the answer depends on
    needed: set[str] = set()
    by_name = {s.name: s for s in steps}
    stack = [steps[answer_index].name]
    while stack:
        current = stack.pop()
        if current in needed:
            continue
        needed.add(current)
        stack.extend(by_name[current].refs)
    kept = [(s, e) for s, e in zip(steps, exprs) if s.name in needed]
    dropped = [s.name for s in steps if s.name not in needed]
    if dropped:
        notes.append(f"steps not needed for the answer were left out: {', '.join(dropped)}")
    if givens is not None:
        used_by_solution = {v for e in exprs for v in _literal_values(e) if v in givens.values}
        # a number of the question the solution's text works with (digits, not words)
        digits = {n.value for n in givens.numbers
                  if not n.percent and (n.text[:1].isdigit() or n.text[:1] in "$.")}
        mentioned = {v for v in _text_numbers(_mask_annotations(solution)) if v in digits}
        used_by_solution |= mentioned - {Fraction(0), Fraction(1)}
        used_kept = {v for _, e in kept for v in _literal_values(e)}
        used_kept |= {n.value * 100 for n in givens.numbers if n.percent and n.value in used_kept}
        missing = sorted(used_by_solution - used_kept)
        if missing:
            raise RuleError(
                "the answer step does not use the given(s) "
                + ", ".join(_fmt(v) for v in missing)
                + " that the solution uses: its structure is not clear from the annotations",
                "Ambiguous solution",
            )
    kept_steps = [s for s, _ in kept]
    answer_step = steps[answer_index].name
    kept_exprs = [e for _, e in kept]
    uncertain: list[str] = []
    given_consts: list[tuple[str, Fraction, Expr]] = []
    if givens is not None:
        kept_exprs, given_consts = givens.bind(kept_exprs)
        for v in givens.order_bound:
            uncertain.append(f"the question states {_fmt(v)} more than once; the solution's uses of "
                             f"{_fmt(v)} were tied to those places in order")
        for st, e in zip(kept_steps, kept_exprs):
            st.sexpr = expr_to_sexpr(e)
            st.expr = e
    smtlib = _build_smtlib(kept_steps, kept_exprs, answer_step, given_consts)
    return RuleResult(
        smtlib=smtlib,
        steps=kept_steps,
        answer_step=answer_step,
        value=steps[answer_index].result,
        rule=rule,
        notes=notes,
        links=[lk for lk in links if lk["step"] in needed],
        uncertain=uncertain,
        givens=[{"name": n, "value": _fmt(v), "text": givens.text_of(n) if givens else ""}
                for n, v, _ in given_consts],
    )



# --------------------------------------------------------------------------- givens and links

_Q_NUMBER_RE = re.compile(
    r"(?<![\w.])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s*/\s*(?P<den>\d+)(?![\d.]))?"
)
_Q_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_Q_WORDS.update({w: 10 * i for i, w in enumerate("thirty forty fifty sixty seventy eighty ninety".split(), 3)})
_Q_WORDS["dozen"] = 12
_Q_WORD_RE = re.compile(r"\b(" + "|".join(sorted(_Q_WORDS, key=len, reverse=True)) + r")\b", re.I)
# factors a solution writes without the question stating them (units, percent, halves):
# a step result equal to one of these is never linked because of the equality alone
COMMON_FACTORS = frozenset(Fraction(v) for v in (2, 3, 4, 7, 10, 12, 24, 30, 52, 60, 100, 365, 1000))
# the words of a question that make a common factor a plausible constant of its solution
# (60 minutes an hour, 100 cents a dollar, 2 for a half, ...): without them, a written 24
# that an earlier step computed is that step's result
_FACTOR_WORDS: dict[int, str] = {
    2: r"half|halves|twice|double|pair|both|two|each|every|round|per|average|split|share",
    3: r"third|triple|thrice|three|each|every|per|average|split|share",
    4: r"quarter|four|week|month|each|every|per|average|split|share",
    7: r"week|day|daily",
    10: r"dime|ten|decade|cent|percent|%|tenth",
    12: r"dozen|month|year|inch|foot|feet|hour|twelve",
    24: r"day|hour|daily",
    30: r"month|day|minute|half",
    52: r"week|year",
    60: r"minute|hour|second|mph|speed|per",
    100: r"percent|%|cent|dollar|\$|century|hundred",
    365: r"year|day|annual",
    1000: r"thousand|kilo|gram|meter|metre|liter|litre|ml|\bkm|\bkg",
}


def _plausible_factors(question: str) -> frozenset[Fraction]:
    q = question.lower()
    return frozenset(Fraction(v) for v, words in _FACTOR_WORDS.items() if re.search(words, q))
MAX_LINK_CHOICES = 4096


@dataclass
class QuestionNumber:
    value: Fraction
    text: str  # as written: "12", "$1,500", "1/2", "three"
    start: int
    slug: str  # the word after it ("millimeters")
    percent: bool = False  # the fraction p/100 of a "p%" the question states


class Givens:
    """The numbers a question states (digits, fractions, number words), in order."""

    def __init__(self, question: str) -> None:
        self.numbers: list[QuestionNumber] = []
        self.fractions: set[tuple[str, str]] = set()
        for m in _Q_NUMBER_RE.finditer(question):
            num = m.group("num").replace(",", "")
            try:
                if m.group("den"):
                    den = int(m.group("den"))
                    if den == 0:
                        continue
                    value = Fraction(num) / den
                    self.fractions.add((num, m.group("den")))
                else:
                    value = Fraction(num)
            except (ValueError, ZeroDivisionError):
                continue
            self.numbers.append(QuestionNumber(value, m.group(0), m.start(), _slug_after(question, m.end())))
            if re.match(r"\s*(?:%|percent\b)", question[m.end():]) and not m.group("den"):
                # "45%" is also the fraction 45/100 a solution may write as .45
                self.numbers.append(QuestionNumber(value / 100, m.group(0) + "%", m.start(),
                                                   _slug_after(question, m.end()), percent=True))
        for m in _Q_WORD_RE.finditer(question):
            self.numbers.append(QuestionNumber(Fraction(_Q_WORDS[m.group(1).lower()]), m.group(0),
                                               m.start(), _slug_after(question, m.end())))
        self.numbers.sort(key=lambda n: n.start)
        self.values: set[Fraction] = {n.value for n in self.numbers}
        self.factors = _plausible_factors(question)
        self._names: dict[str, QuestionNumber] = {}
        self.order_bound: list[Fraction] = []

    def text_of(self, name: str) -> str:
        n = self._names.get(name)
        return n.text if n else ""

    def bind(self, exprs: list[Expr]) -> tuple[list[Expr], list[tuple[str, Fraction, Expr]]]:
        """Replace each literal that is a number of the question by a named constant.
        The i-th use of a value the question states k times is its min(i, k-1)-th
        occurrence. Returns the new expressions and the constants (name, value, term)."""
        by_value: dict[Fraction, list[int]] = {}
        for i, n in enumerate(self.numbers):
            by_value.setdefault(n.value, []).append(i)
        uses: dict[Fraction, int] = {}
        chosen: dict[int, str] = {}
        order: list[int] = []

        def walk(e: Expr) -> Expr:
            if isinstance(e, Num):
                if not e.text or e.value not in by_value:
                    return e
                occ = by_value[e.value]
                k = uses.get(e.value, 0)
                uses[e.value] = k + 1
                idx = occ[min(k, len(occ) - 1)]
                if idx not in chosen:
                    n = self.numbers[idx]
                    name = f"g{len(chosen) + 1}" + (f"_{n.slug}" if n.slug else "") + ("_pct" if n.percent else "")
                    chosen[idx] = name
                    order.append(idx)
                    self._names[name] = n
                return Name(chosen[idx])
            if isinstance(e, Neg):
                return Neg(walk(e.operand))
            if isinstance(e, BinOp):
                return BinOp(e.op, walk(e.left), walk(e.right))
            return e

        out = [walk(e) for e in exprs]
        # a value the question states more than once, used more than once: which use is
        # which occurrence is read from their order only (uncertain: say so)
        self.order_bound = sorted(v for v, k in uses.items()
                                  if k > 1 and len({self.numbers[i].start for i in by_value[v]}) > 1)
        consts: list[tuple[str, Fraction, Expr]] = []
        for idx in order:
            n = self.numbers[idx]
            term: Expr = Num(n.value, n.text)
            if n.percent:
                term = BinOp("/", Num(n.value * 100), Num(Fraction(100)))
            elif n.value.denominator != 1 and "/" in n.text:
                term = BinOp("/", Num(Fraction(n.value.numerator)), Num(Fraction(n.value.denominator)))
            consts.append((chosen[idx], n.value, term))
        return out, consts


def question_numbers(question: str | None) -> Givens:
    return Givens(question or "")


def _slug_after(text: str, end: int) -> str:
    after = re.split(r"[.!?;:,\d]", text[end : end + 60], maxsplit=1)[0]
    words = [w for w in _content_words(after) if w.isalpha()][:1]
    return "_".join(words)[:16]


def _text_numbers(text: str) -> set[Fraction]:
    out: set[Fraction] = set()
    for m in _Q_NUMBER_RE.finditer(text):
        try:
            v = Fraction(m.group("num").replace(",", ""))
            out.add(v / int(m.group("den")) if m.group("den") and int(m.group("den")) else v)
        except (ValueError, ZeroDivisionError):
            continue
    return out


def _literal_values(expr: Expr) -> list[Fraction]:
    """Values of the numbers written in an expression (not the 100 of a parsed percent)."""
    out: list[Fraction] = []

    def walk(e: Expr) -> None:
        if isinstance(e, Num):
            if e.text:
                out.append(e.value)
        elif isinstance(e, Neg):
            walk(e.operand)
        elif isinstance(e, BinOp):
            walk(e.left)
            walk(e.right)

    walk(expr)
    return out


def _protect_fractions(comp: "_Computation", givens: Givens | None) -> Expr:
    """A fraction the question states (``1/2``) stays one given: ``12*1/2`` becomes
    ``12 * (1/2)`` with the fraction as a single number that is never linked."""
    if givens is None or not givens.fractions:
        return comp.expr

    def frac(a: Num, b: Num) -> Num | None:
        if (a.text, b.text) in givens.fractions and b.value:
            return Num(a.value / b.value, f"{a.text}/{b.text}")
        return None

    def walk(e: Expr) -> Expr:
        if isinstance(e, Neg):
            return Neg(walk(e.operand))
        if not isinstance(e, BinOp):
            return e
        if e.op == "/" and isinstance(e.right, Num):
            left = e.left
            if isinstance(left, Num):
                f = frac(left, e.right)
                if f is not None:
                    return f
            if isinstance(left, BinOp) and left.op == "*" and isinstance(left.right, Num):
                f = frac(left.right, e.right)
                if f is not None:
                    return BinOp("*", walk(left.left), f)
        return BinOp(e.op, walk(e.left), walk(e.right))

    return walk(comp.expr)


def _pick_answer(comps: list["_Computation"], gold: Fraction | None, notes: list[str]) -> int:
    """Index of the step that computes the answer: the last whose value (else whose
    written result) is the gold answer; the last step when there is no gold."""
    if gold is None:
        notes.append("no gold answer given: the last step is the answer")
        return len(comps) - 1
    for i in range(len(comps) - 1, -1, -1):
        if comps[i].value == gold:
            return i
    for i in range(len(comps) - 1, -1, -1):
        if comps[i].written == gold:
            notes.append(
                f"the gold answer {_fmt(gold)} is only the written result of step {i + 1}; "
                f"its expression evaluates to {_fmt(comps[i].value)}"
            )
            return i
    raise RuleError(
        f"final answer {_fmt(gold)} is not produced by any step "
        f"(step results: {', '.join(_fmt(c.value) for c in comps)})",
        "Answer not derived",
    )


def _canon(e: Expr) -> str:
    if isinstance(e, Num):
        return _fmt(e.value)
    if isinstance(e, Name):
        return e.name
    if isinstance(e, Neg):
        return f"(- {_canon(e.operand)})"
    args = [_canon(a) for a in _chain(e, e.op)]
    if e.op in "+*":
        args.sort()
    return "(" + e.op + " " + " ".join(args) + ")"


def _resolve_links(
    comps: list["_Computation"], exprs: list[Expr], names: list[str], givens: Givens | None,
    notes: list[str],
) -> tuple[list[Expr], list[dict[str, str]]]:
    """Decide, for every number written in a step, whether it is a given or an earlier
    step's result. Without a question: the most recent step with that written result
    (the historical behaviour). With one: a link is fixed only when the value is not
    stated by the question, is not a common factor, and one earlier step has it; every
    other candidate is settled by structure (each step before the answer is used, each
    given the solution uses stays used), and a solution with more than one such
    structure is ambiguous (RuleError)."""
    written = [c.written for c in comps]
    # leaves: (step index, path) of every written number; choices per leaf
    choices: list[list[int | None]] = []
    leaf_keys: list[tuple[int, int]] = []  # (step, leaf ordinal)
    evidence: dict[tuple[int, int], str] = {}
    ambiguous_values = (givens.values | givens.factors) if givens is not None else frozenset()
    # a bare restatement (<<8=8>>8) computes nothing: it is never what a later step uses,
    # and nothing needs to use it
    bare = {j for j, c in enumerate(comps) if _literal_value(c.expr) is not None}

    def leaves(e: Expr) -> list[Num]:
        out: list[Num] = []

        def walk(x: Expr) -> None:
            if isinstance(x, Num):
                out.append(x)
            elif isinstance(x, Neg):
                walk(x.operand)
            elif isinstance(x, BinOp):
                walk(x.left)
                walk(x.right)

        walk(e)
        return out

    for i, e in enumerate(exprs):
        for k, leaf in enumerate(leaves(e)):
            if not leaf.text or "/" in leaf.text:
                continue
            cands = [j for j in range(i) if written[j] == leaf.value and j not in bare]
            if not cands:
                continue
            if givens is None:
                choices.append([cands[-1]])
                evidence[(i, k)] = "equal value (no question given)"
            elif leaf.value not in ambiguous_values and len(cands) == 1:
                choices.append([cands[0]])
                evidence[(i, k)] = "the only step with this value; the question does not state it"
            else:
                choices.append([None, *cands])
                evidence[(i, k)] = "the one structure that uses every step and given"
            leaf_keys.append((i, k))

    def apply(assign: tuple[int | None, ...]) -> list[Expr]:
        table = {key: a for key, a in zip(leaf_keys, assign)}
        out: list[Expr] = []
        for i, e in enumerate(exprs):
            counter = iter(range(10**9))

            def walk(x: Expr) -> Expr:
                if isinstance(x, Num):
                    k = next(counter)
                    j = table.get((i, k))
                    return Name(names[j]) if j is not None else x
                if isinstance(x, Neg):
                    return Neg(walk(x.operand))
                if isinstance(x, BinOp):
                    left = walk(x.left)
                    return BinOp(x.op, left, walk(x.right))
                return x

            out.append(walk(e))
        return out

    n_combos = 1
    for c in choices:
        n_combos *= len(c)
    if n_combos > MAX_LINK_CHOICES:
        raise RuleError(
            f"{len(choices)} numbers of the solution could each be a given or an earlier result; "
            "too many readings to settle by rule", "Ambiguous solution")
    def occurrences(values: set[Fraction]) -> set[int]:
        """The question's numbers (by position) a set of literal values uses; a percent
        given is used by its number (40) or its fraction (.4)."""
        return {n.start for n in givens.numbers if n.value in values} if givens else set()

    used_givens = occurrences({v for e in exprs for v in _literal_values(e)})

    def valid(linked: list[Expr]) -> bool:
        refs = [set(expr_names(e)) for e in linked]
        closure = {len(linked) - 1}
        stack = [len(linked) - 1]
        index = {n: i for i, n in enumerate(names)}
        while stack:
            for r in refs[stack.pop()]:
                j = index[r]
                if j not in closure:
                    closure.add(j)
                    stack.append(j)
        if len(closure | bare) != len(linked):
            return False
        still = occurrences({v for e in linked for v in _literal_values(e)})
        return used_givens <= still

    import itertools

    readings: dict[tuple[str, ...], tuple[tuple[int | None, ...], list[Expr]]] = {}
    all_assign = list(itertools.product(*choices)) if choices else [()]
    for assign in all_assign:
        linked = apply(assign)
        if len(all_assign) == 1 or valid(linked):
            readings.setdefault(tuple(_canon(e) for e in linked), (assign, linked))
    if not readings:
        raise RuleError(
            "no reading of the solution uses every step and every given it states "
            "(a number could be a given or an earlier result)", "Ambiguous solution")
    if len(readings) > 1:
        diffs = [(i, k) for n, (i, k) in enumerate(leaf_keys)
                 if len({r[0][n] for r in readings.values()}) > 1]
        i, k = diffs[0] if diffs else leaf_keys[0]
        value = leaves(exprs[i])[k].value
        raise RuleError(
            f"ambiguous solution: the {_fmt(value)} in step {i + 1} ({comps[i].expr_text}) could be "
            "a number of the question or an earlier step's result; "
            f"{len(readings)} readings fit", "Ambiguous solution")
    assign, linked = next(iter(readings.values()))
    links: list[dict[str, str]] = []
    for (i, k), j in zip(leaf_keys, assign):
        if j is None:
            continue
        links.append({"step": names[i], "uses": names[j], "value": _fmt(written[j]),
                      "evidence": evidence[(i, k)]})
    return linked, links

# --------------------------------------------------------------------------- equation rule


def _linear_form(expr: Expr, unknown: str) -> tuple[Fraction, Fraction]:
    """(a, b) with expr == a*unknown + b; raises ExpressionError when not linear."""
    if isinstance(expr, Num):
        return Fraction(0), expr.value
    if isinstance(expr, Name):
        if expr.name != unknown:
            raise ExpressionError(f"more than one unknown ({unknown!r} and {expr.name!r})")
        return Fraction(1), Fraction(0)
    if isinstance(expr, Neg):
        a, b = _linear_form(expr.operand, unknown)
        return -a, -b
    la, lb = _linear_form(expr.left, unknown)
    ra, rb = _linear_form(expr.right, unknown)
    if expr.op == "+":
        return la + ra, lb + rb
    if expr.op == "-":
        return la - ra, lb - rb
    if expr.op == "*":
        if la and ra:
            raise ExpressionError("the equation is not linear in the unknown")
        return la * rb + ra * lb, lb * rb
    if ra:
        raise ExpressionError("the unknown appears in a divisor")
    if rb == 0:
        raise ExpressionError("division by zero")
    return la / rb, lb / rb


_UNKNOWN_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")


def smt_from_equation(equation: str, gold: Fraction | None = None) -> RuleResult:
    """Formalize an explicit equation field: ``x = (70 - 27)``, ``X=((45.0*3.0))``,
    a bare expression ``(70 - 27)``, or a linear equation in one unknown
    (``x + 27 = 70``, ``0.5*x = 3``). Raises RuleError otherwise."""
    text = equation.strip()
    if not text:
        raise RuleError("the equation field is empty")
    pieces = [p.strip() for p in text.split(";") if p.strip()]
    if len(pieces) > 1:
        raise RuleError(
            f"the equation field holds {len(pieces)} equations ({text[:80]!r}); the rule handles one"
        )
    text = pieces[0]
    parts = text.split("=")
    notes: list[str] = []
    if len(parts) > 2:
        raise RuleError(f"equation {text!r} has more than one '='")
    try:
        if len(parts) == 1 or _UNKNOWN_RE.match(parts[0]) or _UNKNOWN_RE.match(parts[1]):
            if len(parts) == 1:
                expr_text = parts[0].strip()
            elif _UNKNOWN_RE.match(parts[0]):
                expr_text = parts[1].strip()
            else:
                expr_text = parts[0].strip()
            expr = parse_expression(expr_text)
            value = evaluate(expr)
            sexpr = expr_to_sexpr(expr)
            step = RuleStep("answer", expr_text, value, sexpr, [])
            smtlib = _build_smtlib([step], [expr], "answer")
        else:
            left = parse_expression(parts[0], names=True)
            right = parse_expression(parts[1], names=True)
            unknowns = sorted(set(expr_names(left)) | set(expr_names(right)))
            if len(unknowns) != 1:
                raise RuleError(
                    f"equation {text!r} has {len(unknowns)} unknowns ({', '.join(unknowns) or 'none'}); "
                    "the rule needs exactly one"
                )
            unknown = unknowns[0]
            la, lb = _linear_form(left, unknown)
            ra, rb = _linear_form(right, unknown)
            if la == ra:
                raise RuleError(f"equation {text!r} does not determine {unknown} (coefficient 0)")
            value = (rb - lb) / (la - ra)
            renamed = {unknown: Name("answer")}

            def rename(e: Expr) -> Expr:
                if isinstance(e, Name):
                    return renamed.get(e.name, e)
                if isinstance(e, Neg):
                    return Neg(rename(e.operand))
                if isinstance(e, BinOp):
                    return BinOp(e.op, rename(e.left), rename(e.right))
                return e

            lhs_s = expr_to_sexpr(rename(left))
            rhs_s = expr_to_sexpr(rename(right))
            step = RuleStep("answer", text, value, f"(= {lhs_s} {rhs_s})", [])
            smtlib = (
                "(set-logic QF_LRA)\n(declare-const answer Real)\n"
                f"(assert (= {lhs_s} {rhs_s}))\n(check-sat)\n(get-value (answer))\n"
            )
            notes.append(f"linear equation in {unknown}: solved as answer = {_fmt(value)}")
    except ExpressionError as exc:
        raise RuleError(f"equation {text!r} is not arithmetic: {exc}", "Equation not arithmetic") from exc
    if gold is not None and value != gold:
        notes.append(f"the equation evaluates to {_fmt(value)}, not the gold {_fmt(gold)}")
    return RuleResult(smtlib, [step], "answer", value, "equation", notes)


# --------------------------------------------------------------------------- dispatch


def gold_from_seed(seed: Mapping[str, object]) -> Fraction | None:
    """The seed's exact gold: ``answer_value`` ('p/q'), else ``answer_text``/``target``,
    else the number after ``####`` in the solution."""
    raw = seed.get("answer_value")
    if isinstance(raw, str) and raw.strip():
        try:
            return Fraction(raw.strip())
        except (ValueError, ZeroDivisionError):
            pass
    for key in ("answer_text", "target"):
        val = seed.get(key)
        if isinstance(val, (str, int, float)) and not isinstance(val, bool):
            parsed = parse_number(val)
            if parsed is not None:
                return parsed.value
    solution = _solution_of(seed)
    return _final_answer(solution) if solution else None


def _solution_of(seed: Mapping[str, object]) -> str:
    sol = seed.get("solution")
    if isinstance(sol, str) and sol.strip():
        return sol
    raw = seed.get("answer")  # a raw GSM8K record keeps the solution under "answer"
    if isinstance(raw, str) and ("<<" in raw or "####" in raw):
        return raw
    return ""


def _equation_of(seed: Mapping[str, object]) -> str:
    for key in ("equation", "Equation", "lEquations"):
        val = seed.get(key)
        if isinstance(val, list) and len(val) == 1 and isinstance(val[0], str):
            val = val[0]
        if isinstance(val, str) and val.strip():
            return val
    return ""


def rule_for_seed(seed: Mapping[str, object]) -> RuleResult:
    """Apply the first rule the seed row supports: calculator annotations in
    ``solution`` (or a raw GSM8K ``answer``), else the ``equation`` field.
    Raises RuleError with a plain reason when none applies, also when the seed's text
    exceeds a parser limit (length, nesting, digits, size): one hostile seed never
    stops a run."""
    try:
        return _rule_for_seed(seed)
    except RuleError as exc:
        if len(str(exc)) <= MAX_REASON_CHARS:
            raise
        # long quotes of the seed's text are cut first, so the reason itself stays readable
        text = _LONG_QUOTE.sub(lambda m: m.group(1) + m.group(2)[:60] + "…" + m.group(1), str(exc))
        raise RuleError(text if len(text) <= MAX_REASON_CHARS else _short(RuleError(text), MAX_REASON_CHARS),
                        exc.title) from None
    except (RecursionError, ValueError, ArithmeticError, MemoryError) as exc:
        raise RuleError(f"the seed's text exceeds a parser limit: {_short(exc)}") from None


MAX_REASON_CHARS = 400  #: a reason quotes the seed's text; keep it readable
_LONG_QUOTE = re.compile(r"""(['"])((?:(?!\1).){80,}?)\1""")


def _short(exc: BaseException, limit: int = 200) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _worked_solution(seed: Mapping[str, object], solution: str) -> bool:
    """Is ``solution`` a GSM8K-style worked solution (computations ending in a final
    answer)? Decided by what the data holds: calculator annotations, a ``####`` line, or
    the importer's note that the record carried one (``meta.solution_format``), never
    by the name the user gave the source. Seeds imported before that note existed fall
    back to the source format name ``gsm8k``."""
    if ANNOTATION_RE.search(solution) or "####" in solution:
        return True
    meta = seed.get("meta")
    if isinstance(meta, str):
        try:
            meta = json.loads(meta) if len(meta) < 100_000 else {}
        except ValueError:
            meta = {}
    if isinstance(meta, Mapping) and "solution_format" in meta:
        return meta.get("solution_format") == "gsm8k"
    return str(seed.get("source") or "").lower() == "gsm8k"


def _rule_for_seed(seed: Mapping[str, object]) -> RuleResult:
    solution = _solution_of(seed)
    equation = _equation_of(seed)
    gold = gold_from_seed(seed)
    reasons: list[str] = []
    # GSM8K-style solutions: annotations, or plain computations ending in "#### n"
    gsm8k_style = _worked_solution(seed, solution)
    if solution and gsm8k_style:
        try:
            question = seed.get("question")
            return smt_from_calculator_annotations(
                solution, gold, question=question if isinstance(question, str) else None)
        except RuleError as exc:
            if not equation:
                raise
            reasons.append(f"calculator rule: {exc}")
    if equation:
        try:
            return smt_from_equation(equation, gold)
        except RuleError as exc:
            reasons.append(f"equation rule: {exc}")
            raise RuleError("no rule applies: " + "; ".join(reasons)) from exc
    if reasons:
        raise RuleError("no rule applies: " + "; ".join(reasons))
    raise RuleError("no rule applies: no calculator annotations and no equation field")
